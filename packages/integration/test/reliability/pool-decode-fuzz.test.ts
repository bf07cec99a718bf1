/**
 * The decoder fuzz (reliability/decode-fuzz.ts) through the pool table's decode, which the pool
 * and its children run on every frame: hostile texts of every family, the pool's own types among
 * them, each a fault with a known code or a message that encodes and decodes to itself, and never
 * a throw. The protocol's decode has the same fuzz (decode-fuzz.test.ts beside this file).
 */
import { expect, test } from 'vitest';
import { POOL_VALIDATION } from '../../../executor/src/pool/messages/table.ts';
import { encodePoolMessage } from '../../../executor/src/pool/messages/wire.ts';
import { runDecodeFuzz } from '../../reliability/decode-fuzz.ts';

test("10 000 hostile texts through the pool's decode: each a fault with a known code or a message that round-trips", () => {
  const report = runDecodeFuzz({
    messages: 10_000,
    seed: 29,
    maxDepth: 1000,
    table: { decode: POOL_VALIDATION.decode, encode: encodePoolMessage },
  });
  expect(report.failure).toBeUndefined();
  expect(report.messages).toBe(10_000);
  // The pool's own types, which the protocol refuses, are messages here (unknownType's names).
  expect(report.families.unknownType?.message).toBeGreaterThan(0);
  expect(report.families.truncated?.message).toBe(0);
}, 120_000);
