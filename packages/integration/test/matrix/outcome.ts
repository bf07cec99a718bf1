/**
 * The one outcome every door's answer is mapped back into, so one expectation holds for all of
 * them: the object form's envelope with its console lines written as the Code Mode contract writes
 * them (`[warn] `, `[error] ` before those levels), and what a retained handler answered. The
 * error's name and stack are left out: rows compare what a caller acts on, and the stack's frames
 * are the sandbox's own tests' (version 3's fields, which a model acts on, are compared).
 */
import {
  type ExecuteResult,
  type LogLine,
  USER_ERROR_DETAILS,
  type UserErrorDetail,
} from '@supolka/codemode-protocol';

export interface Outcome {
  result?: unknown;
  error?: string;
  /** Present only when the executor ended the run. */
  code?: string;
  /** What kind of error user code met, beside an error with no code. */
  errorKind?: string;
  /** The tool call whose own failure ended the run: its namespace, its tool, where the program made it. */
  errorProvider?: string;
  errorTool?: string;
  errorAt?: string;
  /** A thrown object's JSON. */
  errorJson?: string;
  /** What the object form expected, beside an error its entry contract explains. */
  hint?: string;
  /** Values of the result or of a tool's arguments that lost information on the way out. */
  notes?: string[];
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

/** The user error's details a row compares: all but the error's name and stack (above). */
type ComparedDetail = Exclude<UserErrorDetail, 'errorName' | 'errorStack'>;

/**
 * The fields of an outcome that are one text each, copied when present: the error, its code and
 * the protocol's details of a user error, so a detail the envelope gains is one the rows compare
 * (Outcome must name it, or this file does not type-check).
 */
const TEXT_FIELDS = [
  'error',
  'code',
  ...USER_ERROR_DETAILS.filter(
    (field): field is ComparedDetail => field !== 'errorName' && field !== 'errorStack',
  ),
] as const;

/** The parts that are present, in the outcome's shape. */
export function fromParts(
  parts: { result?: unknown; logs: readonly string[]; notes?: readonly string[] | undefined } & {
    [Field in (typeof TEXT_FIELDS)[number]]?: string | undefined;
  },
): Outcome {
  const outcome: Outcome = { logs: [...parts.logs] };
  if (parts.result !== undefined) outcome.result = parts.result;
  for (const field of TEXT_FIELDS) {
    const value = parts[field];
    if (value !== undefined) outcome[field] = value;
  }
  if (parts.notes !== undefined) outcome.notes = [...parts.notes];
  return outcome;
}
