/**
 * The reserved-memory budget (runtime reserved-memory.ts and webassembly-memory.ts) seen from a
 * program: what it refuses, with which text, through every path to the constructors a program
 * can find, and what it leaves exactly as it was. Nothing here commits memory past the budget
 * even when a guard is missing (a refused reservation is address space, not pages), so these run
 * in the test's own process; the attacks that would commit memory run in children of their own
 * (test/sandbox/reserved-memory-rss.test.ts).
 */
import { describe, expect, test } from 'vitest';
import {
  RESERVATION_UNIT,
  reservedMemoryBudget,
  reservedMemoryMessage,
} from '../../../runtime/src/reserved-memory.ts';
import {
  WASM_MEMORY_PAGE_LIMIT,
  WASM_TABLE_ELEMENT_LIMIT,
  wasmMemoryLimitMessage,
  wasmTableLimitMessage,
} from '../../../runtime/src/webassembly-memory.ts';
import { T, useSandbox } from '../helpers.ts';

const sandbox = useSandbox();
const MEMORY_LIMIT = 64;
const BUDGET = reservedMemoryBudget(MEMORY_LIMIT);

async function run(body: string, memoryLimit = MEMORY_LIMIT): Promise<unknown> {
  const envelope = await sandbox.execute({ code: `async () => { ${T} ${body} }`, memoryLimit });
  if (envelope.error !== undefined) throw new Error(envelope.error);
  return envelope.result;
}

const refused = (requested: number, remaining = BUDGET) =>
  `RangeError: ${reservedMemoryMessage(requested, BUDGET, remaining)}`;

describe('the budget', () => {
  test('is half the memory limit, in whole reservation units', () => {
    expect(BUDGET).toBe(32 * 2 ** 20);
    expect(reservedMemoryBudget(128)).toBe(64 * 2 ** 20);
    expect(BUDGET % RESERVATION_UNIT).toBe(0);
  });

  test('a resizable buffer within it is admitted; one past it is refused with the text naming the bound', async () => {
    const result = await run(`
      const small = new ArrayBuffer(8, { maxByteLength: 1024 });
      return [
        [small.resizable, small.maxByteLength, small.byteLength],
        t(() => new ArrayBuffer(0, { maxByteLength: 2 ** 32 })),
        t(() => new SharedArrayBuffer(0, { maxByteLength: 2 ** 32 })),
      ];
    `);
    expect(result).toStrictEqual([
      [true, 1024, 8],
      refused(2 ** 32, BUDGET - RESERVATION_UNIT),
      refused(2 ** 32, BUDGET - RESERVATION_UNIT),
    ]);
  });

  test('several medium buffers add up: the one that would pass the budget is refused, and so is every later one', async () => {
    const result = await run(`
      const made = [];
      let failure;
      for (let i = 0; i < 8; i++) {
        try { made.push(new ArrayBuffer(0, { maxByteLength: 12 * 2 ** 20 })); }
        catch (e) { failure = e.name + ': ' + e.message; break; }
      }
      return { made: made.length, failure, shared: t(() => new SharedArrayBuffer(0, { maxByteLength: 12 * 2 ** 20 })) };
    `);
    const left = BUDGET - 2 * 12 * 2 ** 20;
    expect(result).toStrictEqual({
      made: 2,
      failure: refused(12 * 2 ** 20, left),
      shared: refused(12 * 2 ** 20, left),
    });
  });

  // ArrayBuffer's guard is made in the snapshot, SharedArrayBuffer's and WebAssembly's in each
  // isolate: all three charge the one budget the isolate's preparation set.
  test('a shared buffer and a memory made first charge the budget ArrayBuffer then reads', async () => {
    const result = await run(`
      new SharedArrayBuffer(0, { maxByteLength: 12 * 2 ** 20 });
      new WebAssembly.Memory({ initial: 0, maximum: 1 });
      return t(() => new ArrayBuffer(0, { maxByteLength: 24 * 2 ** 20 }));
    `);
    expect(result).toBe(refused(24 * 2 ** 20, BUDGET - 12 * 2 ** 20 - RESERVATION_UNIT));
  });

  test('tiny buffers are charged whole units, since each holds at least a page', async () => {
    const result = await run(`
      let made = 0;
      try { for (;;) { new ArrayBuffer(1, { maxByteLength: 1 }); made++; } }
      catch (e) { return { made, failure: e.name + ': ' + e.message }; }
    `);
    expect(result).toStrictEqual({ made: BUDGET / RESERVATION_UNIT, failure: refused(RESERVATION_UNIT, 0) });
  });

  test('each execution has a budget of its own, and a larger limit a larger one', async () => {
    const first = await run(
      `return t(() => new ArrayBuffer(0, { maxByteLength: 30 * 2 ** 20 }).maxByteLength);`,
    );
    const second = await run(
      `return t(() => new ArrayBuffer(0, { maxByteLength: 30 * 2 ** 20 }).maxByteLength);`,
    );
    const larger = await run(
      `return t(() => new ArrayBuffer(0, { maxByteLength: 60 * 2 ** 20 }).maxByteLength);`,
      128,
    );
    expect([first, second, larger]).toStrictEqual([30 * 2 ** 20, 30 * 2 ** 20, 60 * 2 ** 20]);
  });

  test('a maximum read through a getter is read once: it cannot pass the check small and reach the engine large', async () => {
    const result = await run(`
      let reads = 0;
      const options = { get maxByteLength() { reads++; return reads === 1 ? 1024 : 2 ** 32; } };
      const buffer = new ArrayBuffer(0, options);
      return [reads, buffer.maxByteLength];
    `);
    expect(result).toStrictEqual([1, 1024]);
  });
});

