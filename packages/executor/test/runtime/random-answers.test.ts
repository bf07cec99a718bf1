/**
 * crypto.getRandomValues against a host random source that answers wrong: an isolate prepared with
 * its randomBytes reference replaced (prepareIsolate's `references`), a run started as the entry
 * starts one. The array must come back filled with the host's bytes, or the call must throw;
 * never partly filled.
 */
import ivm from 'isolated-vm';
import { expect, test } from 'vitest';
import { randomAnswerMessage } from '../../../runtime/src/crypto/crypto.ts';
import { INTERNAL_SPECIFIER } from '../../src/sandbox/internal-module.ts';
import { disposeIsolate } from '../../src/sandbox/isolate.ts';
import { prepareIsolate } from '../../src/sandbox/prepared-isolate.ts';

/** What a program asking for `length` random bytes meets when the host answers with `answer(length)`. */
async function fillWith(answer: (length: number) => unknown, length = 16): Promise<unknown> {
  const prepared = prepareIsolate({
    memoryLimit: 64,
    references: () => ({ randomBytes: new ivm.Reference(answer) as never }),
  });
  const { handle } = prepared;
  try {
    const entry = handle.isolate.compileModuleSync(`import { __startRun } from '${INTERNAL_SPECIFIER}';
__startRun(async () => {
  const array = new Uint8Array(${length}).fill(7);
  try {
    crypto.getRandomValues(array);
    return { filled: Array.from(array) };
  } catch (error) {
    return { name: error.name, message: error.message, isDOMException: error instanceof DOMException, array: Array.from(array) };
  }
}, 'timed out', false);`);
    entry.instantiateSync(handle.context, () => prepared.internal);
    await entry.evaluate();
    return JSON.parse(String(await prepared.slots.delivered)).result;
  } finally {
    disposeIsolate(handle);
  }
}

const refused = (length: number) => ({
  name: 'OperationError',
  message: randomAnswerMessage(length),
  isDOMException: true,
  array: Array.from({ length }, () => 7),
});

test('an answer of exactly the bytes asked for fills the array', async () => {
  const bytes = Array.from({ length: 16 }, (_, index) => index * 3);
  expect(await fillWith(() => new Uint8Array(bytes))).toStrictEqual({ filled: bytes });
});

test.each([
  ['shorter', (length: number) => new Uint8Array(length - 1).fill(1)],
  ['empty', () => new Uint8Array(0)],
  ['longer', (length: number) => new Uint8Array(length + 1).fill(1)],
  ['of another typed array of the same byte length', (length: number) => new Uint16Array(length / 2)],
  ['a string of that length', (length: number) => 'x'.repeat(length)],
  ['a number', (length: number) => length],
  ['an object claiming that length', (length: number) => ({ length, 0: 1 })],
  ['a list of that length', (length: number) => Array.from({ length }, () => 1)],
  ['undefined', () => undefined],
  ['null', () => null],
])('an answer %s is refused, the array left as it was', async (_, answer) => {
  expect(await fillWith(answer)).toStrictEqual(refused(16));
});
