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

/** What a resume needs beside the journal. */
export interface DurableState {
  readonly seed: readonly [number, number, number, number];
  readonly startedAt: number;
  /** The delays the program asked for, in the order it asked. */
  readonly timers: readonly TimerEntry[];
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

/** One observed settlement of the journal: a call's (by sequence) or a timer's (by index). */
export type Observed =
  | { readonly kind: 'call'; readonly sequence: number; readonly settled: Settlement }
  | { readonly kind: 'timer'; readonly index: number; readonly settled: TimerSettlement };

/** Every observed settlement, calls' and timers', in the order the isolate observed them. */
export function settlementOrder(
  journal: readonly JournalEntry[],
  timers: readonly TimerEntry[] = [],
): Observed[] {
  const observed: Observed[] = [];
  journal.forEach((entry, index) => {
    if (entry.settled !== undefined)
      observed.push({ kind: 'call', sequence: index + 1, settled: entry.settled });
  });
  timers.forEach((entry, index) => {
    if (entry.settled !== undefined) observed.push({ kind: 'timer', index, settled: entry.settled });
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
  const orders = settlementOrder(entries, state.timers).map((observed) => observed.settled.order);
  if (!orders.every((order, index) => order === index + 1)) return undefined;
  return { journal: entries, state };
}

function isState(value: unknown): value is DurableState {
  if (typeof value !== 'object' || value === null) return false;
  const { seed, startedAt, logCount, pause, timers } = value as Record<string, unknown>;
  return (
    Array.isArray(seed) &&
    seed.length === 4 &&
    seed.every((word) => Number.isSafeInteger(word)) &&
    Number.isSafeInteger(startedAt) &&
    Number.isSafeInteger(logCount) &&
    Array.isArray(timers) &&
    timers.every(isTimer) &&
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
