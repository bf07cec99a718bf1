/** RUN_SOURCE, parseEnvelope and rewriteEngineTermination on their own. */
import { CLOCK_TOLERANCE, executionTimeoutMessage, PAYLOAD_LIMIT } from '@supolka/codemode-protocol';
import { describe, expect, test } from 'vitest';
import { parseEnvelope, rewriteEngineTermination } from '../../src/sandbox/timeout.ts';
import { useSandbox } from '../helpers.ts';

const sandbox = useSandbox();

describe('the completion names', () => {
  test('__resultJson cannot be redefined and __resultReady cannot be assigned', async () => {
    const envelope = await sandbox.execute({
      code: `async () => {
  const failures = [];
  try { Object.defineProperty(globalThis, '__resultJson', { value: 1 }) } catch (e) { failures.push(e.message) }
  try { globalThis.__resultReady = 1 } catch (e) { failures.push(e.message) }
  try { delete globalThis.__timeoutExpired; globalThis.__timeoutExpired = null } catch (e) { failures.push(e.constructor.name) }
  return failures;
}`,
    });
    expect(envelope.result).toStrictEqual([
      'Cannot redefine property: __resultJson',
      "Cannot assign to read only property '__resultReady' of object '#<Object>'",
      'TypeError',
    ]);
  });

  test('the setter keeps the first value', async () => {
    const envelope = await sandbox.execute({
      code: `async () => {
  globalThis.__resultJson = JSON.stringify({ result: 'first' });
  globalThis.__resultJson = JSON.stringify({ result: 'second' });
  return 'third';
}`,
    });
    expect(envelope).toStrictEqual({ result: 'first', logs: [] });
  });

  test('a value that is not a string collapses to an undefined result', async () => {
    const envelope = await sandbox.execute({
      code: 'async () => { globalThis.__resultJson = { result: 1 }; return 2 }',
    });
    expect(envelope).toStrictEqual({ result: undefined, logs: [] });
  });

  test('an answer past PAYLOAD_LIMIT is never sent onward', async () => {
    const envelope = await sandbox.execute({
      memoryLimit: 512,
      code: `async () => 'x'.repeat(${PAYLOAD_LIMIT})`,
    });
    expect(envelope).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      error: `The run's answer is ${PAYLOAD_LIMIT + 13} bytes, past the ${PAYLOAD_LIMIT}-byte payload limit.`,
    });
  });
});

describe('parseEnvelope', () => {
  test.each([
    ['a result', '{"result":[1]}', { result: [1] }],
    ['an error', '{"error":"boom"}', { error: 'boom' }],
    ['JSON that is not an object', '[1,2]', { result: undefined }],
    ['JSON null', 'null', { result: undefined }],
    ['a value that is not a string', 5n, { result: undefined }],
    [
      'binary in the result',
      '{"result":{"$binary":"Uint8Array","base64":"AQ=="}}',
      { result: new Uint8Array([1]) },
    ],
  ])('%s', (_, value, expected) => {
    expect(parseEnvelope(value)).toStrictEqual(expected);
  });

  test('JSON that does not parse becomes an error', () => {
    expect(parseEnvelope('{nope')).toStrictEqual({
      error: expect.stringMatching(/^The run reported an answer that is not valid JSON: Malformed JSON/),
    });
  });

  test('a length stands for an answer past the limit', () => {
    expect(parseEnvelope(PAYLOAD_LIMIT + 1)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });
});

describe('rewriteEngineTermination', () => {
  const state = { elapsed: 0, bound: 3000, disposed: false, timeout: 2000, memoryLimit: 128 };

  test('rewrites a timeout text only when the counted time reached the bound, within CLOCK_TOLERANCE', () => {
    expect(
      rewriteEngineTermination('Script execution timed out.', { ...state, elapsed: 100 }),
    ).toBeUndefined();
    expect(
      rewriteEngineTermination('Script execution timed out.', { ...state, elapsed: 3000 - CLOCK_TOLERANCE }),
    ).toStrictEqual({
      error: executionTimeoutMessage(2000),
      code: 'TIMEOUT',
    });
  });

  test('rewrites a memory text only when the isolate reads disposed', () => {
    const text = 'Isolate was disposed during execution due to memory limit';
    expect(rewriteEngineTermination(text, state)).toBeUndefined();
    expect(rewriteEngineTermination(text, { ...state, disposed: true })).toMatchObject({
      code: 'MEMORY_LIMIT',
    });
  });
});
