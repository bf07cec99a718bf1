/**
 * A buffer the engine refuses because the isolate met its memory limit ends the run with the limit,
 * not with V8's bare RangeError: whether the program asked for the buffer or the runtime did for it
 * (a decoder's scratch buffer inside `new URL` met the limit in test/runtime/pieces.test.ts). The
 * words alone are not enough, since a program can throw them, and a buffer asked for far past the
 * limit in one go stays the program's own catchable RangeError, as in workerd.
 */

import { memoryLimitMessage } from '@supolka/codemode-protocol';
import { expect, test } from 'vitest';
import { useSandbox } from '../helpers.ts';

const sandbox = useSandbox();
const run = (code: string) => sandbox.execute({ memoryLimit: 8, code });
const atLimit = { code: 'MEMORY_LIMIT', error: memoryLimitMessage(8) };

test('buffers kept until the engine refuses one end with the memory limit', async () => {
  const envelope = await run('async () => { const keep = []; for (;;) keep.push(new Uint8Array(65536)); }');
  expect({ code: envelope.code, error: envelope.error }).toStrictEqual(atLimit);
});

test('a heap filled by arrays, then small buffers until one is refused, ends with the memory limit', async () => {
  const envelope = await run(
    'async () => { const keep = []; for (let i = 0; i < 60; i++) keep.push(new Array(16384).fill(i)); for (;;) keep.push(new Uint8Array(4096)); }',
  );
  expect({ code: envelope.code, error: envelope.error }).toStrictEqual(atLimit);
});

test("the same words thrown by the program far from the limit stay the program's error", async () => {
  const envelope = await run("async () => { throw new RangeError('Array buffer allocation failed'); }");
  expect([envelope.code, envelope.errorName, envelope.error]).toStrictEqual([
    undefined,
    'RangeError',
    'Array buffer allocation failed',
  ]);
});

test('one buffer asked for far past the limit is a RangeError the program could catch', async () => {
  const envelope = await run('async () => new ArrayBuffer(2 ** 31).byteLength');
  expect([envelope.code, envelope.errorName]).toStrictEqual([undefined, 'RangeError']);
  const caught = await run(
    "async () => { try { new ArrayBuffer(2 ** 31); } catch (error) { return error.name; } return 'allocated'; }",
  );
  expect(caught.result).toBe('RangeError');
});
