/**
 * The fast halves of the durable fields the pool adds to two of the protocol's messages
 * (durable-schemas.ts): the start a durable run is sent with (`execute.durable`) and the journal of
 * a run that paused (`result.journal`). Each check returns exactly what its schema returns for a
 * value it accepts and undefined for anything else, which the schema then decides, as the
 * protocol's hot checks do (hot-messages.ts there); so a journal, which may hold thousands of
 * entries, is checked in one pass. test/pool/messages/ proves each against its schema.
 */
import { type DispatchFrame, knownKeys } from '@supolka/codemode-protocol/wire';
import type {
  FetchEntry,
  FetchSettlement,
  JournalEntry,
  LoadEntry,
  Settlement,
  TimerEntry,
  TimerSettlement,
} from '../../durable/journal.ts';
import type { DurableStart, PausedJournal, ReplayAnswer, ReplayStart } from '../../durable/start.ts';

type Plain = Record<string, unknown>;

export const SETTLEMENT_KEYS: ReadonlySet<string> = new Set(['order', 'time', 'frame']);
export const JOURNAL_ENTRY_KEYS: ReadonlySet<string> = new Set([
  'provider',
  'tool',
  'args',
  'settled',
  'unknown',
]);
export const TIMER_SETTLEMENT_KEYS: ReadonlySet<string> = new Set(['order', 'time', 'count']);
export const TIMER_ENTRY_KEYS: ReadonlySet<string> = new Set(['ms', 'settled']);
export const FETCH_SETTLEMENT_KEYS: ReadonlySet<string> = new Set(['order', 'time', 'frame', 'body']);
export const FETCH_ENTRY_KEYS: ReadonlySet<string> = new Set(['request', 'settled']);
export const LOAD_SETTLEMENT_KEYS: ReadonlySet<string> = new Set(['order', 'time']);
export const LOAD_ENTRY_KEYS: ReadonlySet<string> = new Set(['settled']);
export const FRAME_ANSWER_KEYS: ReadonlySet<string> = new Set(['sequence', 'frame']);
export const PERFORM_ANSWER_KEYS: ReadonlySet<string> = new Set(['sequence', 'perform']);
export const REPLAY_KEYS: ReadonlySet<string> = new Set(['journal', 'timers', 'fetches', 'loads', 'answers']);
export const START_KEYS: ReadonlySet<string> = new Set(['seed', 'startedAt', 'logCount', 'replay']);
export const PAUSED_KEYS: ReadonlySet<string> = new Set(['journal', 'timers', 'fetches', 'loads', 'written']);

/** The bounds of a seed's words: signed 32-bit integers, as the sandbox's xoshiro128** takes them. */
export const SEED_WORD_MIN = -(2 ** 31);
export const SEED_WORD_MAX = 2 ** 31 - 1;

const isWhole = (value: unknown): value is number => Number.isSafeInteger(value);
const isCount = (value: unknown): value is number => isWhole(value) && value >= 0;
/** A sequence (of a call, or of a settlement the isolate observed) counts from 1. */
export const isSequence = (value: unknown): value is number => isWhole(value) && value >= 1;

export function checkFrame(value: unknown): DispatchFrame | undefined {
  if (!Array.isArray(value) || value.length !== 2) return undefined;
  const [outcome, text] = value as unknown[];
  if ((outcome !== 'returned' && outcome !== 'thrown') || typeof text !== 'string') return undefined;
  return [outcome, text];
}

function checkSettlement(value: unknown): Settlement | undefined {
  if (knownKeys(value, SETTLEMENT_KEYS) !== SETTLEMENT_KEYS.size) return undefined;
  const { order, time, frame } = value as Plain;
  if (!isSequence(order) || !isWhole(time)) return undefined;
  const checked = checkFrame(frame);
  return checked === undefined ? undefined : { order, time, frame: checked };
}

