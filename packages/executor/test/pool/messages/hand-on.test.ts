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
import { SNAPSHOT_BYTES_LIMIT, START_KEY_LIMIT } from '../../../src/sandbox/setup/snapshot-limit.ts';
import { crc32, engine, sha256, shuffled, startKey, testHotCheck } from './report-generators.ts';

const handOn = shuffled(
  fc.record({
    type: fc.constant('handOn'),
    key: startKey,
    digest: sha256,
    check: crc32,
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

  testHotCheck(handOn, checkHandOn);

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

  test('its key and its CRC-32 at and past their rules decode exactly as the schema says', () => {
    const sample = fc.sample(handOn, { numRuns: 1, seed: 7 })[0] as PoolMessageOf<'handOn'>;
    const near: readonly (readonly [string, unknown])[] = [
      ...['k', 'k'.repeat(START_KEY_LIMIT), 'k'.repeat(START_KEY_LIMIT + 1), '', 1, null].map(
        (value) => ['key', value] as const,
      ),
      ...[0, 0xffffffff, 2 ** 32, -1, 1.5, '1', null].map((value) => ['check', value] as const),
    ];
    let refused = 0;
    for (const [field, value] of near) {
      const message = { ...sample, [field]: value };
      const reference = POOL_VALIDATION.validate(message);
      const checked = checkHandOn(message);
      if (reference.ok)
        expectSameDecoded({ ok: true, message: checked as PoolMessageOf<'handOn'> }, reference);
      else {
        refused++;
        expect(checked).toBeUndefined();
      }
    }
    expect(refused).toBe(9);
  });
});
