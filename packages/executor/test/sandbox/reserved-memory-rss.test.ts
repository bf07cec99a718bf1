/**
 * Allocations the engine's memory limit does not meter, tried as an attacker would, each in a
 * child process of its own: before the reserved-memory budget, each of the first attacks below
 * committed 1 GiB under a 64 MB limit and returned normally, and growing a Table ended the
 * process. Each child runs one program under a 64 MB limit and reports its envelope and how far
 * its peak resident memory (VmHWM) rose past where it stood after a warm-up run.
 *
 * The bound asserted is RSS_BOUND: the limit (64 MB), the reserved budget (32 MiB) and 64 MiB
 * of headroom for what the engine and the allocator keep around a run. Measured on the build
 * machine: 0.1 to 31.6 MiB for the refused and budget-bounded attacks, 67.6 MiB for the table
 * attack that ends at the heap limit. Without the budget the first ones rise by 1 GiB.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { reservedMemoryBudget, reservedMemoryMessage } from '../../../runtime/src/reserved-memory.ts';
import {
  WASM_MEMORY_PAGE_LIMIT,
  wasmMemoryLimitMessage,
  wasmTableLimitMessage,
} from '../../../runtime/src/webassembly-memory.ts';

const MEMORY_LIMIT = 64;
const BUDGET = reservedMemoryBudget(MEMORY_LIMIT);
const MiB = 2 ** 20;
const RSS_BOUND = MEMORY_LIMIT * MiB + BUDGET + 64 * MiB;

const probe = `
import { readFileSync } from 'node:fs';
import { Sandbox } from ${JSON.stringify(fileURLToPath(new URL('../../src/sandbox/sandbox.ts', import.meta.url)))};
const peak = () => Number(/VmHWM:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) * 1024;
const sandbox = new Sandbox();
await sandbox.execute({ code: 'async () => new Uint8Array(1024).length', memoryLimit: ${MEMORY_LIMIT} });
const before = peak();
const envelope = await sandbox.execute({ code: process.argv[1], memoryLimit: ${MEMORY_LIMIT}, timeout: 20000 });
const grew = peak() - before;
await sandbox.dispose();
console.log(JSON.stringify({ envelope, grew }));
`;

const run = promisify(execFile);

async function attack(code: string): Promise<{ envelope: Record<string, unknown>; grew: number }> {
  const { stdout } = await run(
    process.execPath,
    ['--no-node-snapshot', '--no-wasm-code-gc', '--input-type=module', '-e', probe, code],
    { cwd: fileURLToPath(new URL('../..', import.meta.url)), encoding: 'utf8', timeout: 60_000 },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1) as string);
}

/** Touches one byte in every page of `view` from `from` on: what commits a reserved page. */
const TOUCH =
  'const touch = (view, from = 0) => { for (let i = from; i < view.length; i += 4096) view[i] = 1; };';

const refused = (requested: number, remaining: number) => reservedMemoryMessage(requested, BUDGET, remaining);