export function checkJournalEntry(value: unknown): JournalEntry | undefined {
  if (knownKeys(value, JOURNAL_ENTRY_KEYS) === -1) return undefined;
  const entry = value as Plain;
  const { provider, tool, args } = entry;
  if (typeof provider !== 'string' || typeof tool !== 'string' || typeof args !== 'string') return undefined;
  let settled: Settlement | undefined;
  if (Object.hasOwn(entry, 'settled')) {
    settled = checkSettlement(entry.settled);
    if (settled === undefined) return undefined;
  }
  if (Object.hasOwn(entry, 'unknown') && entry.unknown !== true) return undefined;
  return {
    provider,
    tool,
    args,
    ...(settled !== undefined ? { settled } : {}),
    ...(Object.hasOwn(entry, 'unknown') ? { unknown: true as const } : {}),
  };
}

function checkTimerSettlement(value: unknown): TimerSettlement | undefined {
  if (knownKeys(value, TIMER_SETTLEMENT_KEYS) !== TIMER_SETTLEMENT_KEYS.size) return undefined;
  const { order, time, count } = value as Plain;
  if (!isSequence(order) || !isWhole(time) || !isCount(count)) return undefined;
  return { order, time, count };
}

export function checkTimerEntry(value: unknown): TimerEntry | undefined {
  if (knownKeys(value, TIMER_ENTRY_KEYS) === -1) return undefined;
  const entry = value as Plain;
  const { ms } = entry;
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return undefined;
  if (!Object.hasOwn(entry, 'settled')) return { ms };
  const settled = checkTimerSettlement(entry.settled);
  return settled === undefined ? undefined : { ms, settled };
}

function checkFetchSettlement(value: unknown): FetchSettlement | undefined {
  const size = knownKeys(value, FETCH_SETTLEMENT_KEYS);
  if (size === -1) return undefined;
  const settled = value as Plain;
  const { order, time, frame } = settled;
  if (!isSequence(order) || !isWhole(time) || typeof frame !== 'string') return undefined;
  if (!Object.hasOwn(settled, 'body'))
    return size === FETCH_SETTLEMENT_KEYS.size - 1 ? { order, time, frame } : undefined;
  const body = settled.body;
  return body instanceof Uint8Array ? { order, time, frame, body } : undefined;
}

export function checkFetchEntry(value: unknown): FetchEntry | undefined {
  if (knownKeys(value, FETCH_ENTRY_KEYS) === -1) return undefined;
  const entry = value as Plain;
  const { request } = entry;
  if (typeof request !== 'string') return undefined;
  if (!Object.hasOwn(entry, 'settled')) return { request };
  const settled = checkFetchSettlement(entry.settled);
  return settled === undefined ? undefined : { request, settled };
}

export function checkLoadEntry(value: unknown): LoadEntry | undefined {
  if (knownKeys(value, LOAD_ENTRY_KEYS) === -1) return undefined;
  const entry = value as Plain;
  if (!Object.hasOwn(entry, 'settled')) return {};
  if (knownKeys(entry.settled, LOAD_SETTLEMENT_KEYS) !== LOAD_SETTLEMENT_KEYS.size) return undefined;
  const { order, time } = entry.settled as Plain;
  return isSequence(order) && isWhole(time) ? { settled: { order, time } } : undefined;
}

export function checkReplayAnswer(value: unknown): ReplayAnswer | undefined {
  if (knownKeys(value, FRAME_ANSWER_KEYS) === FRAME_ANSWER_KEYS.size) {
    const { sequence, frame } = value as Plain;
    const checked = checkFrame(frame);
    return isSequence(sequence) && checked !== undefined ? { sequence, frame: checked } : undefined;
  }
  if (knownKeys(value, PERFORM_ANSWER_KEYS) === PERFORM_ANSWER_KEYS.size) {
    const { sequence, perform } = value as Plain;
    return isSequence(sequence) && perform === true ? { sequence, perform } : undefined;
  }
  return undefined;
}

