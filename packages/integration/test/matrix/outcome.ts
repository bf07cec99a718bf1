/**
 * The one outcome every door's answer is mapped back into, so one expectation holds for all of
 * them: the object form's envelope with its console lines written as the Code Mode contract writes
 * them (`[warn] `, `[error] ` before those levels), and what a retained handler answered.
 */
import type { ExecuteResult, LogLine } from '@supolka/codemode-protocol';

export interface Outcome {
  result?: unknown;
  error?: string;
  /** Present only when the executor ended the run. */
  code?: string;
  /** What kind of error user code met, beside an error with no code. */
  errorKind?: string;
  logs: string[];
  /** `status body` of each invocation of a retained handler, in order. */
  responses?: string[];
  /** A durable row's pause, as pausedSummary writes it, before the resume whose outcome this is. */
  paused?: string;
}

/** A paused envelope's pause in one line: the reason, the data as JSON, the pending calls. */
export function pausedSummary(paused: NonNullable<ExecuteResult['paused']>): string {
  const pending = paused.pending.map((call) => `${call.sequence} ${call.provider}.${call.tool}`).join(', ');
  return `${paused.reason} ${JSON.stringify(paused.data)} pending ${pending}`;
}

export function lineText({ level, text }: LogLine): string {
  return level === 'log' ? text : `[${level}] ${text}`;
}

/** The object form's envelope as an outcome: the fields a row compares, nothing undefined. */
export function fromEnvelope(envelope: ExecuteResult): Outcome {
  return fromParts({ ...envelope, logs: envelope.logs.map(lineText) });
}

/** The parts that are present, in the outcome's shape. */
export function fromParts(parts: {
  result?: unknown;
  error?: string | undefined;
  code?: string | undefined;
  errorKind?: string | undefined;
  logs: readonly string[];
}): Outcome {
  const outcome: Outcome = { logs: [...parts.logs] };
  if (parts.result !== undefined) outcome.result = parts.result;
  if (parts.error !== undefined) outcome.error = parts.error;
  if (parts.code !== undefined) outcome.code = parts.code;
  if (parts.errorKind !== undefined) outcome.errorKind = parts.errorKind;
  return outcome;
}
