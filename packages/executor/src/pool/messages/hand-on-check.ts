/**
 * The `handOn` message's hot check (hand-on.ts holds its schema): a child decides the one message
 * it awaits at its start without loading zod, which it would otherwise hold for the rest of its
 * life (docs/pool.md, "Memory"). Like every hot check, it returns exactly what the schema returns
 * for a value it accepts and undefined for anything else, which the schema then accepts or refuses,
 * naming why; test/pool/messages/hand-on.test.ts proves it against the schema.
 */
import { knownKeys } from '@supolka/codemode-protocol/wire';
import { SNAPSHOT_BYTES_LIMIT, START_KEY_LIMIT } from '../../sandbox/setup/snapshot-limit.ts';
import { isSha256 } from '../../sandbox/setup/start-check.ts';
import type { EngineReportMessage } from './health.ts';
import type { PoolMessageOf } from './table.ts';

export const HAND_ON_KEYS: ReadonlySet<string> = new Set([
  'type',
  'key',
  'digest',
  'check',
  'snapshot',
  'engine',
]);
export const ENGINE_REPORT_KEYS: ReadonlySet<string> = new Set([
  'isolatedVm',
  'node',
  'behaviours',
  'fallbacks',
]);
export const BEHAVIOUR_KEYS: ReadonlySet<string> = new Set(['present', 'reason']);

/** The bound EngineReportSchema puts on its behaviours and on its fallbacks. */
const REPORT_LIST_LIMIT = 64;

/** A behaviour's name the check takes; any other (`__proto__` among them) is left to the schema. */
const BEHAVIOUR_NAME = /^[A-Za-z][A-Za-z0-9]*$/;

/** A start's key as it travels: text of at most START_KEY_LIMIT characters (runtimeSnapshotKey). */
export function isStartKey(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= START_KEY_LIMIT;
}

/** A CRC-32 as the check is written: a whole number from 0 to 2³² − 1. */
export function isCrc32(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 0xffffffff;
}

export function checkHandOn(value: Record<string, unknown>): PoolMessageOf<'handOn'> | undefined {
  if (knownKeys(value, HAND_ON_KEYS) !== HAND_ON_KEYS.size) return undefined;
  const { type, key, digest, check, snapshot, engine } = value;
  if (type !== 'handOn' || !isStartKey(key) || !isSha256(digest) || !isCrc32(check)) return undefined;
  if (!(snapshot instanceof Uint8Array) || snapshot.byteLength > SNAPSHOT_BYTES_LIMIT) return undefined;
  const report = checkEngineReport(engine);
  if (report === undefined) return undefined;
  return { type, key, digest, check, snapshot, engine: report };
}

/** EngineReportSchema's fast half: a new report of the same fields, or undefined. */
export function checkEngineReport(value: unknown): EngineReportMessage | undefined {
  if (knownKeys(value, ENGINE_REPORT_KEYS) !== ENGINE_REPORT_KEYS.size) return undefined;
  const { isolatedVm, node, behaviours, fallbacks } = value as Record<string, unknown>;
  if (typeof isolatedVm !== 'string' || typeof node !== 'string') return undefined;
  if (!Array.isArray(fallbacks) || fallbacks.length > REPORT_LIST_LIMIT) return undefined;
  const sentences: string[] = [];
  for (const sentence of fallbacks) {
    if (typeof sentence !== 'string') return undefined;
    sentences.push(sentence);
  }
  const checked = checkBehaviours(behaviours);
  if (checked === undefined) return undefined;
  return { isolatedVm, node, behaviours: checked, fallbacks: sentences };
}

function checkBehaviours(value: unknown): EngineReportMessage['behaviours'] | undefined {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) {
    return undefined;
  }
  const names = Object.keys(value);
  if (names.length > REPORT_LIST_LIMIT) return undefined;
  const checked: Record<string, EngineReportMessage['behaviours'][string]> = {};
  for (const name of names) {
    if (!BEHAVIOUR_NAME.test(name)) return undefined;
    const behaviour = (value as Record<string, unknown>)[name];
    const count = knownKeys(behaviour, BEHAVIOUR_KEYS);
    if (count < 1) return undefined;
    const { present, reason } = behaviour as Record<string, unknown>;
    if (typeof present !== 'boolean') return undefined;
    if (count === 2 && typeof reason !== 'string') return undefined;
    checked[name] = count === 2 ? { present, reason: reason as string } : { present };
  }
  return checked;
}