describe('resizable and growable buffers', () => {
  test('one resizable buffer reserved for 4 GiB, to be resized upward in steps and touched, is refused', async () => {
    const { envelope, grew } = await attack(`async () => { ${TOUCH}
      const buffer = new ArrayBuffer(0, { maxByteLength: 2 ** 32 });
      const view = new Uint8Array(buffer);
      for (let step = 1; step <= 1024; step++) { buffer.resize(step * 2 ** 20); touch(view, (step - 1) * 2 ** 20); }
      return buffer.byteLength;
    }`);
    expect(envelope.error).toBe(refused(2 ** 32, BUDGET));
    expect(grew).toBeLessThan(RSS_BOUND);
  });

  test('medium buffers, as many as are admitted, each resized to its maximum and touched, stop at the budget', async () => {
    const { envelope, grew } = await attack(`async () => { ${TOUCH}
      const kept = [];
      for (;;) {
        let buffer;
        try { buffer = new ArrayBuffer(0, { maxByteLength: 8 * 2 ** 20 }); }
        catch (e) { return { kept: kept.length, failure: e.message }; }
        buffer.resize(8 * 2 ** 20);
        touch(new Uint8Array(buffer));
        kept.push(buffer);
      }
    }`);
    expect(envelope.result).toStrictEqual({ kept: 4, failure: refused(8 * MiB, 0) });
    expect(grew).toBeLessThan(RSS_BOUND);
  });

  test('growable SharedArrayBuffers grown through grow() and touched through length-tracking views stop at the budget', async () => {
    const { envelope, grew } = await attack(`async () => { ${TOUCH}
      const kept = [];
      const failures = [];
      try { new SharedArrayBuffer(0, { maxByteLength: 2 ** 32 }); } catch (e) { failures.push(e.message); }
      for (;;) {
        let buffer;
        try { buffer = new SharedArrayBuffer(0, { maxByteLength: 4 * 2 ** 20 }); }
        catch (e) { failures.push(e.message); return { kept: kept.length, failures }; }
        const view = new Uint8Array(buffer);
        for (let step = 1; step <= 4; step++) { buffer.grow(step * 2 ** 20); touch(view, (step - 1) * 2 ** 20); }
        kept.push(buffer);
      }
    }`);
    expect(envelope.result).toStrictEqual({
      kept: 8,
      failures: [refused(2 ** 32, BUDGET), refused(4 * MiB, 0)],
    });
    expect(grew).toBeLessThan(RSS_BOUND);
  });

  test('a subclass whose constructor asks for 4 GiB is refused', async () => {
    const { envelope, grew } = await attack(`async () => { ${TOUCH}
      class Pool extends ArrayBuffer { constructor() { super(0, { maxByteLength: 2 ** 32 }); } }
      const pool = new Pool();
      pool.resize(2 ** 30);
      touch(new Uint8Array(pool));
      return pool.byteLength;
    }`);
    expect(envelope.error).toBe(refused(2 ** 32, BUDGET));
    expect(grew).toBeLessThan(RSS_BOUND);
  });

  test('transfer() of an admitted buffer, again and again and to a larger length, never passes its maximum', async () => {
    const { envelope, grew } = await attack(`async () => { ${TOUCH}
      let buffer = new ArrayBuffer(0, { maxByteLength: 16 * 2 ** 20 });
      const failures = [];
      for (let i = 0; i < 64; i++) {
        try { buffer = buffer.transfer(32 * 2 ** 20); } catch (e) { failures.push(e.name); }
        buffer = buffer.transfer(16 * 2 ** 20);
        touch(new Uint8Array(buffer));
      }
      let fixed;
      try { fixed = buffer.transferToFixedLength(2 ** 30); touch(new Uint8Array(fixed)); }
      catch (e) { failures.push(e.name + ': ' + e.message); }
      return { failures: failures.length, last: failures.at(-1), byteLength: buffer.byteLength, fixed: fixed?.byteLength };
    }`);
    // transferToFixedLength allocates through the metered allocator, which refuses 1 GiB.
    expect(envelope.result).toStrictEqual({
      failures: 65,
      last: 'RangeError: Array buffer allocation failed',
      // A refused transfer detaches nothing; `fixed` stayed undefined, which JSON leaves out.
      byteLength: 16 * MiB,
    });
    expect(grew).toBeLessThan(RSS_BOUND);
  });
});

describe('WebAssembly.Memory and WebAssembly.Table', () => {
  test('a memory of 16384 pages is refused', async () => {
    const { envelope, grew } = await attack(`async () => { ${TOUCH}
      const memory = new WebAssembly.Memory({ initial: 16384 });
      touch(new Uint8Array(memory.buffer));
      return memory.buffer.byteLength;
    }`);
    expect(envelope.error).toBe(wasmMemoryLimitMessage(16384));
    expect(grew).toBeLessThan(RSS_BOUND);
  });

  test('memories grown page by page toward 16384 pages, 32-bit, 64-bit and shared, stop at the limit and the budget', async () => {
    const { envelope, grew } = await attack(`async () => { ${TOUCH}
      const kept = [];
      const failures = [];
      const descriptors = [{ initial: 1 }, { initial: 1n, address: 'i64' }, { initial: 1, maximum: 16384, shared: true }];
      for (let round = 0; ; round++) {
        const descriptor = descriptors[round % 3];
        let memory;
        try { memory = new WebAssembly.Memory(descriptor); }
        catch (e) { failures.push(e.message); return { kept: kept.length, failures }; }
        const wide = descriptor.address === 'i64';
        try { for (let page = 1; page < 16384; page++) memory.grow(wide ? 1n : 1); }
        catch (e) { failures.push(e.message); }
        touch(new Uint8Array(memory.buffer));
        kept.push(memory);
      }
    }`);
    const perMemory = WASM_MEMORY_PAGE_LIMIT * 65536;
    expect(envelope.result).toStrictEqual({
      kept: BUDGET / perMemory,
      failures: [
        wasmMemoryLimitMessage(WASM_MEMORY_PAGE_LIMIT + 1),
        wasmMemoryLimitMessage(WASM_MEMORY_PAGE_LIMIT + 1),
        refused(perMemory, 0),
      ],
    });
    expect(grew).toBeLessThan(RSS_BOUND);
  });

  test('a table grown to ten million entries is refused, and tables kept past the limit end the run with MEMORY_LIMIT', async () => {
    const { envelope, grew } = await attack(`async () => {
      const first = new WebAssembly.Table({ initial: 1, element: 'externref' });
      let failure;
      try { first.grow(1e7 - 1); } catch (e) { failure = e.message; }
      if (failure !== ${JSON.stringify(wasmTableLimitMessage(1e7))}) return 'grown: ' + failure;
      const kept = [];
      for (;;) kept.push(new WebAssembly.Table({ initial: 65536, element: 'externref' }));
    }`);
    expect(envelope.code).toBe('MEMORY_LIMIT');
    expect(grew).toBeLessThan(RSS_BOUND);
  });
});
