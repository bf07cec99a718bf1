/**
 * The `health` message's hot check (health.ts holds its schema): a child answers every heartbeat
 * with it, so without this check the caller's process loaded zod for the first answer of its first
 * child, before its first execution could run (docs/pool.md, "Cold start"), and decided every
 * heartbeat's answer by the schema after. Like every hot check, it returns exactly what the schema
 * returns for a value it accepts and undefined for anything else, which the schema then accepts or
 * refuses, naming why; test/pool/messages/wire.test.ts proves it against the schema.
 */
import { isId, knownKeys, REASON_ECHO_LIMIT } from '@supolka/codemode-protocol/wire';
import { isSha256 } from '../../sandbox/setup/start-check.ts';
import { checkEngineReport, isStartKey } from './hand-on-check.ts';
import type { StartReport } from './health.ts';
import type { PoolMessageOf } from './table.ts';

/**
 * The longest reason a child gives for refusing what it was handed: one sentence, or a refusal it
 * quotes, which it cuts to REASON_ECHO_LIMIT (echo adds how long it was).
 */
export const REFUSAL_LIMIT = 2 * REASON_ECHO_LIMIT;

export const HEALTH_KEYS: ReadonlySet<string> = new Set([
  'type',
  'id',
  'engine',
  'rss',
  'executions',
  'retained',
  'working',
  'start',
]);
export const START_KEYS: ReadonlySet<string> = new Set([
  'snapshot',
  'refused',
  'cacheRefused',
  'key',
  'digest',
]);
const SNAPSHOT_ORIGINS: ReadonlySet<unknown> = new Set(['handedOn', 'cached', 'built']);

/** The schema's count: a whole number a double holds exactly, not negative. */
function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

export function checkHealth(value: Record<string, unknown>): PoolMessageOf<'health'> | undefined {
  if (knownKeys(value, HEALTH_KEYS) === -1) return undefined;
  const { type, id, engine, rss, executions, retained } = value;
  if (type !== 'health' || !isId(id)) return undefined;
  if (!isCount(rss) || !isCount(executions) || !isCount(retained)) return undefined;
  const report = checkEngineReport(engine);
  if (report === undefined) return undefined;
  const health: PoolMessageOf<'health'> = { type, id, engine: report, rss, executions, retained };
  if (Object.hasOwn(value, 'working')) {
    if (!isCount(value.working)) return undefined;
    health.working = value.working;
  }
  if (Object.hasOwn(value, 'start')) {
    const start = checkStart(value.start);
    if (start === undefined) return undefined;
    health.start = start;
  }
  return health;
}

function checkStart(value: unknown): StartReport | undefined {
  if (knownKeys(value, START_KEYS) === -1) return undefined;
  const fields = value as Record<string, unknown>;
  const { snapshot } = fields;
  if (!SNAPSHOT_ORIGINS.has(snapshot)) return undefined;
  const start: StartReport = { snapshot: snapshot as StartReport['snapshot'] };
  for (const key of ['refused', 'cacheRefused'] as const) {
    if (!Object.hasOwn(fields, key)) continue;
    const reason = fields[key];
    if (typeof reason !== 'string' || reason.length > REFUSAL_LIMIT) return undefined;
    start[key] = reason;
  }
  if (Object.hasOwn(fields, 'key')) {
    if (!isStartKey(fields.key)) return undefined;
    start.key = fields.key;
  }
  if (Object.hasOwn(fields, 'digest')) {
    if (!isSha256(fields.digest)) return undefined;
    start.digest = fields.digest;
  }
  return start;
}
