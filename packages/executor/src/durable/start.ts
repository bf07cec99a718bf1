/**
 * What a durable run starts from and what it ends with, as plain data: a pool child runs a durable
 * run from a start its parent sent, and hands back the journal of a run that paused, which the
 * parent seals. The key ring never leaves the process that holds it (the caller's, or the
 * in-process sandbox's): a child runs untrusted code, and a key read out of it would let whoever
 * read it seal any journal they like. So everything the child needs crosses as this data, and
 * everything only a key can do (open a token, seal a journal, derive an idempotency key) stays
 * with the key (docs/durable.md, "Through the pool").
 */
import type { DispatchFrame } from '@supolka/codemode-protocol/wire';
import type { FetchEntry, JournalEntry, LoadEntry, TimerEntry } from './journal.ts';
import type { Seed } from './random.ts';

/** How the caller answers a pending call when it resumes. */
export type ResumeAnswer =
  | { readonly result: unknown }
  | { readonly error: string }
  /** Call the tool now, in a context carrying the idempotency key of the token and this call. */
  | { readonly perform: true };

/**
 * How a resume answers one pending call, once the caller's answer was checked: the frame the call
 * settles with (a result or an error, as a tool's envelope), or `perform`, calling the tool now.
 */
export type ReplayAnswer =
  | { readonly sequence: number; readonly frame: DispatchFrame }
  | { readonly sequence: number; readonly perform: true };

/** A resume's replay: the token's journal, delays, fetches and module loads, and an answer for each pending call. */
export interface ReplayStart {
  readonly journal: readonly JournalEntry[];
  readonly timers: readonly TimerEntry[];
  readonly fetches: readonly FetchEntry[];
  readonly loads: readonly LoadEntry[];
  readonly answers: readonly ReplayAnswer[];
}

/** Everything a durable run starts from: a new run's seed and clock, or a resume's too, with its replay. */
export interface DurableStart {
  readonly seed: Seed;
  /** The virtual clock's first reading, in ms since the epoch. */
  readonly startedAt: number;
  /** Console lines the run wrote before its last pause: a resume does not write them again. */
  readonly logCount: number;
  readonly replay?: ReplayStart | undefined;
}

/** What a paused run hands back to be sealed: its calls, delays, fetches and module loads, and the lines it wrote since it (re)started. */
export interface PausedJournal {
  readonly journal: readonly JournalEntry[];
  readonly timers: readonly TimerEntry[];
  readonly fetches: readonly FetchEntry[];
  readonly loads: readonly LoadEntry[];
  readonly written: number;
}

/** The token's part in a resume that only its key can play: its id, and each performed call's idempotency key. */
export interface ResumeKeys {
  readonly tokenId: string;
  idempotencyKey(sequence: number): string;
}
