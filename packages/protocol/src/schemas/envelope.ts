/** The result envelope: what every execution comes back as (docs/protocol.md, "The result envelope"). */
import { z } from 'zod';
import {
  ENVELOPE_CODES,
  type EnvelopeCode,
  ERROR_AT_LIMIT,
  ERROR_JSON_LIMIT,
  ERROR_KINDS,
  ERROR_NAME_LIMIT,
  ERROR_STACK_LIMIT,
  ERROR_TOOL_LIMIT,
  type ErrorKind,
  FAULT_CODES,
  HINT_LIMIT,
  NOTE_LIMIT,
  NOTE_TEXT_LIMIT,
} from '../errors.ts';
import { LOG_LEVELS, LOG_LINE_LIMIT } from '../limits.ts';
import { ExecutionIdSchema } from './common.ts';
import { type PausedRun, PausedRunSchema } from './durable.ts';

export { LOG_LEVELS };

export const LogLineSchema = z.strictObject({
  level: z.enum(LOG_LEVELS, { error: "must be one of 'log', 'warn', 'error'" }),
  text: z.string({ error: 'must be a string' }),
});
export type LogLine = z.infer<typeof LogLineSchema>;

export const FaultCodeSchema = z.enum(FAULT_CODES, { error: `must be one of ${FAULT_CODES.join(', ')}` });

/** An envelope's code: a fault's, or a durable execution's (errors.ts, DURABLE_TOKEN_CODES). */
export const EnvelopeCodeSchema = z.enum(ENVELOPE_CODES, {
  error: `must be one of ${ENVELOPE_CODES.join(', ')}`,
});

export const ErrorKindSchema = z.enum(ERROR_KINDS, { error: `must be one of ${ERROR_KINDS.join(', ')}` });

function boundedText(limit: number) {
  return z
    .string({ error: 'must be a string' })
    .max(limit, { error: `must be at most ${limit} characters` })
    .optional();
}

export const ResultEnvelopeSchema = z.strictObject({
  /** What the program returned; absent when it failed or returned undefined. */
  result: z.unknown().optional(),
  /** Why the run failed, as a message; absent on success. */
  error: z.string({ error: 'must be a string' }).optional(),
  /** Present only when the executor, not user code, ended the run (or refused a durable one). */
  code: EnvelopeCodeSchema.optional(),
  logs: z
    .array(LogLineSchema, { error: 'must be a list of log lines' })
    .max(LOG_LINE_LIMIT, { error: `must hold at most ${LOG_LINE_LIMIT} lines` }),
  /** Present when the run retained a handler: the id to invoke it by. */
  executionId: ExecutionIdSchema.optional(),
  /** What kind of error user code met, as the host observed it; only beside `error`, never beside `code`. */
  errorKind: ErrorKindSchema.optional(),
  /** The name of the error the program threw, as data (a program chooses it). */
  errorName: z
    .string({ error: 'must be a string' })
    .max(ERROR_NAME_LIMIT, { error: `must be at most ${ERROR_NAME_LIMIT} characters` })
    .optional(),
  /** The program's own frames of the thrown error's stack, at the author's positions, one per line. */
  errorStack: z
    .string({ error: 'must be a string' })
    .max(ERROR_STACK_LIMIT, { error: `must be at most ${ERROR_STACK_LIMIT} characters` })
    .optional(),
  // Version 3 (DETAILS_PROTOCOL_VERSION): a server leaves these out for an older client (envelopeForVersion).
  /** The namespace of the tool call whose own failure ended the run (tool-failed, tool-not-found). */
  errorProvider: boundedText(ERROR_TOOL_LIMIT),
  /** That call's tool name. */
  errorTool: boundedText(ERROR_TOOL_LIMIT),
  /** Where the program made that call, `FILE:LINE:COLUMN` at the author's position. */
  errorAt: boundedText(ERROR_AT_LIMIT),
  /** The JSON of a thrown value that is an object but no Error (its `error` reads `[object Object]`), cut at ERROR_JSON_LIMIT. */
  errorJson: boundedText(ERROR_JSON_LIMIT),
  /** What the code should have looked like, beside an error the entry contract explains (docs/protocol.md). */
  hint: boundedText(HINT_LIMIT),
  /** Values of the result or of a tool call's arguments that lost information on the way out. */
  notes: z
    .array(
      z
        .string({ error: 'must be a string' })
        .max(NOTE_TEXT_LIMIT, { error: `must be at most ${NOTE_TEXT_LIMIT} characters` }),
      { error: 'must be a list of notes' },
    )
    .max(NOTE_LIMIT, { error: `must hold at most ${NOTE_LIMIT} notes` })
    .optional(),
  /** A durable run that paused: why, the calls it waits on, and the token a resume finishes it from. */
  paused: PausedRunSchema.optional(),
});
export type ResultEnvelope = z.infer<typeof ResultEnvelopeSchema>;

/**
 * The envelope as a caller reads it (IsolateExecutor, Sandbox, ExecutorClient): `result` is always
 * present, even when undefined; the rest only when set.
 */
export interface ExecuteResult {
  result: unknown;
  error?: string;
  code?: EnvelopeCode;
  logs: LogLine[];
  executionId?: string;
  errorKind?: ErrorKind;
  errorName?: string;
  errorStack?: string;
  errorProvider?: string;
  errorTool?: string;
  errorAt?: string;
  errorJson?: string;
  hint?: string;
  notes?: string[];
  /** A durable run that paused (docs/durable.md): no result, no error, this. */
  paused?: PausedRun;
}
