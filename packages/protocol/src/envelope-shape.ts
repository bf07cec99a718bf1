/**
 * The result envelope's shaping, without its schema (schemas/envelope.ts): the envelope a caller
 * reads, one the executor composes, and one for an older peer. Loads no zod, so wire.ts exports it
 * and a process that holds no schema (the executor's caller, at rest) composes envelopes too.
 */
import { type EnvelopeCode, isFaultCode, USER_ERROR_DETAILS } from './errors.ts';
import type { ExecuteResult, ResultEnvelope } from './schemas/envelope.ts';
import { DETAILS_PROTOCOL_VERSION } from './version.ts';

/** The envelope's fields of version 3: a client that agreed on an older version never receives them. */
export const DETAILS_FIELDS = [
  'errorProvider',
  'errorTool',
  'errorAt',
  'errorJson',
  'hint',
  'notes',
] as const;

/** An envelope the executor itself composes: no result, the error, its code, no logs. */
export function faultEnvelope(code: EnvelopeCode, error: string): ExecuteResult {
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
    ...(envelope.paused !== undefined ? { paused: envelope.paused } : {}),
  };
}

/** The fields errorDetails copies, in the order it writes them. */
const DETAIL_KEYS = [...USER_ERROR_DETAILS, 'notes'] as const;

type Details = Pick<ExecuteResult, (typeof DETAIL_KEYS)[number]>;

/**
 * The error's kind, name and stack, the failed call's provider, tool and position, the thrown
 * value's JSON, the hint and the notes, as `envelope` has them: only the ones set, in that order.
 */
export function errorDetails(
  envelope: { readonly [Key in keyof Details]?: Details[Key] | undefined },
): Details {
  const details: Record<string, unknown> = {};
  for (const key of DETAIL_KEYS) if (envelope[key] !== undefined) details[key] = envelope[key];
  return details as Details;
}

/**
 * The envelope as a peer that agreed on `version` knows it: before version 3 (DETAILS_PROTOCOL_VERSION)
 * without the fields that version added, whose values such a peer's strict schema would refuse.
 * The same object when nothing is left out.
 */
export function envelopeForVersion<Envelope extends ExecuteResult>(
  envelope: Envelope,
  version: number,
): Envelope {
  if (version >= DETAILS_PROTOCOL_VERSION) return envelope;
  // A server refuses durability to an older client, so none of its runs pauses; were one to, the
  // client is told so in words it reads rather than sent a shape its schema refuses.
  if (envelope.paused !== undefined || (envelope.code !== undefined && !isFaultCode(envelope.code)))
    return faultEnvelope('INTERNAL', DURABLE_VERSION_MESSAGE) as Envelope;
  if (!DETAILS_FIELDS.some((key) => envelope[key] !== undefined)) return envelope;
  const older: Partial<ExecuteResult> = { ...envelope };
  for (const key of DETAILS_FIELDS) delete older[key];
  return older as Envelope;
}

/** What a client of a version before 3 would read in place of a durable run's envelope. */
export const DURABLE_VERSION_MESSAGE =
  'The run is durable, which needs protocol version 3: a client of an older version cannot read its envelope.';
