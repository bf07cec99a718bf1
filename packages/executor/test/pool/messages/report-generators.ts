/**
 * Generators for the proofs of the pool's hot checks of messages that carry an engine report
 * (handOn, hand-on.test.ts; health, health.test.ts): the report, SHA-256 digests, and a valid
 * message changed once as a hostile peer would, which the generic proof's JSON Schema generators
 * cannot make (bytes, patterns, behaviour names); and the proof itself (testHotCheck).
 */
import { parseForDispatch, stringifyForDispatch } from '@supolka/codemode-protocol';
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { expectSameDecoded } from '../../../../protocol/src/testing/hot-check-properties.ts';
import { REFUSAL_LIMIT } from '../../../src/pool/messages/health-check.ts';
import { POOL_VALIDATION, type PoolMessage } from '../../../src/pool/messages/table.ts';
import { START_KEY_LIMIT } from '../../../src/sandbox/setup/snapshot-limit.ts';

/** `record` with its keys in an order fast-check shuffles: a check must not depend on it. */
export const shuffled = <Value extends Record<string, unknown>>(record: fc.Arbitrary<Value>) =>
  record.chain((value) => {
    const keys = Object.keys(value);
    return fc
      .shuffledSubarray(keys, { minLength: keys.length, maxLength: keys.length })
      .map((order) => Object.fromEntries(order.map((key) => [key, value[key]])) as Value);
  });

export const sha256 = fc.stringMatching(/^[0-9a-f]{64}$/);
/** A start's key: any text up to START_KEY_LIMIT (runtimeSnapshotKey writes JSON), its bounds among them. */
export const startKey = fc.oneof(
  fc.string({ minLength: 1, maxLength: 80 }),
  fc.constantFrom('k', 'k'.repeat(START_KEY_LIMIT)),
);
/** A CRC-32: a whole number from 0 to 2³² − 1, its bounds among them. */
export const crc32 = fc.oneof(fc.nat({ max: 0xffffffff }), fc.constantFrom(0, 0xffffffff));
const behaviour = shuffled(
  fc.record({ present: fc.boolean(), reason: fc.string() }, { requiredKeys: ['present'] }),
);
export const engine = shuffled(
  fc.record({
    isolatedVm: fc.string({ maxLength: 12 }),
    node: fc.string({ maxLength: 12 }),
    behaviours: fc.dictionary(fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,15}$/), behaviour, { maxKeys: 64 }),
    fallbacks: fc.array(fc.string({ maxLength: 20 }), { maxLength: 64 }),
  }),
);
/** What a hostile peer puts where a field belongs, near values of each rule among them. */
export const hostile = fc.oneof(
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
    // health's counts and start (health.test.ts)
    1.5,
    2 ** 53,
    'handedOn',
    'built ',
    { snapshot: 'cached' },
    { snapshot: 'lost' },
    'r'.repeat(REFUSAL_LIMIT),
    'r'.repeat(REFUSAL_LIMIT + 1),
    // a start's key and check (hand-on.test.ts)
    'k'.repeat(START_KEY_LIMIT + 1),
    2 ** 32,
    0xffffffff + 0.5,
  ),
  fc.string({ maxLength: 8 }),
  fc.uint8Array({ maxLength: 4 }),
);
export const hostileKey = fc.constantFrom(
  '__proto__',
  'constructor',
  'toString',
  'type',
  'key',
  'check',
  'engine',
  'present',
  'reason',
  'fallbacks',
  'start',
  'snapshot',
  'refused',
  'working',
  'rss',
  'extra',
  '1',
  '-',
);

type Holder = Record<string, unknown> | unknown[];

/**
 * The message's objects and lists, itself first: for handOn its engine report, its behaviours, each
 * behaviour and its fallbacks; for health those and its start. Bytes are values, not holders.
 */
function holders(message: Record<string, unknown>): Holder[] {
  const found: Holder[] = [];
  const visit = (value: unknown) => {
    if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value)) return;
    found.push(value as Holder);
    for (const inner of Object.values(value)) visit(inner);
  };
  visit(message);
  return found;
}

/** A valid message of `messages` changed once, the way a hostile peer would: a field replaced, removed or added. */
export const changed = (messages: fc.Arbitrary<Record<string, unknown>>) =>
  messages.chain((message) =>
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

/**
 * The proof of one such check, as the generic one makes it: every valid message of `messages` takes
 * the fast path and gets what the schema returns, and every one changed once decodes, or is refused
 * with the same sentence, exactly as the schema says.
 */
export function testHotCheck(
  messages: fc.Arbitrary<Record<string, unknown>>,
  check: (value: Record<string, unknown>) => PoolMessage | undefined,
): void {
  test('every valid message takes the fast path and gets what the schema returns', () => {
    fc.assert(
      fc.property(messages, (message) => {
        const text = stringifyForDispatch(message);
        const reference = POOL_VALIDATION.validate(parseForDispatch(text));
        expect(reference.ok).toBe(true);
        const checked = check(parseForDispatch(text) as Record<string, unknown>);
        expect(checked).toBeDefined();
        expectSameDecoded({ ok: true, message: checked as PoolMessage }, reference);
        expectSameDecoded(POOL_VALIDATION.decode(text), reference);
      }),
      { numRuns: 300 },
    );
  });

  test('a changed message decodes, or is refused with the same sentence, exactly as the schema says', () => {
    let refused = 0;
    fc.assert(
      fc.property(changed(messages), (message) => {
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
}