describe('every path to the original constructors', () => {
  const paths: Record<string, string> = {
    global: 'new ArrayBuffer(0, big)',
    'a view’s buffer': 'new (new Uint8Array(0).buffer.constructor)(0, big)',
    'the prototype’s constructor': 'new (Object.getPrototypeOf(new ArrayBuffer(1)).constructor)(0, big)',
    'the constructor’s descriptor':
      "new (Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'constructor').value)(0, big)",
    'Reflect.construct': 'Reflect.construct(ArrayBuffer, [0, big])',
    'Reflect.construct with another new.target': 'Reflect.construct(ArrayBuffer, [0, big], Object)',
    'a subclass': 'new (class extends ArrayBuffer {})(0, big)',
    'a subclass of a subclass': 'new (class extends (class extends ArrayBuffer {}) {})(0, big)',
    'Symbol.species': 'new ArrayBuffer[Symbol.species](0, big)',
    'a species read off an instance': 'new (new ArrayBuffer(1).constructor[Symbol.species])(0, big)',
    'a typed array’s buffer of a buffer': 'new (new DataView(new ArrayBuffer(1)).buffer.constructor)(0, big)',
    'a WebAssembly memory’s buffer':
      'new (new WebAssembly.Memory({ initial: 0, maximum: 0 }).buffer.constructor)(0, big)',
    'a response body': 'new ((await new Response("x").arrayBuffer()).constructor)(0, big)',
    'a text encoder': 'new (new TextEncoder().encode("x").buffer.constructor)(0, big)',
    'a structured clone': 'new (structuredClone(new ArrayBuffer(1)).constructor)(0, big)',
    'a transferred buffer': 'new (new ArrayBuffer(1).transfer().constructor)(0, big)',
    'the shared global': 'new SharedArrayBuffer(0, big)',
    'a shared memory’s buffer':
      'new (new WebAssembly.Memory({ initial: 0, maximum: 0, shared: true }).buffer.constructor)(0, big)',
    'a shared buffer’s prototype':
      'new (Object.getPrototypeOf(new SharedArrayBuffer(1)).constructor)(0, big)',
    'a shared subclass': 'new (class extends SharedArrayBuffer {})(0, big)',
    'a bound constructor': 'new (ArrayBuffer.bind(null, 0))(big)',
    'a proxy of the constructor': 'new (new Proxy(ArrayBuffer, {}))(0, big)',
  };

  test('each is the guarded constructor, and refuses a maximum past the budget', async () => {
    const names = Object.keys(paths);
    const result = (await run(`
      const big = { maxByteLength: 2 ** 40 };
      const attempts = [${names.map((name) => `async () => ${paths[name]}`).join(',\n')}];
      const out = [];
      for (const attempt of attempts) {
        try { const buffer = await attempt(); out.push('admitted ' + buffer.maxByteLength); }
        catch (e) { out.push(e.name + ': ' + e.message); }
      }
      return out;
    `)) as string[];
    // The two zero-page memories the paths make on the way charge one unit each.
    const firstMemory = names.indexOf('a WebAssembly memory’s buffer');
    const secondMemory = names.indexOf('a shared memory’s buffer');
    const remainingAt = (index: number) =>
      BUDGET - (index >= firstMemory ? RESERVATION_UNIT : 0) - (index >= secondMemory ? RESERVATION_UNIT : 0);
    expect(Object.fromEntries(names.map((name, index) => [name, result[index]]))).toStrictEqual(
      Object.fromEntries(names.map((name, index) => [name, refused(2 ** 40, remainingAt(index))])),
    );
  });

  test('transfer() keeps a buffer’s maximum, which was charged, and cannot pass it', async () => {
    const result = await run(`
      let buffer = new ArrayBuffer(0, { maxByteLength: 2 ** 20 });
      for (let i = 0; i < 50; i++) buffer = buffer.transfer(2 ** 20);
      return [buffer.resizable, buffer.maxByteLength, buffer.byteLength, t(() => buffer.transfer(2 ** 21)), t(() => buffer.resize(2 ** 21))];
    `);
    expect(result).toStrictEqual([
      true,
      2 ** 20,
      2 ** 20,
      'RangeError: Invalid array buffer length',
      'RangeError: ArrayBuffer.prototype.resize: Invalid length parameter',
    ]);
  });
});