/** Each element of a list by `check`, in one pass; undefined at the first it refuses. */
export function checkList<T>(value: unknown, check: (element: unknown) => T | undefined): T[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const checked: T[] = [];
  for (let index = 0; index < value.length; index++) {
    const element = check(value[index]);
    if (element === undefined) return undefined;
    checked.push(element);
  }
  return checked;
}

function checkReplay(value: unknown): ReplayStart | undefined {
  if (knownKeys(value, REPLAY_KEYS) !== REPLAY_KEYS.size) return undefined;
  const replay = value as Plain;
  const journal = checkList(replay.journal, checkJournalEntry);
  const timers = checkList(replay.timers, checkTimerEntry);
  const fetches = checkList(replay.fetches, checkFetchEntry);
  const loads = checkList(replay.loads, checkLoadEntry);
  const answers = checkList(replay.answers, checkReplayAnswer);
  if (
    journal === undefined ||
    timers === undefined ||
    fetches === undefined ||
    loads === undefined ||
    answers === undefined
  )
    return undefined;
  return { journal, timers, fetches, loads, answers };
}

function isSeedWord(value: unknown): value is number {
  return isWhole(value) && value >= SEED_WORD_MIN && value <= SEED_WORD_MAX;
}

/** `execute.durable`: the start of a durable run, or of a resume with its replay. */
export function checkDurableStart(value: unknown): DurableStart | undefined {
  const size = knownKeys(value, START_KEYS);
  if (size === -1) return undefined;
  const start = value as Plain;
  const { seed, startedAt, logCount } = start;
  if (!Array.isArray(seed) || seed.length !== 4 || !seed.every(isSeedWord)) return undefined;
  if (!isWhole(startedAt) || !isCount(logCount)) return undefined;
  const words = seed as [number, number, number, number];
  const checked = { seed: [words[0], words[1], words[2], words[3]] as const, startedAt, logCount };
  if (!Object.hasOwn(start, 'replay')) return size === START_KEYS.size - 1 ? checked : undefined;
  const replay = checkReplay(start.replay);
  return replay === undefined ? undefined : { ...checked, replay };
}

/** `result.journal`: the journal of a run that paused, for the parent to seal. */
export function checkPausedJournal(value: unknown): PausedJournal | undefined {
  if (knownKeys(value, PAUSED_KEYS) !== PAUSED_KEYS.size) return undefined;
  const paused = value as Plain;
  const journal = checkList(paused.journal, checkJournalEntry);
  const timers = checkList(paused.timers, checkTimerEntry);
  const fetches = checkList(paused.fetches, checkFetchEntry);
  const loads = checkList(paused.loads, checkLoadEntry);
  if (
    journal === undefined ||
    timers === undefined ||
    fetches === undefined ||
    loads === undefined ||
    !isCount(paused.written)
  )
    return undefined;
  return { journal, timers, fetches, loads, written: paused.written };
}

/**
 * A protocol message's check with one more optional field: without the field, the protocol's check
 * as it is; with it, the protocol's check of the rest and `checkField` of the field, which the
 * schema writes last. A value of another prototype, or a field whose check refuses it (undefined
 * included), is the schema's to decide.
 */
export function withField<Message extends object, Field>(
  check: (value: Plain) => Message | undefined,
  key: string,
  checkField: (value: unknown) => Field | undefined,
): (value: Plain) => (Message & Record<string, Field>) | undefined {
  return (value) => {
    if (!Object.hasOwn(value, key)) return check(value) as (Message & Record<string, Field>) | undefined;
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) return undefined;
    const { [key]: field, ...rest } = value;
    const checked = check(rest);
    if (checked === undefined) return undefined;
    const fieldChecked = checkField(field);
    return fieldChecked === undefined ? undefined : { ...checked, [key]: fieldChecked };
  };
}
