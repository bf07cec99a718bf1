/**
 * A durable run's journal: every call the program made, in the order it made them, and the
 * settlement of each call the isolate observed, with the sequence it observed it under and the
 * time its clock read from then on. With the run's seed and start time (the state beside it) this
 * is everything the host gave the program, so a fresh isolate that is served it in the same order
 * computes the same run. It travels sealed in a token (token.ts): entries are JSON, and a journal
 * read back from a token is checked for this shape although the token authenticated it, since a
 * token of a newer release could carry another.
 */
import type { DispatchFrame, PendingCall } from '@supolka/codemode-protocol/wire';
import type { PauseRequest } from './pause.ts';

/** How an observed call settled, as the isolate received it. */
export interface Settlement {
  /** The sequence the isolate observed it under: 1 for the first settlement of the run. */
  readonly order: number;
  /** What the run's clock read from this settlement on. */
  readonly time: number;
  readonly frame: DispatchFrame;
}

/** One call of the program: the call with sequence n is entry n - 1. */
export interface JournalEntry {
  readonly provider: string;
  readonly tool: string;
  /** The arguments as the codec's JSON, exactly as they left the isolate. */
  readonly args: string;
  /** Absent while the call was pending when the run paused. */
  readonly settled?: Settlement;
  /**
   * The caller's function was still running when the run paused and did not answer within the
   * settle moment: whether it did its work is unknown, so a resume never performs it again.
   */
  readonly unknown?: true;
}

/** A timer's expiry as the isolate observed it: its sequence, the clock's time, and the host's expiry count. */
export interface TimerSettlement {
  readonly order: number;
  readonly time: number;
  readonly count: number;
}

/** One delay the program asked the host for (setTimeout, or an interval's next run), in the order asked. */
export interface TimerEntry {
  readonly ms: number;
  /** Absent while the delay had not expired when the run paused. */
  readonly settled?: TimerSettlement;
}

/**
 * A fetch answer as the isolate observed it: its sequence, the clock's time, the host's frame as
 * JSON text, and the response body's bytes as the host handed them to the isolate (the whole body,
 * decoded: bodies cross the boundary whole). No body when the response had none, or when the
 * program had aborted the fetch before its answer, since it never reads one then.
 */
export interface FetchSettlement {
  readonly order: number;
  readonly time: number;
  readonly frame: string;
  readonly body?: Uint8Array;
}

/** One request the program's fetch sent to the host, in the order sent. */
export interface FetchEntry {
  /** A hash of the request (fetch-journal.ts): a resume that sends another diverges. */
  readonly request: string;
  /** Absent only in a journal being built; every fetch of a paused run's journal has one. */
  readonly settled?: FetchSettlement;
}

/**
 * One module load import() asked the host for, in the order asked. Its answer is not journaled: a
 * resume loads the module again from the request's modules, which the token is bound to. Only where
 * the answer fell among the settlements is, so a resume delivers it at the same place.
 */
export interface LoadEntry {
  readonly settled?: LoadSettlement;
}

/** A module load's answer as the isolate observed it: its sequence and the clock's time. */
export interface LoadSettlement {
  readonly order: number;
  readonly time: number;
}

/** What a resume needs beside the journal. */
export interface DurableState {
  readonly seed: readonly [number, number, number, number];
  readonly startedAt: number;
  /** The delays the program asked for, in the order it asked. */
  readonly timers: readonly TimerEntry[];
  /** The requests fetch sent, in the order sent; in a token each body is a range of its bytes. */
  readonly fetches: readonly FetchEntry[];
  /** The module loads import() asked for, in the order asked. */
  readonly loads: readonly LoadEntry[];
  /** Console lines the run had written before the pause: a resume does not write them again. */
  readonly logCount: number;
  readonly pause: PauseRequest;
}

/** A call the run was waiting on when it paused, as the paused envelope lists it (the protocol's shape). */
export type { PendingCall };

/** The pending calls of a journal: every call without a settlement, by sequence. */
export function pendingCalls(journal: readonly JournalEntry[]): PendingCall[] {
  const pending: PendingCall[] = [];
  journal.forEach((entry, index) => {
    if (entry.settled === undefined) {
      pending.push({
        sequence: index + 1,
        provider: entry.provider,
        tool: entry.tool,
        args: entry.args,
        ...(entry.unknown === true ? { outcome: 'unknown' as const } : {}),
      });
    }
  });
  return pending;
}

/** One observed settlement of the journal: a call's (by sequence), a timer's or a fetch's (by index). */
export type Observed =
  | { readonly kind: 'call'; readonly sequence: number; readonly settled: Settlement }
  | { readonly kind: 'timer'; readonly index: number; readonly settled: TimerSettlement }
  | { readonly kind: 'fetch'; readonly index: number; readonly settled: FetchSettlement }
  | { readonly kind: 'load'; readonly index: number; readonly settled: LoadSettlement };

