/**
 * The zod-free half of the pool's message table (table.ts): the encode with its bounds, and the
 * decode up to the hot checks, with which a child decides everything it hears at rest without
 * loading a schema (docs/pool.md, "Memory").
 *
 * The hot checks are the protocol's for the messages the pool shares with it (an execution, its
 * tool calls and result, cancel, closeHandles), with the check of the durable field two of them
 * carry here (durable-checks.ts), and the pool's own for the two private messages
 * that cross all the time: `heartbeat`, which a child hears every heartbeatInterval, and `prepared`,
 * which the parent (the caller's process) hears after every execution, at about 20 µs each through
 * the schema; and `handOn`, which a child hears once, at its start, and would otherwise load zod for
 * (hand-on-check.ts). Each check returns exactly what its schema returns for a value it accepts and
 * undefined for anything else, which the schema then accepts or refuses, naming why
 * (hot-messages.ts in the protocol; test/pool/messages/ proves the pool's against its schemas).
 */
import {
  type Decoded,
  HOT_MESSAGE_CHECKS,
  type HotDecoded,
  type HotMessageChecks,
  ID_ONLY_KEYS,
  isId,
  knownKeys,
  messageWire,
} from '@supolka/codemode-protocol/wire';
import { checkDurableStart, checkPausedJournal, withField } from './durable-checks.ts';
import { checkHandOn } from './hand-on-check.ts';
import { checkHealth } from './health-check.ts';
import type { PoolMessage, PoolMessageOf } from './table.ts';

/** A pool message decoded, or the fault saying why a text is not one. */
export type DecodedPoolMessage = Decoded<PoolMessage>;
/** A hot decode's answer: a decision, or a parsed value only the schemas decide (validatePoolMessage). */
export type HotDecodedPoolMessage = HotDecoded<PoolMessage>;

export const TYPE_ONLY_KEYS: ReadonlySet<string> = new Set(['type']);

/** heartbeat: a type and a message id, nothing else. */
function checkHeartbeat(value: Record<string, unknown>): PoolMessageOf<'heartbeat'> | undefined {
  if (knownKeys(value, ID_ONLY_KEYS) !== ID_ONLY_KEYS.size) return undefined;
  const { type, id } = value;
  if (type !== 'heartbeat' || !isId(id)) return undefined;
  return { type, id };
}

/** prepared: a type, nothing else. */
function checkPrepared(value: Record<string, unknown>): PoolMessageOf<'prepared'> | undefined {
  if (knownKeys(value, TYPE_ONLY_KEYS) !== TYPE_ONLY_KEYS.size || value.type !== 'prepared') return undefined;
  return { type: 'prepared' };
}

/** The pool's hot message types' checks, by type: each the fast half of its schema in the pool's table. */
export const POOL_HOT_CHECKS = {
  dispatch: HOT_MESSAGE_CHECKS.dispatch,
  dispatchReply: HOT_MESSAGE_CHECKS.dispatchReply,
  result: withField(HOT_MESSAGE_CHECKS.result, 'journal', checkPausedJournal),
  execute: withField(HOT_MESSAGE_CHECKS.execute, 'durable', checkDurableStart),
  cancel: HOT_MESSAGE_CHECKS.cancel,
  closeHandles: HOT_MESSAGE_CHECKS.closeHandles,
  console: HOT_MESSAGE_CHECKS.console,
  heartbeat: checkHeartbeat,
  prepared: checkPrepared,
  handOn: checkHandOn,
  health: checkHealth,
} satisfies HotMessageChecks<PoolMessage>;

export const POOL_WIRE = messageWire<PoolMessage>(POOL_HOT_CHECKS);

/** A pool message's wire text, refused past PAYLOAD_LIMIT or VALUE_LIMIT values before it leaves. */
export const encodePoolMessage = POOL_WIRE.encode;

/**
 * A frame's text as its message when a hot check accepts it, a fault when the size, the values or
 * the codec refuse it, and otherwise the parsed value, unchecked, for validatePoolMessage.
 */
export const decodeHotPoolMessage = POOL_WIRE.decodeHot;
