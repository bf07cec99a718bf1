/**
 * The half of a message's trip across a boundary that needs no schema library: the encode with its
 * bounds, and the decode up to the hot messages' checks (hot-messages.ts). validate.ts adds the
 * schemas' half (zod), which decides every message these checks do not accept. A process that must
 * not load zod at rest (a pool child) decodes with decodeHotMessage and loads the schemas only for
 * a message that comes back unchecked (docs/protocol.md, "The zod-free entry").
 */
import { CodecError, parseForDispatch, stringifyForDispatch } from './codec.ts';
import { ECHO_LIMIT, echo } from './echo.ts';
import { PayloadTooLargeError, TooManyValuesError } from './errors.ts';
import { HOT_MESSAGE_CHECKS } from './hot-messages.ts';
import { PAYLOAD_LIMIT, VALUE_LIMIT } from './limits.ts';
import { type MessageScan, scanMessage, valueCount } from './message-scan.ts';
import type { Message, MessageType } from './messages.ts';
import type { Fault } from './schemas/fault.ts';

export type Decoded =
  | { readonly ok: true; readonly message: Message }
  | { readonly ok: false; readonly fault: Fault & { readonly id?: string } };

/** What decodeHotMessage answers: a decision, or a parsed value only the schemas can decide. */
export type HotDecoded = Decoded | { readonly ok: undefined; readonly value: unknown };

/** `request.providers[0].name` for the path ['request', 'providers', 0, 'name']. */
export function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    // A key of any length may arrive (a module name, a header), identifier-shaped or not: the path
    // repeats at most its start, in brackets once it is cut.
    else if (typeof key === 'string' && key.length <= ECHO_LIMIT && /^[A-Za-z_$][\w$]*$/.test(key))
      text += text ? `.${key}` : key;
    else text += `[${JSON.stringify(echo(String(key)))}]`;
  }
  return text;
}

/** A value's kind in words, for messages that say what arrived instead of what was expected. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** The message a hot type's check accepts `value` as, or undefined when none does. */
export function checkHotMessage(value: unknown): Message | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string' || !Object.hasOwn(HOT_MESSAGE_CHECKS, type)) return undefined;
  return HOT_MESSAGE_CHECKS[type as MessageType]?.(value as Record<string, unknown>) as Message | undefined;
}

/**
 * decodeMessage without the schemas: the size bound, the values the text holds (VALUE_LIMIT,
 * counted before anything is parsed), the codec, then the hot checks. A failure of the first three
 * is a fault, worded as decodeMessage words it; a value the hot checks accept is the message; any
 * other value comes back unchecked (`ok: undefined`) for validateMessage to accept or refuse.
 * Never throws.
 */
export function decodeHotMessage(
  text: string,
  limit: number = PAYLOAD_LIMIT,
  scan?: MessageScan,
): HotDecoded {
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
    if (error instanceof CodecError) {
      return {
        ok: false,
        fault: { code: 'BAD_REQUEST', message: `The message is not codec JSON: ${error.message}` },
      };
    }
    throw error;
  }
  const message = checkHotMessage(value);
  return message === undefined ? { ok: undefined, value } : { ok: true, message };
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