/** Every observed settlement, calls', timers' and fetches', in the order the isolate observed them. */
export function settlementOrder(
  journal: readonly JournalEntry[],
  timers: readonly TimerEntry[] = [],
  fetches: readonly FetchEntry[] = [],
  loads: readonly LoadEntry[] = [],
): Observed[] {
  const observed: Observed[] = [];
  journal.forEach((entry, index) => {
    if (entry.settled !== undefined)
      observed.push({ kind: 'call', sequence: index + 1, settled: entry.settled });
  });
  timers.forEach((entry, index) => {
    if (entry.settled !== undefined) observed.push({ kind: 'timer', index, settled: entry.settled });
  });
  fetches.forEach((entry, index) => {
    if (entry.settled !== undefined) observed.push({ kind: 'fetch', index, settled: entry.settled });
  });
  loads.forEach((entry, index) => {
    if (entry.settled !== undefined) observed.push({ kind: 'load', index, settled: entry.settled });
  });
  return observed.sort((a, b) => a.settled.order - b.settled.order);
}

/** A journal and state read back from a token, or undefined when either has another shape. */
export function readJournal(
  journal: readonly unknown[],
  state: unknown,
): { journal: JournalEntry[]; state: DurableState } | undefined {
  if (!isState(state)) return undefined;
  const entries: JournalEntry[] = [];
  for (const entry of journal) {
    if (!isEntry(entry)) return undefined;
    entries.push(entry);
  }
  // The observed orders are 1..k, each once: the isolate counts every settlement it observes.
  const orders = settlementOrder(entries, state.timers, state.fetches, state.loads).map(
    (observed) => observed.settled.order,
  );
  if (!orders.every((order, index) => order === index + 1)) return undefined;
  return { journal: entries, state };
}

function isState(value: unknown): value is DurableState {
  if (typeof value !== 'object' || value === null) return false;
  const { seed, startedAt, logCount, pause, timers, fetches, loads } = value as Record<string, unknown>;
  return (
    Array.isArray(seed) &&
    seed.length === 4 &&
    seed.every((word) => Number.isSafeInteger(word)) &&
    Number.isSafeInteger(startedAt) &&
    Number.isSafeInteger(logCount) &&
    Array.isArray(timers) &&
    timers.every(isTimer) &&
    Array.isArray(fetches) &&
    fetches.every(isFetch) &&
    Array.isArray(loads) &&
    loads.every(isLoad) &&
    typeof pause === 'object' &&
    pause !== null
  );
}

function isTimer(value: unknown): value is TimerEntry {
  if (typeof value !== 'object' || value === null) return false;
  const { ms, settled } = value as Record<string, unknown>;
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return false;
  if (settled === undefined) return true;
  if (typeof settled !== 'object' || settled === null) return false;
  const { order, time, count } = settled as Record<string, unknown>;
  return Number.isSafeInteger(order) && Number.isSafeInteger(time) && Number.isSafeInteger(count);
}

function isLoad(value: unknown): value is LoadEntry {
  if (typeof value !== 'object' || value === null) return false;
  const { settled } = value as Record<string, unknown>;
  if (settled === undefined) return true;
  if (typeof settled !== 'object' || settled === null) return false;
  const { order, time } = settled as Record<string, unknown>;
  return Number.isSafeInteger(order) && Number.isSafeInteger(time);
}

function isFetch(value: unknown): value is FetchEntry {
  if (typeof value !== 'object' || value === null) return false;
  const { request, settled } = value as Record<string, unknown>;
  if (typeof request !== 'string') return false;
  if (settled === undefined) return true;
  if (typeof settled !== 'object' || settled === null) return false;
  const { order, time, frame, body } = settled as Record<string, unknown>;
  return (
    Number.isSafeInteger(order) &&
    Number.isSafeInteger(time) &&
    typeof frame === 'string' &&
    (body === undefined || body instanceof Uint8Array)
  );
}

function isEntry(value: unknown): value is JournalEntry {
  if (typeof value !== 'object' || value === null) return false;
  const { provider, tool, args, settled, unknown } = value as Record<string, unknown>;
  if (typeof provider !== 'string' || typeof tool !== 'string' || typeof args !== 'string') return false;
  if (unknown !== undefined && unknown !== true) return false;
  if (settled === undefined) return true;
  if (typeof settled !== 'object' || settled === null) return false;
  const { order, time, frame } = settled as Record<string, unknown>;
  return (
    Number.isSafeInteger(order) &&
    Number.isSafeInteger(time) &&
    Array.isArray(frame) &&
    frame.length === 2 &&
    (frame[0] === 'returned' || frame[0] === 'thrown') &&
    typeof frame[1] === 'string'
  );
}
