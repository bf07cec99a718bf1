/**
 * The `handOn` message's hot check (src/pool/messages/hand-on-check.ts) against its schema
 * (hand-on.ts), as the pool's other hot checks are proven (wire.test.ts): every valid message takes
 * the fast path and gets what the schema returns, and every changed one decodes, or is refused with
 * the same sentence, exactly as the schema says. Its own generators (report-generators.ts), because
 * the message holds bytes and SHA-256 digests, which the generic proof's JSON Schema generators
 * cannot make.
 */
import { parseForDispatch, stringifyForDispatch } from '@supolka/codemode-protocol';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { expectSameDecoded } from '../../../../protocol/src/testing/hot-check-properties.ts';
import {
  BEHAVIOUR_KEYS,
  checkHandOn,
  ENGINE_REPORT_KEYS,
  HAND_ON_KEYS,
} from '../../../src/pool/messages/hand-on-check.ts';
import {
  POOL_MESSAGE_SCHEMAS,
  POOL_VALIDATION,
  type PoolMessageOf,
} from '../../../src/pool/messages/table.ts';
import { SNAPSHOT_BYTES_LIMIT } from '../../../src/sandbox/setup/snapshot-limit.ts';
import { changed, engine, sha256, shuffled } from './report-generators.ts';

const handOn = shuffled(
  fc.record({
    type: fc.constant('handOn'),
    key: sha256,
    digest: sha256,
    snapshot: fc.uint8Array({ maxLength: 64 }),
    engine,
  }),
);

describe("the handOn message's hot check", () => {
  test('knows exactly the fields of its schema', () => {
    const schema = POOL_MESSAGE_SCHEMAS.handOn;
    expect([...HAND_ON_KEYS]).toEqual(Object.keys(schema.shape));
    expect([...ENGINE_REPORT_KEYS]).toEqual(Object.keys(schema.shape.engine.shape));
    expect([...BEHAVIOUR_KEYS]).toEqual(['present', 'reason']);
  });

  test('every valid message takes the fast path and gets what the schema returns', () => {
    fc.assert(
      fc.property(handOn, (message) => {
        const text = stringifyForDispatch(message);
        const reference = POOL_VALIDATION.validate(parseForDispatch(text));
        expect(reference.ok).toBe(true);
        const checked = checkHandOn(parseForDispatch(text) as Record<string, unknown>);
        expect(checked).toBeDefined();
        expectSameDecoded({ ok: true, message: checked as PoolMessageOf<'handOn'> }, reference);
        expectSameDecoded(POOL_VALIDATION.decode(text), reference);
      }),
      { numRuns: 300 },
    );
  });

  test('a changed message decodes, or is refused with the same sentence, exactly as the schema says', () => {
    let refused = 0;
    fc.assert(
      fc.property(changed(handOn), (message) => {
        const text = stringifyForDispatch(message);
        const reference = POOL_VALIDATION.validate(parseForDispatch(text));
        if (!reference.ok) refused++;
        expectSameDecoded(POOL_VALIDATION.decode(text), reference);
      }),
      { numRuns: 1000 },
    );
    // The generator must reach refusals, or the test proves nothing about them.
    expect(refused).toBeGreaterThan(300);
  });

  test('a snapshot at the limit takes the fast path, and one byte past it is refused as the schema says', () => {
    const sample = fc.sample(handOn, { numRuns: 1, seed: 7 })[0] as PoolMessageOf<'handOn'>;
    const atLimit = { ...sample, snapshot: new Uint8Array(SNAPSHOT_BYTES_LIMIT) };
    const reference = POOL_VALIDATION.validate(atLimit);
    expect(reference.ok).toBe(true);
    expectSameDecoded({ ok: true, message: checkHandOn(atLimit) as PoolMessageOf<'handOn'> }, reference);
    const past = { ...sample, snapshot: new Uint8Array(SNAPSHOT_BYTES_LIMIT + 1) };
    expect(checkHandOn(past)).toBeUndefined();
    expect(POOL_VALIDATION.validate(past)).toStrictEqual({
      ok: false,
      fault: {
        code: 'BAD_REQUEST',
        message: `Invalid handOn message: snapshot must be bytes (a Uint8Array) of at most ${SNAPSHOT_BYTES_LIMIT}.`,
      },
    });
  });
});
