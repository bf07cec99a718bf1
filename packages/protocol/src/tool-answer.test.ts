/**
 * isErrorAnswer tells a failed tool's answer from a result by its first characters, as every
 * serving function writes the envelope, and as another language's JSON writer may space it.
 */
import { describe, expect, test } from 'vitest';
import { stringifyForDispatch } from './codec.ts';
import { toolNotFoundEnvelope } from './errors.ts';
import { PAYLOAD_LIMIT } from './limits.ts';
import { isErrorAnswer } from './tool-answer.ts';

describe('isErrorAnswer', () => {
  test.each([
    stringifyForDispatch({ error: 'the store is down' }),
    toolNotFoundEnvelope('kv', 'missing'),
    '{"error": "spaced", "errorKind": "tool-not-found"}',
    ' \n\t{\n  "error" :\n  "pretty printed"\n}',
    '{"error":"\\"quoted\\" first"}',
  ])('%j is a failed tool', (answer) => {
    expect(isErrorAnswer(answer)).toBe(true);
  });

  test.each([
    stringifyForDispatch({ result: 1 }),
    stringifyForDispatch({ result: undefined }),
    stringifyForDispatch({ result: { error: 'a field of the result' } }),
    // The sandbox reads an empty error as none: the call returned.
    '{"error":""}',
    '{"error":null}',
    '{"errorKind":"tool-not-found"}',
    'not json',
    '',
  ])('%j is not', (answer) => {
    expect(isErrorAnswer(answer)).toBe(false);
  });

  test('looks at the start only, whatever the answer holds after it', () => {
    const large = 'x'.repeat(PAYLOAD_LIMIT);
    expect(isErrorAnswer(stringifyForDispatch({ error: large }))).toBe(true);
    expect(isErrorAnswer(stringifyForDispatch({ result: large }))).toBe(false);
    expect(isErrorAnswer(`${' '.repeat(PAYLOAD_LIMIT)}{"error":"late"}`)).toBe(false);
  });
});
