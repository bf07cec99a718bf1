/**
 * The half of a message's trip across a boundary that needs no schema library: the encode with its
 * bounds, and the decode up to the hot messages' checks (hot-messages.ts). validate.ts adds the
 * schemas' half (zod), which decides every message these checks do not accept. A process that must
 * not load zod at rest (a pool child) decodes with its table's hot decode and loads the schemas only
 * for a message that comes back unchecked (docs/protocol.md, "The zod-free entry").
 *
 * Both halves are built for a message table (messageWire here, messageValidation in validate.ts):
 * the protocol's, whose functions this package exports (encodeMessage, decodeHotMessage, ...), and
 * the executor pool's, which shares the protocol's messages and checks and adds its own.
 */
import { CodecError, parseForDispatch, stringifyForDispatch } from './codec.ts';
import { ECHO_LIMIT, echo } from './echo.ts';
import { PayloadTooLargeError, TooManyValuesError } from './errors.ts';
import { HOT_MESSAGE_CHECKS } from './hot-messages.ts';
import { PAYLOAD_LIMIT, VALUE_LIMIT } from './limits.ts';
import { type MessageScan, scanMessage, valueCount } from './message-scan.ts';
import type { Message, TypedMessage } from './messages.ts';
import type { Fault } from './schemas/fault.ts';

export type Decoded<Of extends TypedMessage = Message> =
  | { readonly ok: true; readonly message: Of }
  | { readonly ok: false; readonly fault: Fault & { readonly id?: string } };

/** What a hot decode answers: a decision, or a parsed value only the schemas can decide. */
export type HotDecoded<Of extends TypedMessage = Message> =
  | Decoded<Of>
  | { readonly ok: undefined; readonly value: unknown };

/**
 * A table's hand-written checks, by type: each the fast half of its type's schema, returning what
 * the schema returns for a value it accepts and undefined for anything else (hot-messages.ts).
 */
export type HotMessageChecks<Of extends TypedMessage> = {
  readonly [Type in Of['type']]?: (value: Record<string, unknown>) => Extract<Of, { type: Type }> | undefined;
};

/** The zod-free half of one message table. */
export interface MessageWire<Of extends TypedMessage> {
  /** The message's wire text, refused past `limit` or VALUE_LIMIT values (encodeMessage). */
  readonly encode: (message: Of, limit?: number) => string;
  /** The message a hot check accepts `value` as, or undefined when none does. */
  readonly check: (value: unknown) => Of | undefined;
  /** The decode without the schemas (decodeHotMessage). */
  readonly decodeHot: (text: string, limit?: number, scan?: MessageScan) => HotDecoded<Of>;
}

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

/** The zod-free half of the table whose hot checks are `checks`. */
export function messageWire<Of extends TypedMessage>(checks: HotMessageChecks<Of>): MessageWire<Of> {
  const check = (value: unknown): Of | undefined => {
    if (typeof value !== 'object' || value === null) return undefined;
    const type = (value as { type?: unknown }).type;
    if (typeof type !== 'string' || !Object.hasOwn(checks, type)) return undefined;
    const checkOf = checks[type as Of['type']] as
      | ((value: Record<string, unknown>) => Of | undefined)
      | undefined;
    return checkOf?.(value as Record<string, unknown>);
  };
  return {
    encode: encodeTyped,
    check,
    decodeHot: (text, limit, scan) => decodeHot(check, text, limit, scan),
  };
}

/**
 * A decode without the schemas: the size bound, the values the text holds (VALUE_LIMIT, counted
 * before anything is parsed), the codec, then the hot checks. A failure of the first three is a
 * fault, worded as decodeMessage words it; a value the hot checks accept is the message; any other
 * value comes back unchecked (`ok: undefined`) for the table's validation to accept or refuse.
 * Never throws.
 */
function decodeHot<Of extends TypedMessage>(
  check: (value: unknown) => Of | undefined,
  text: string,
  limit: number = PAYLOAD_LIMIT,
  scan?: MessageScan,
): HotDecoded<Of> {
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
  const message = check(value);
  return message === undefined ? { ok: undefined, value } : { ok: true, message };
}

/**
 * Encodes one message of any table for the wire, refusing text past `limit` with a
 * PayloadTooLargeError and one holding more than VALUE_LIMIT values with a TooManyValuesError (one
 * of them), so no receiver is sent what it would refuse.
 */
function encodeTyped(message: TypedMessage, limit: number = PAYLOAD_LIMIT): string {
  const text = stringifyForDispatch(message);
  if (text.length > limit) throw new PayloadTooLargeError(`${message.type} message`, text.length, limit);
  // As in decodeMessage: a text no longer than VALUE_LIMIT cannot hold more values than that.
  const values = text.length > VALUE_LIMIT ? valueCount(scanMessage(text, VALUE_LIMIT)) : 0;
  if (values > VALUE_LIMIT) throw new TooManyValuesError(`${message.type} message`, values, VALUE_LIMIT);
  return text;
}

/** The protocol's table: what a client and a server exchange (messages.ts). */
export const PROTOCOL_WIRE: MessageWire<Message> = messageWire<Message>(HOT_MESSAGE_CHECKS);

/** The message a hot type's check accepts `value` as, or undefined when none does. */
export const checkHotMessage: (value: unknown) => Message | undefined = PROTOCOL_WIRE.check;

/**
 * decodeMessage without the schemas: a value the protocol's hot checks accept is the message, any
 * other comes back unchecked (`ok: undefined`) for validateMessage to accept or refuse.
 */
export const decodeHotMessage: (text: string, limit?: number, scan?: MessageScan) => HotDecoded =
  PROTOCOL_WIRE.decodeHot;

/** Encodes one message for the wire, refused past `limit` or VALUE_LIMIT values (encodeTyped). */
export const encodeMessage: (message: Message, limit?: number) => string = PROTOCOL_WIRE.encode;
