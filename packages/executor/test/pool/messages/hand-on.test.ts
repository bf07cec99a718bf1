/**
 * The `handOn` message's hot check (src/pool/messages/hand-on-check.ts) against its schema
 * (hand-on.ts), as the pool's other hot checks are proven (wire.test.ts): every valid message takes
 * the fast path and gets what the schema returns, and every changed one decodes, or is refused with
 * the same sentence, exactly as the schema says. Its own generators, because the message holds bytes
 * and SHA-256 digests, which the generic proof's JSON Schema generators cannot make.
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

/** `record` with its keys in an order fast-check shuffles: a check must not depend on it. */
const shuffled = <Value extends Record<string, unknown>>(record: fc.Arbitrary<Value>) =>
  record.chain((value) => {
    const keys = Object.keys(value);
    return fc
      .shuffledSubarray(keys, { minLength: keys.length, maxLength: keys.length })
      .map((order) => Object.fromEntries(order.map((key) => [key, value[key]])) as Value);
  });

const sha256 = fc.stringMatching(/^[0-9a-f]{64}$/);
const behaviour = shuffled(
  fc.record({ present: fc.boolean(), reason: fc.string() }, { requiredKeys: ['present'] }),
);
const engine = shuffled(
  fc.record({
    isolatedVm: fc.string({ maxLength: 12 }),
    node: fc.string({ maxLength: 12 }),
    behaviours: fc.dictionary(fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,15}$/), behaviour, { maxKeys: 64 }),
    fallbacks: fc.array(fc.string({ maxLength: 20 }), { maxLength: 64 }),
  }),
);
const handOn = shuffled(
  fc.record({
    type: fc.constant('handOn'),
    key: sha256,
    digest: sha256,
    snapshot: fc.uint8Array({ maxLength: 64 }),
    engine,
  }),
);

/** What a hostile peer puts where a field belongs, near values of each rule among them. */
const hostile = fc.oneof(
  fc.constantFrom<unknown>(
    null,
    true,
    1,
    -1,
    '',
    'x',
    [],
    {},
    'A'.repeat(64),
    'a'.repeat(63),
    'a'.repeat(65),
    `${'a'.repeat(63)}g`,
    ` ${'a'.repeat(63)}`,
    new Int8Array(2),
    new Uint16Array(1),
    new ArrayBuffer(2),
    new DataView(new ArrayBuffer(2)),
    new Uint8Array(0),
    { present: true },
    { present: 'yes' },
    { present: false, reason: 1 },
    { present: true, reason: 'r', more: 1 },
    { reason: 'r' },
    Object.fromEntries([['__proto__', { present: true }]]),
    Object.fromEntries(Array.from({ length: 65 }, (_, index) => [`b${index}`, { present: true }])),
    Array.from({ length: 65 }, () => 'fallback'),
    [1],
  ),
  fc.string({ maxLength: 8 }),
  fc.uint8Array({ maxLength: 4 }),
);
const hostileKey = fc.constantFrom(
  '__proto__',
  'constructor',
  'toString',
  'type',
  'key',
  'engine',
  'present',
  'reason',
  'fallbacks',
  'extra',
  '1',
  '-',
);

type Holder = Record<string, unknown> | unknown[];

/** The message's objects and lists: the message, its engine report, its behaviours, each behaviour, its fallbacks. */
function holders(message: Record<string, unknown>): Holder[] {
  const found: Holder[] = [message];
  const report = message.engine;
  if (typeof report === 'object' && report !== null) {
    found.push(report as Holder);
    const { behaviours, fallbacks } = report as Record<string, unknown>;
    if (Array.isArray(fallbacks)) found.push(fallbacks);
    if (typeof behaviours === 'object' && behaviours !== null) {
      found.push(behaviours as Holder);
      for (const one of Object.values(behaviours))
        if (typeof one === 'object' && one !== null) found.push(one as Holder);
    }
  }
  return found;
}

/** A valid message changed once, the way a hostile peer would: a field replaced, removed or added. */
const changed = handOn.chain((message) =>
  fc
    .record({
      where: fc.nat(),
      which: fc.nat(),
      how: fc.constantFrom('replace', 'delete', 'add'),
      key: hostileKey,
      value: hostile,
    })
    .map(({ where, which, how, key, value }) => {
      const copy = parseForDispatch(stringifyForDispatch(message)) as Record<string, unknown>;
      const found = holders(copy);
      const target = found[where % found.length] as Holder;
      const keys = Object.keys(target);
      const chosen = keys.length > 0 ? (keys[which % keys.length] as string) : key;
      if (Array.isArray(target)) {
        if (how === 'add') target.push(value);
        else if (how === 'delete') target.pop();
        else target[which % Math.max(1, target.length)] = value;
      } else if (how === 'delete') delete target[chosen];
      else if (how === 'replace') target[chosen] = value;
      else Object.assign(target, Object.fromEntries([[key, value]]));
      return copy;
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
      fc.property(changed, (message) => {
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
