/**
 * crypto.getRandomValues and crypto.randomUUID against a host random source that answers wrong:
 * an isolate prepared with its randomBytes or randomUUID reference replaced (prepareIsolate's
 * `references`), a run started as the entry starts one. The array must come back filled with the
 * host's bytes, or the call must throw, never partly filled; randomUUID must answer a version 4
 * UUID or throw.
 */
import ivm from 'isolated-vm';
import { expect, test } from 'vitest';
import { RANDOM_UUID_ANSWER_MESSAGE, randomAnswerMessage } from '../../../runtime/src/crypto/crypto.ts';
import { INTERNAL_SPECIFIER } from '../../src/sandbox/entry/internal-module.ts';
import { disposeIsolate } from '../../src/sandbox/isolate.ts';
import { prepareIsolate } from '../../src/sandbox/setup/prepared-isolate.ts';

/** What a program asking for `length` random bytes meets when the host answers with `answer(length)`. */
function fillWith(answer: (length: number) => unknown, length = 16): Promise<unknown> {
  return runWith(
    { randomBytes: answer },
    `const array = new Uint8Array(${length}).fill(7);
  try {
    crypto.getRandomValues(array);
    return { filled: Array.from(array) };
  } catch (error) {
    return { name: error.name, message: error.message, isDOMException: error instanceof DOMException, array: Array.from(array) };
  }`,
  );
}

/** What a program calling crypto.randomUUID() meets when the host answers with `answer()`. */
function uuidWith(answer: () => unknown): Promise<unknown> {
  return runWith(
    { randomUUID: answer },
    `try {
    return { uuid: crypto.randomUUID() };
  } catch (error) {
    return { name: error.name, message: error.message, isDOMException: error instanceof DOMException };
  }`,
  );
}

/** The result of `body`, run as an async function in an isolate whose named randomness references answer as given. */
async function runWith(
  answers: Record<string, (...args: never[]) => unknown>,
  body: string,
): Promise<unknown> {
  const prepared = prepareIsolate({
    memoryLimit: 64,
    references: () =>
      Object.fromEntries(Object.entries(answers).map(([name, answer]) => [name, new ivm.Reference(answer)])),
  });
  const { handle } = prepared;
  try {
    const entry = handle.isolate.compileModuleSync(`import { __startRun } from '${INTERNAL_SPECIFIER}';
__startRun(async () => {
  ${body}
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

test('randomUUID answers a version 4 UUID the host made', async () => {
  const uuid = '0f8fad5b-d9cb-469f-a165-70867728950e';
  expect(await uuidWith(() => uuid)).toStrictEqual({ uuid });
});

test.each([
  ['in capitals', () => '0F8FAD5B-D9CB-469F-A165-70867728950E'],
  ['of another version', () => '0f8fad5b-d9cb-169f-a165-70867728950e'],
  ['of another variant', () => '0f8fad5b-d9cb-469f-c165-70867728950e'],
  ['without its dashes', () => '0f8fad5bd9cb469fa16570867728950e'],
  ['one character short', () => '0f8fad5b-d9cb-469f-a165-70867728950'],
  ['in braces', () => '{0f8fad5b-d9cb-469f-a165-70867728950e}'],
  ['of 36 characters that are not hex', () => 'zzzzzzzz-zzzz-4zzz-azzz-zzzzzzzzzzzz'],
  ['empty', () => ''],
  ['a number', () => 4],
  ['undefined', () => undefined],
])('randomUUID refuses an answer %s with an OperationError', async (_, answer) => {
  expect(await uuidWith(answer)).toStrictEqual({
    name: 'OperationError',
    message: RANDOM_UUID_ANSWER_MESSAGE,
    isDOMException: true,
  });
});