describe('what stays as it was', () => {
  test('the constructors’ shape, instanceof, isView, species and fixed-length buffers', async () => {
    const result = await run(`
      class Sub extends ArrayBuffer {}
      const sub = new Sub(4, { maxByteLength: 16 });
      const fixed = new ArrayBuffer(8);
      return {
        name: [ArrayBuffer.name, SharedArrayBuffer.name, ArrayBuffer.length, SharedArrayBuffer.length],
        source: String(ArrayBuffer),
        prototype: Object.getOwnPropertyDescriptor(ArrayBuffer, 'prototype'),
        constructorIsGlobal: ArrayBuffer.prototype.constructor === ArrayBuffer && SharedArrayBuffer.prototype.constructor === SharedArrayBuffer,
        instance: [fixed instanceof ArrayBuffer, sub instanceof Sub, sub instanceof ArrayBuffer, Object.getPrototypeOf(sub) === Sub.prototype],
        species: [ArrayBuffer[Symbol.species] === ArrayBuffer, Sub[Symbol.species] === Sub, sub.slice(0, 2) instanceof Sub],
        isView: [ArrayBuffer.isView(new Uint8Array(1)), ArrayBuffer.isView(fixed)],
        fixed: [fixed.byteLength, fixed.resizable, fixed.maxByteLength, new Uint8Array(fixed).length],
        sub: [sub.resizable, sub.maxByteLength, sub.byteLength],
        resized: (() => { const b = new ArrayBuffer(1, { maxByteLength: 8 }); const view = new Uint8Array(b); b.resize(8); return [b.byteLength, view.length]; })(),
        grown: (() => { const b = new SharedArrayBuffer(1, { maxByteLength: 8 }); b.grow(4); return [b.growable, b.byteLength, b.maxByteLength]; })(),
        noOptions: [new ArrayBuffer(3, undefined).resizable, new ArrayBuffer(3, {}).resizable, new ArrayBuffer(3, 7).resizable],
        errors: [t(() => ArrayBuffer(1)), t(() => new ArrayBuffer(-1)), t(() => new ArrayBuffer(4, { maxByteLength: 2 })), t(() => new ArrayBuffer(Symbol()))],
      };
    `);
    expect(result).toStrictEqual({
      name: ['ArrayBuffer', 'SharedArrayBuffer', 1, 1],
      source: 'function ArrayBuffer() { [native code] }',
      prototype: { value: {}, writable: false, enumerable: false, configurable: false },
      constructorIsGlobal: true,
      instance: [true, true, true, true],
      species: [true, true, true],
      isView: [true, false],
      fixed: [8, false, 8, 8],
      sub: [true, 16, 4],
      resized: [8, 8],
      grown: [true, 4, 8],
      noOptions: [false, false, false],
      errors: [
        "TypeError: Constructor ArrayBuffer requires 'new'",
        'RangeError: Invalid array buffer length',
        'RangeError: Invalid array buffer max length',
        'TypeError: Cannot convert a Symbol value to a number',
      ],
    });
  });
});

