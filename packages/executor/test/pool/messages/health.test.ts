/**
 * The `health` message's hot check (src/pool/messages/health-check.ts) against its schema
 * (health.ts), as handOn's is proven (hand-on.test.ts), with the same generators: every valid
 * message takes the fast path and gets what the schema returns, and every changed one decodes, or is
 * refused with the same sentence, exactly as the schema says. The caller's process decides every
 * heartbeat's answer with it, and so holds no zod on a run's common path (docs/pool.md, "Cold start").
 */
import { parseForDispatch, stringifyForDispatch } from '@supolka/codemode-protocol';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { expectSameDecoded } from '../../../../protocol/src/testing/hot-check-properties.ts';
import { StartSchema } from '../../../src/pool/messages/health.ts';
import {
  checkHealth,
  HEALTH_KEYS,
  REFUSAL_LIMIT,
  START_KEYS,
} from '../../../src/pool/messages/health-check.ts';
import { POOL_MESSAGE_SCHEMAS, POOL_VALIDATION } from '../../../src/pool/messages/table.ts';
import { START_KEY_LIMIT } from '../../../src/sandbox/setup/snapshot-limit.ts';
import { engine, sha256, shuffled, startKey, testHotCheck } from './report-generators.ts';

const count = fc.oneof(fc.nat(), fc.constantFrom(0, Number.MAX_SAFE_INTEGER));
const reason = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.constantFrom('r'.repeat(REFUSAL_LIMIT - 1), 'r'.repeat(REFUSAL_LIMIT)),
);
const start = shuffled(
  fc.record(
    {
      snapshot: fc.constantFrom('handedOn', 'cached', 'built'),
      refused: reason,
      cacheRefused: reason,
      key: startKey,
      digest: sha256,
    },
    { requiredKeys: ['snapshot'] },
  ),
);
const health = shuffled(
  fc.record(
    {
      type: fc.constant('health'),
      id: fc.string({ minLength: 1, maxLength: 12 }),
      engine,
      rss: count,
      executions: count,
      retained: count,
      working: count,
      start,
    },
    { requiredKeys: ['type', 'id', 'engine', 'rss', 'executions', 'retained'] },
  ),
);

describe("the health message's hot check", () => {
  test('knows exactly the fields of its schema', () => {
    expect([...HEALTH_KEYS]).toEqual(Object.keys(POOL_MESSAGE_SCHEMAS.health.shape));
    expect([...START_KEYS]).toEqual(Object.keys(StartSchema.shape));
  });

  testHotCheck(health, checkHealth);

  // The changes above are spread over every field and every hostile value; these are the near
  // values of each of health's own rules, each tried in each field it governs.
  test('each field at and past its rule decodes exactly as the schema says', () => {
    const sample = fc.sample(health, { numRuns: 1, seed: 11 })[0] as Record<string, unknown>;
    const near: readonly (readonly [readonly string[], unknown])[] = [
      ...['rss', 'executions', 'retained', 'working'].flatMap((field) =>
        [0, 1, Number.MAX_SAFE_INTEGER, -1, 1.5, 2 ** 53, '1', null].map(
          (value) => [[field], value] as const,
        ),
      ),
      ...['refused', 'cacheRefused'].flatMap((field) =>
        ['', 'r'.repeat(REFUSAL_LIMIT), 'r'.repeat(REFUSAL_LIMIT + 1), 1].map(
          (value) => [['start', field], value] as const,
        ),
      ),
      ...['a'.repeat(64), 'A'.repeat(64), 'a'.repeat(63), `${'a'.repeat(63)}g`, ''].map(
        (value) => [['start', 'digest'], value] as const,
      ),
      ...['k', 'k'.repeat(START_KEY_LIMIT), 'k'.repeat(START_KEY_LIMIT + 1), '', 1].map(
        (value) => [['start', 'key'], value] as const,
      ),
      ...['handedOn', 'cached', 'built', 'lost', ''].map((value) => [['start', 'snapshot'], value] as const),
      [['start'], { snapshot: 'built' }],
      [['start'], {}],
      [['id'], ''],
      [['type'], 'heartbeat'],
    ];
    let refused = 0;
    for (const [path, value] of near) {
      const message = parseForDispatch(stringifyForDispatch(sample)) as Record<string, unknown>;
      let holder = message;
      for (const key of path.slice(0, -1)) {
        holder[key] ??= { snapshot: 'built' };
        holder = holder[key] as Record<string, unknown>;
      }
      holder[path.at(-1) as string] = value;
      const text = stringifyForDispatch(message);
      const reference = POOL_VALIDATION.validate(parseForDispatch(text));
      if (!reference.ok) refused++;
      expectSameDecoded(POOL_VALIDATION.decode(text), reference);
    }
    expect(refused).toBeGreaterThan(20);
  });
});
