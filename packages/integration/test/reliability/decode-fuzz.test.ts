/**
 * The decoder fuzz's short form (the full one is `tools/run fuzz`, docs/reliability.md): hostile
 * texts of every family through decodeMessage, which returns a fault with a known code or a
 * message that encodes and decodes to itself, and never throws; and the extreme texts (a million
 * levels of nesting, a million values, a 10 MB program, one past PAYLOAD_LIMIT) the same way.
 */
import { PAYLOAD_LIMIT } from '@supolka/codemode-protocol';
import { expect, test } from 'vitest';
import { judgeDecoding, judgeExtremes, runDecodeFuzz } from '../../reliability/decode-fuzz.ts';

test('20 000 hostile texts of every family: each a fault with a known code or a message that round-trips', () => {
  const report = runDecodeFuzz({ messages: 20_000, seed: 14, maxDepth: 1000 });
  expect(report.failure).toBeUndefined();
  expect(report.messages).toBe(20_000);
  expect(Object.keys(report.families).sort()).toStrictEqual(
    [
      'codecTag',
      'deepNesting',
      'hugeNumber',
      'mutated',
      'randomJson',
      'randomText',
      'truncated',
      'unknownType',
      'wrongOrder',
      'wrongType',
    ].sort(),
  );
  // A text cut short is never a message; one of the wrong order always is.
  expect(report.families.truncated?.message).toBe(0);
  expect(report.families.wrongOrder?.fault).toBe(0);
}, 120_000);

test('the extreme texts are refused, none throws', () => {
  const judged = judgeExtremes(PAYLOAD_LIMIT);
  expect(judged.filter((text) => text.broken !== undefined)).toStrictEqual([]);
  expect(judged.length).toBeGreaterThan(5);
}, 120_000);

test('the judge reads a valid message as accepted and a broken one as a fault, neither as broken', () => {
  expect(judgeDecoding('{"type":"hello","protocol":1}')).toStrictEqual({ accepted: true });
  expect(judgeDecoding('{"type":')).toStrictEqual({ accepted: false });
});
