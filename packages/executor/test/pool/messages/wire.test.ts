/**
 * The pool table's hot checks (src/pool/messages/wire.ts) against its zod schemas: the protocol's
 * own checks for the messages the two tables share, and the pool's checks of `heartbeat` and
 * `prepared` (and `handOn` and `health`, in hand-on.test.ts and health.test.ts), proven over messages generated from their schemas, valid and hostile, exactly as the
 * protocol proves its own (packages/protocol/src/testing/hot-check-properties.ts).
 */
import { HOT_MESSAGE_CHECKS, ID_ONLY_KEYS } from '@supolka/codemode-protocol/wire';
import { describe, expect, test } from 'vitest';
import { testHotChecks } from '../../../../protocol/src/testing/hot-check-properties.ts';
import { POOL_MESSAGE_SCHEMAS, POOL_VALIDATION } from '../../../src/pool/messages/table.ts';
import { POOL_HOT_CHECKS, TYPE_ONLY_KEYS } from '../../../src/pool/messages/wire.ts';

/** The protocol's messages that carry a durable run's field in the pool's table (durable-schemas.ts). */
const DURABLE_TYPES = ['result', 'execute'];

/** The pool's hot types that are its own: the protocol's table proves the rest. */
const POOL_ONLY_HOT_TYPES = Object.keys(POOL_HOT_CHECKS).filter(
  (type) => !Object.hasOwn(HOT_MESSAGE_CHECKS, type),
);

describe("the pool's hot messages decode as their schemas say", () => {
  test("a message the protocol shares is checked by the protocol's own check, or by it with the durable field", () => {
    for (const [type, check] of Object.entries(HOT_MESSAGE_CHECKS)) {
      if (DURABLE_TYPES.includes(type) || !Object.hasOwn(POOL_MESSAGE_SCHEMAS, type)) continue;
      expect(POOL_HOT_CHECKS[type as keyof typeof POOL_HOT_CHECKS]).toBe(check);
    }
    // The protocol's one hot message the pool does not share: a connection's opening, which only a
    // client and a server exchange.
    expect(
      Object.keys(HOT_MESSAGE_CHECKS).filter((type) => !Object.hasOwn(POOL_MESSAGE_SCHEMAS, type)),
    ).toStrictEqual(['hello']);
    expect(POOL_ONLY_HOT_TYPES).toStrictEqual(['heartbeat', 'prepared', 'handOn', 'health']);
  });

  test('each check of its own knows exactly the fields of its schema', () => {
    // A field added to a schema is refused by the check's key test (the schema's path then serves
    // it, correctly but slowly): this names the check that needs to learn it.
    expect([...TYPE_ONLY_KEYS]).toEqual(Object.keys(POOL_MESSAGE_SCHEMAS.prepared.shape));
    expect([...ID_ONLY_KEYS]).toEqual(Object.keys(POOL_MESSAGE_SCHEMAS.heartbeat.shape));
  });

  // handOn holds bytes and digests, and health digests and behaviour names, which the proof's
  // generators (JSON Schema) cannot make: they are proven the same way, with generators of their
  // own, in hand-on.test.ts and health.test.ts.
  testHotChecks({ schemas: POOL_MESSAGE_SCHEMAS, checks: POOL_HOT_CHECKS, validation: POOL_VALIDATION }, [
    ...POOL_ONLY_HOT_TYPES.filter((type) => type !== 'handOn' && type !== 'health'),
    ...DURABLE_TYPES,
  ]);
});