describe('WebAssembly.Memory and WebAssembly.Table', () => {
  const memory = (pages: number) => `RangeError: ${wasmMemoryLimitMessage(pages)}`;
  const table = (elements: number) => `RangeError: ${wasmTableLimitMessage(elements)}`;

  // Under a 128 MB limit, whose budget holds the four memories this test makes.
  test('a memory past the page limit is refused, made or grown, in every address width', async () => {
    const result = await run(
      `
      return [
        t(() => new WebAssembly.Memory({ initial: 16384 })),
        t(() => { const m = new WebAssembly.Memory({ initial: 1 }); m.grow(${WASM_MEMORY_PAGE_LIMIT - 1}); return [m.buffer.byteLength, t(() => m.grow(1))]; }),
        t(() => { const m = new WebAssembly.Memory({ initial: 1, maximum: 65536, shared: true }); return t(() => m.grow(16383)); }),
        t(() => { const m = new WebAssembly.Memory({ initial: 1n, address: 'i64' }); return t(() => m.grow(16383n)); }),
        t(() => new WebAssembly.Memory({ initial: 1n, maximum: 1n, address: 'i64' }).buffer.byteLength),
        t(() => new (class extends WebAssembly.Memory {})({ initial: 16384 })),
        t(() => new (new WebAssembly.Memory({ initial: 0, maximum: 0 }).constructor)({ initial: 16384 })),
        t(() => Reflect.construct(WebAssembly.Memory, [{ initial: 300 }])),
      ];
    `,
      128,
    );
    expect(result).toStrictEqual([
      memory(16384),
      [WASM_MEMORY_PAGE_LIMIT * 65536, memory(WASM_MEMORY_PAGE_LIMIT + 1)],
      memory(16384),
      memory(16384),
      65536,
      memory(16384),
      memory(16384),
      memory(300),
    ]);
  });

  test('a memory’s maximum is charged against the reserved budget, so memories add up', async () => {
    const result = await run(`
      const made = [];
      try { for (;;) made.push(new WebAssembly.Memory({ initial: 1 })); }
      catch (e) { return [made.length, e.name + ': ' + e.message, made[0].buffer.byteLength]; }
    `);
    const perMemory = WASM_MEMORY_PAGE_LIMIT * RESERVATION_UNIT;
    expect(result).toStrictEqual([
      BUDGET / perMemory,
      refused(perMemory, BUDGET - (BUDGET / perMemory) * perMemory),
      65536,
    ]);
  });

  test('a table past the element limit is refused, made or grown', async () => {
    const result = await run(`
      return [
        t(() => new WebAssembly.Table({ initial: 1e7, element: 'anyfunc' })),
        t(() => { const x = new WebAssembly.Table({ initial: 1, element: 'anyfunc' }); return t(() => x.grow(1e7 - 1)); }),
        t(() => { const x = new WebAssembly.Table({ initial: 1, maximum: 1e7, element: 'externref' }); x.grow(${WASM_TABLE_ELEMENT_LIMIT - 1}, 'v'); return [x.length, x.get(5), t(() => x.grow(1))]; }),
        t(() => new WebAssembly.Table({ initial: 2, element: 'externref' }, 'fill').get(1)),
      ];
    `);
    expect(result).toStrictEqual([
      table(1e7),
      table(1e7),
      [WASM_TABLE_ELEMENT_LIMIT, 'v', table(WASM_TABLE_ELEMENT_LIMIT + 1)],
      'fill',
    ]);
  });

  test('the engine’s own checks and texts are unchanged within the limits', async () => {
    const result = await run(`
      return [
        t(() => WebAssembly.Memory({ initial: 1 })),
        t(() => new WebAssembly.Memory({})),
        t(() => new WebAssembly.Memory({ initial: 2, maximum: 1 })),
        t(() => new WebAssembly.Memory({ initial: 1, shared: true })),
        t(() => { const m = new WebAssembly.Memory({ initial: 1, maximum: 2 }); m.grow(1); return t(() => m.grow(1)); }),
        WebAssembly.Memory.name, WebAssembly.Memory.length, new WebAssembly.Memory({ initial: 0 }) instanceof WebAssembly.Memory,
      ];
    `);
    expect(result).toStrictEqual([
      "TypeError: WebAssembly.Memory must be invoked with 'new'",
      "TypeError: WebAssembly.Memory(): Property 'initial' is required",
      "RangeError: WebAssembly.Memory(): Property 'maximum': value 1 is below the lower bound 2",
      'TypeError: WebAssembly.Memory(): If shared is true, maximum property should be defined.',
      'RangeError: WebAssembly.Memory.grow(): Maximum memory size exceeded',
      'Memory',
      1,
      true,
    ]);
  });
});
