/**
 * The shapes of a durable run on the wire (version 3; docs/durable.md, "Over the wire"): the paused
 * envelope's `paused` (why, the pending calls, the token), the answers a resume carries, the durable
 * context a tool call of such a run is asked with, and the pause a client's tool answers with. A
 * client that agreed on an older version never meets one: a server refuses it durability.
 */
import { z } from 'zod';
import { DURABLE_TOKEN_LIMIT, ID_LIMIT, IN_FLIGHT_CALL_LIMIT, PAUSE_REASON_LIMIT } from '../limits.ts';

const text = z.string({ error: 'must be a string' });

/** A call's number in its durable run: 1 for the first call the program made. */
export const SequenceSchema = z
  .number({ error: 'must be a number' })
  .int({ error: 'must be a whole number' })
  .min(1, { error: 'must be at least 1' });

/** A durable token as it crosses: a string of at most DURABLE_TOKEN_LIMIT characters. */
export const TokenSchema = text.max(DURABLE_TOKEN_LIMIT, {
  error: `must be at most ${DURABLE_TOKEN_LIMIT} characters`,
});

const idText = text.max(ID_LIMIT, { error: `must be at most ${ID_LIMIT} characters` });

/** A call the run was waiting on when it paused: a resume answers each, by sequence. */
export const PendingCallSchema = z.strictObject({
  sequence: SequenceSchema,
  provider: text,
  tool: text,
  /** The arguments as the codec's JSON text. */
  args: text,
  /** The tool was still running at the pause: whether it did its work is unknown, so a resume never performs it. */
  outcome: z.literal('unknown', { error: "must be 'unknown'" }).optional(),
});
export type PendingCall = z.infer<typeof PendingCallSchema>;

/** The envelope's `paused`: a durable run that paused, and what resumes it. */
export const PausedRunSchema = z.strictObject({
  reason: text
    .max(PAUSE_REASON_LIMIT, { error: `must be at most ${PAUSE_REASON_LIMIT} characters` })
    .optional(),
  /** What the tool that paused gave, as JSON. */
  data: z.unknown().optional(),
  pending: z
    .array(PendingCallSchema, { error: 'must be a list of pending calls' })
    .max(IN_FLIGHT_CALL_LIMIT, { error: `must hold at most ${IN_FLIGHT_CALL_LIMIT} calls` }),
  token: TokenSchema,
  tokenId: idText,
  /** When the token stops resuming, in ms since the epoch. */
  expiresAt: z.number({ error: 'must be a number' }).int({ error: 'must be a whole number' }),
});
export type PausedRun = z.infer<typeof PausedRunSchema>;

/** How a resume answers one pending call: its result, its failure, or "call the tool now". */
export const ResumeAnswerSchema = z.union(
  [
    z.strictObject({ sequence: SequenceSchema, result: z.unknown() }),
    z.strictObject({ sequence: SequenceSchema, error: text }),
    z.strictObject({ sequence: SequenceSchema, perform: z.literal(true) }),
  ],
  { error: 'must be { sequence, result }, { sequence, error } or { sequence, perform: true }' },
);
export type ResumeAnswerMessage = z.infer<typeof ResumeAnswerSchema>;

/** A resume's answers, one per pending call. */
export const ResumeAnswersSchema = z
  .array(ResumeAnswerSchema, { error: 'must be a list of answers' })
  .max(IN_FLIGHT_CALL_LIMIT, { error: `must hold at most ${IN_FLIGHT_CALL_LIMIT} answers` });

/**
 * The durable context a tool call of a durable run is asked with: its sequence, and on a call a
 * resume performs, the idempotency key of the token and the call (the same on every retry of the
 * resume) and the token's id.
 */
export const DurableCallSchema = z.strictObject({
  sequence: SequenceSchema,
  idempotencyKey: idText.optional(),
  tokenId: idText.optional(),
});
export type DurableCallMessage = z.infer<typeof DurableCallSchema>;

/** A tool's answer that pauses its durable run: why, and JSON for whoever resumes it. */
export const PauseSchema = z.strictObject({
  reason: text
    .max(PAUSE_REASON_LIMIT, { error: `must be at most ${PAUSE_REASON_LIMIT} characters` })
    .optional(),
  data: z.unknown().optional(),
});
export type PauseMessage = z.infer<typeof PauseSchema>;
