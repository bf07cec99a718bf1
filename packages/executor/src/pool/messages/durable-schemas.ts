/**
 * The durable fields the pool adds to two of the protocol's messages, with their schemas: the
 * start a child runs a durable run from (`execute.durable`: the seed, the clock and, for a resume,
 * the journal with the answers to its pending calls), and the journal of a run that paused
 * (`result.journal`), which the parent seals. Neither is the protocol's: a client never sends a
 * journal (only a token, which the parent opens), and a server never hears one. A durable run's
 * tool calls cross as the protocol's own `dispatch` and `dispatchReply`, with their version 3
 * fields (`durable`, `paused`). Lists are checked whole by their fast check first
 * (durable-checks.ts), so a child's million bad entries cost one issue, as MessageIdListSchema's do.
 */
import { BytesSchema, DispatchFrameSchema, MESSAGE_SCHEMAS } from '@supolka/codemode-protocol';
import { z } from 'zod';
import type { DurableStart, PausedJournal } from '../../durable/start.ts';
import {
  checkFetchEntry,
  checkJournalEntry,
  checkList,
  checkLoadEntry,
  checkReplayAnswer,
  checkTimerEntry,
  SEED_WORD_MAX,
  SEED_WORD_MIN,
} from './durable-checks.ts';

const whole = z.number({ error: 'must be a number' }).int({ error: 'must be a whole number' });
const count = whole.min(0, { error: 'must not be negative' });
const sequence = whole.min(1, { error: 'must be at least 1' });
const text = z.string({ error: 'must be a string' });

/** A list whose elements `check` accepts, refused with one issue when any is not; then the schema's own output. */
function listOf<Element extends z.ZodType>(
  element: Element,
  check: (value: unknown) => unknown,
  error: string,
) {
  return z
    .custom<unknown[]>((value) => checkList(value, check) !== undefined, { error })
    .pipe(z.array(element));
}

const SettlementSchema = z.strictObject({ order: sequence, time: whole, frame: DispatchFrameSchema });

export const JournalEntrySchema = z.strictObject({
  provider: text,
  tool: text,
  args: text,
  settled: SettlementSchema.optional(),
  unknown: z.literal(true, { error: 'must be true' }).optional(),
});

export const TimerEntrySchema = z.strictObject({
  ms: z.number({ error: 'must be a number' }),
  settled: z.strictObject({ order: sequence, time: whole, count }).optional(),
});

export const FetchEntrySchema = z.strictObject({
  request: text,
  settled: z
    .strictObject({ order: sequence, time: whole, frame: text, body: BytesSchema.optional() })
    .optional(),
});

export const LoadEntrySchema = z.strictObject({
  settled: z.strictObject({ order: sequence, time: whole }).optional(),
});

export const ReplayAnswerSchema = z.union(
  [
    z.strictObject({ sequence, frame: DispatchFrameSchema }),
    z.strictObject({ sequence, perform: z.literal(true) }),
  ],
  { error: 'must be { sequence, frame } or { sequence, perform: true }' },
);

const journal = listOf(JournalEntrySchema, checkJournalEntry, 'must be a list of journal entries');
const timers = listOf(TimerEntrySchema, checkTimerEntry, 'must be a list of timer entries');
const fetches = listOf(FetchEntrySchema, checkFetchEntry, 'must be a list of fetch entries');
const loads = listOf(LoadEntrySchema, checkLoadEntry, 'must be a list of module loads');

export const DurableStartSchema = z.strictObject({
  seed: z.tuple([
    whole.min(SEED_WORD_MIN).max(SEED_WORD_MAX),
    whole.min(SEED_WORD_MIN).max(SEED_WORD_MAX),
    whole.min(SEED_WORD_MIN).max(SEED_WORD_MAX),
    whole.min(SEED_WORD_MIN).max(SEED_WORD_MAX),
  ]),
  startedAt: whole,
  logCount: count,
  replay: z
    .strictObject({
      journal,
      timers,
      fetches,
      loads,
      answers: listOf(ReplayAnswerSchema, checkReplayAnswer, 'must be a list of answers'),
    })
    .optional(),
});

export const PausedJournalSchema = z.strictObject({ journal, timers, fetches, loads, written: count });

/**
 * The two large fields typed as the durable module's own shapes (durable/start.ts), which the
 * sandbox and the parent read them as: the schemas check exactly those shapes (their fast checks
 * build them, and test/pool/messages/ proves each equal to its schema), and zod's inferred types
 * differ only in writing lists mutable and optional keys as `| undefined`.
 */
const DurableStartField = DurableStartSchema as unknown as z.ZodType<DurableStart>;
const PausedJournalField = PausedJournalSchema as unknown as z.ZodType<PausedJournal>;

/** The two protocol messages as the pool's table holds them: each with its durable field. */
export const DURABLE_MESSAGE_SCHEMAS = {
  execute: MESSAGE_SCHEMAS.execute.extend({ durable: DurableStartField.optional() }),
  result: MESSAGE_SCHEMAS.result.extend({ journal: PausedJournalField.optional() }),
};
