/** The result envelope: what every execution comes back as (docs/protocol.md, "The result envelope"). */
import { z } from 'zod';
import {
  ERROR_KINDS,
  ERROR_NAME_LIMIT,
  ERROR_STACK_LIMIT,
  type ErrorKind,
  FAULT_CODES,
  type FaultCode,
} from '../errors.ts';
import { LOG_LEVELS, LOG_LINE_LIMIT } from '../limits.ts';
import { ExecutionIdSchema } from './common.ts';

export { LOG_LEVELS };

export const LogLineSchema = z.strictObject({
  level: z.enum(LOG_LEVELS, { error: "must be one of 'log', 'warn', 'error'" }),
  text: z.string({ error: 'must be a string' }),
});
export type LogLine = z.infer<typeof LogLineSchema>;

export const FaultCodeSchema = z.enum(FAULT_CODES, { error: `must be one of ${FAULT_CODES.join(', ')}` });

export const ErrorKindSchema = z.enum(ERROR_KINDS, { error: `must be one of ${ERROR_KINDS.join(', ')}` });

export const ResultEnvelopeSchema = z.strictObject({
  /** What the program returned; absent when it failed or returned undefined. */
  result: z.unknown().optional(),
  /** Why the run failed, as a message; absent on success. */
  error: z.string({ error: 'must be a string' }).optional(),
  /** Present only when the executor, not user code, ended the run. */
  code: FaultCodeSchema.optional(),
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
});
export type ResultEnvelope = z.infer<typeof ResultEnvelopeSchema>;

/**
 * The envelope as a caller reads it (IsolateExecutor, Sandbox, ExecutorClient): `result` is always
 * present, even when undefined; the rest only when set.
 */
export interface ExecuteResult {
  result: unknown;
  error?: string;
  code?: FaultCode;
  logs: LogLine[];
  executionId?: string;
  errorKind?: ErrorKind;
  errorName?: string;
  errorStack?: string;
}

/** An envelope the executor itself composes: no result, the error, its code, no logs. */
export function faultEnvelope(code: FaultCode, error: string): ExecuteResult {
  return { result: undefined, error, code, logs: [] };
}

/**
 * The envelope as a caller reads it, keys in the order the sandbox's specification prints them
 * (docs/sandbox.md): result (always present, even when undefined), error, code, logs, executionId;
 * then the error's kind, name and stack, after everything the specification prints, so its
 * printed envelopes read as before up to them.
 */
export function shapeEnvelope(envelope: ResultEnvelope): ExecuteResult {
  return {
    result: envelope.result,
    ...(envelope.error !== undefined ? { error: envelope.error } : {}),
    ...(envelope.code !== undefined ? { code: envelope.code } : {}),
    logs: envelope.logs,
    ...(envelope.executionId !== undefined ? { executionId: envelope.executionId } : {}),
    ...errorDetails(envelope),
  };
}

/** The error's kind, name and stack as `envelope` has them: only the ones set, in that order. */
export function errorDetails(envelope: {
  readonly errorKind?: ErrorKind | undefined;
  readonly errorName?: string | undefined;
  readonly errorStack?: string | undefined;
}): Pick<ExecuteResult, 'errorKind' | 'errorName' | 'errorStack'> {
  return {
    ...(envelope.errorKind !== undefined ? { errorKind: envelope.errorKind } : {}),
    ...(envelope.errorName !== undefined ? { errorName: envelope.errorName } : {}),
    ...(envelope.errorStack !== undefined ? { errorStack: envelope.errorStack } : {}),
  };
}
