/**
 * Validation at every boundary: a value that fails its schema yields one sentence naming each
 * field and the rule it broke, never a thrown zod dump.
 */
import type { z } from 'zod';
import { CodecError, parseForDispatch, stringifyForDispatch } from './codec.ts';
import { BadRequestError, PayloadTooLargeError, TooManyValuesError } from './errors.ts';
import { HOT_MESSAGE_CHECKS } from './hot-messages.ts';
import { PAYLOAD_LIMIT, VALUE_LIMIT } from './limits.ts';
import { type MessageScan, scanMessage, valueCount } from './message-scan.ts';
import { MESSAGE_SCHEMAS, MESSAGE_TYPES, type Message, type MessageType } from './messages.ts';
import type { Fault } from './schemas/fault.ts';

/** `request.providers[0].name` for the path ['request', 'providers', 0, 'name']. */
export function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_$][\w$]*$/.test(key)) text += text ? `.${key}` : key;
    else text += `[${JSON.stringify(String(key))}]`;
  }
  return text;
}

/** One readable sentence per issue, joined: `timeout must be at least 1 ms; code is required`. */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  // The first few name the problem; the rest would only make the fault as large as the input.
  const shown = issues.slice(0, ISSUES_SHOWN);
  const more = issues.length - shown.length;
  const text = shown
    .map((issue) => {
      if (issue.code === 'unrecognized_keys') {
        const where = issue.path.length ? ` in ${formatPath(issue.path)}` : '';
        return `${issue.keys.map((key) => `'${key}'`).join(', ')} ${issue.keys.length === 1 ? 'is not a known field' : 'are not known fields'}${where}`;
      }
      const field = formatPath(issue.path) || 'the value';
      const missing = issue.code === 'invalid_type' && 'input' in issue && issue.input === undefined;
      return `${field} ${missing ? 'is required' : issue.message}`;
    })
    .join('; ');
  return more > 0 ? `${text}; and ${more} more` : text;
}

/** Issues a fault names one by one. */
const ISSUES_SHOWN = 10;

/** Parses `value` against `schema`, or throws a BadRequestError naming `what`, each field and its rule. */
export function validate<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  what: string,
): z.output<Schema> {
  const parsed = schema.safeParse(value, { reportInput: true });
  if (parsed.success) return parsed.data;
  throw new BadRequestError(`Invalid ${what}: ${formatIssues(parsed.error.issues)}.`);
}

export type Decoded =
  | { readonly ok: true; readonly message: Message }
  | { readonly ok: false; readonly fault: Fault & { readonly id?: string } };

/** A value's kind in words, for messages that say what arrived instead of what was expected. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Checks a value already parsed from the wire against the schema its `type` names. */
export function validateMessage(value: unknown): Decoded {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return badRequest(`A message must be an object with a "type"; got ${describeValue(value)}.`);
  }
  const record = value as Record<string, unknown>;
  const id = typeof record.id === 'string' ? record.id : undefined;
  const type = record.type;
  if (typeof type !== 'string' || !Object.hasOwn(MESSAGE_SCHEMAS, type)) {
    const got = typeof type === 'string' ? `"${type}"` : 'none';
    return badRequest(`Unknown message type ${got}; expected one of ${MESSAGE_TYPES.join(', ')}.`, id);
  }
  const parsed = MESSAGE_SCHEMAS[type as MessageType].safeParse(value, { reportInput: true });
  if (parsed.success) return { ok: true, message: parsed.data as Message };
  return badRequest(`Invalid ${type} message: ${formatIssues(parsed.error.issues)}.`, id);
}

/**
 * Decodes one message from its wire text: the size bound, the values it holds (VALUE_LIMIT,
 * counted before anything is parsed), then the codec, then the schema (validateParsed). `scan` is the text's
 * scanMessage when the caller already made it. Never throws: every failure is a fault the
 * receiver can send back.
 */
export function decodeMessage(text: string, limit: number = PAYLOAD_LIMIT, scan?: MessageScan): Decoded {
  if (text.length > limit) {
    const error = new PayloadTooLargeError('message', text.length, limit);
    return { ok: false, fault: { code: error.code as 'PAYLOAD_TOO_LARGE', message: error.message } };
  }
  // Every JSON value takes at least one character, so a text no longer than the limit holds no
  // more values than it allows, and the counting pass (a fifth of a small message's decode) is skipped.
  if (text.length > VALUE_LIMIT || scan !== undefined) {
    const counted = scan ?? scanMessage(text, VALUE_LIMIT);
    const values = valueCount(counted);
    if (values > VALUE_LIMIT) {
      const error = new TooManyValuesError('message', values, VALUE_LIMIT);
      const fault = { code: 'PAYLOAD_TOO_LARGE' as const, message: error.message };
      return { ok: false, fault: counted.id === undefined ? fault : { ...fault, id: counted.id } };
    }
  }
  let value: unknown;
  try {
    value = parseForDispatch(text);
  } catch (error) {
    if (error instanceof CodecError) return badRequest(`The message is not codec JSON: ${error.message}`);
    throw error;
  }
  return validateParsed(value);
}

/**
 * validateMessage for a value the codec's parse built: the hot message types (hot-messages.ts)
 * try their hand-written check first, which accepts what the schema would and nothing else;
 * whatever it does not accept is the schema's to accept or refuse.
 */
export function validateParsed(value: unknown): Decoded {
  if (typeof value === 'object' && value !== null) {
    const type = (value as { type?: unknown }).type;
    const check =
      typeof type === 'string' && Object.hasOwn(HOT_MESSAGE_CHECKS, type)
        ? HOT_MESSAGE_CHECKS[type as MessageType]
        : undefined;
    const message = check?.(value as Record<string, unknown>);
    if (message !== undefined) return { ok: true, message: message as Message };
  }
  return validateMessage(value);
}

/**
 * Encodes one message for the wire, refusing text past `limit` with a PayloadTooLargeError and
 * one holding more than VALUE_LIMIT values with a TooManyValuesError (one of them), so no
 * receiver is sent what it would refuse.
 */
export function encodeMessage(message: Message, limit: number = PAYLOAD_LIMIT): string {
  const text = stringifyForDispatch(message);
  if (text.length > limit) throw new PayloadTooLargeError(`${message.type} message`, text.length, limit);
  // As in decodeMessage: a text no longer than VALUE_LIMIT cannot hold more values than that.
  const values = text.length > VALUE_LIMIT ? valueCount(scanMessage(text, VALUE_LIMIT)) : 0;
  if (values > VALUE_LIMIT) throw new TooManyValuesError(`${message.type} message`, values, VALUE_LIMIT);
  return text;
}

function badRequest(message: string, id?: string): Decoded {
  return {
    ok: false,
    fault: id === undefined ? { code: 'BAD_REQUEST', message } : { code: 'BAD_REQUEST', message, id },
  };
}
