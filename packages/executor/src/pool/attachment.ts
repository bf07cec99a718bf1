/**
 * How a tool call's two messages travel on the pool's channel. Each holds one string that is
 * itself codec JSON: a dispatch's `args` (made inside the isolate) and a dispatchReply's frame text
 * (the envelope the caller's function answered). Carried inside the message's JSON, that string
 * would be escaped by the sender's encode and unescaped by the receiver's parse, only for its
 * reader to parse it once more: twice the work on every byte of every argument and answer.
 *
 * So the string travels after the message, as its attachment: the frame's text is the message's
 * codec JSON with the field left empty, a line feed, then the string as it is. The message's JSON
 * never holds a raw line feed (the encoder escapes it inside strings and writes no whitespace), so
 * the first one ends it, and the attachment may hold anything, line feeds included. The message
 * part is decoded and validated as every message is; the attachment is a string, which is all its
 * schema asks, and whoever reads it parses it as codec JSON and refuses it if it is not.
 *
 * The whole text is measured against PAYLOAD_LIMIT, as one message's text always was; since the
 * string is no longer escaped, what counts is its own length, as in a Sandbox of the caller's
 * process. This is the pool's channel only: the server's protocol carries every field inside its
 * message.
 */
import { PAYLOAD_LIMIT, PayloadTooLargeError } from '@supolka/codemode-protocol/wire';
import type { PoolMessage } from './messages/table.ts';
import {
  type DecodedPoolMessage,
  decodeHotPoolMessage,
  encodePoolMessage,
  type HotDecodedPoolMessage,
} from './messages/wire.ts';

const SEPARATOR = '\n';

export function unexpectedAttachmentMessage(type: string): string {
  return `A ${type} message carries no attachment; only dispatch and dispatchReply do.`;
}

export const FILLED_ATTACHMENT_FIELD_MESSAGE =
  'A message with an attachment must leave the field the attachment fills empty.';

/**
 * The message's frame text: a tool call's codec JSON string as an attachment, every other message
 * as encodePoolMessage makes it. Frames carry UTF-8, which has no lone surrogate, so a string holding
 * one stays inside its message, where the encoder escapes it (the codec's own JSON never holds one;
 * the answer of a caller's raw dispatch function may).
 */
export function encodeChannelMessage(message: PoolMessage): string {
  if (message.type === 'dispatch' && message.args.isWellFormed()) {
    return attached({ ...message, args: '' }, message.args);
  }
  if (message.type === 'dispatchReply' && message.frame[1].isWellFormed()) {
    return attached({ ...message, frame: [message.frame[0], ''] }, message.frame[1]);
  }
  return encodePoolMessage(message);
}

function attached(head: PoolMessage, attachment: string): string {
  const headText = encodePoolMessage(head);
  const length = headText.length + SEPARATOR.length + attachment.length;
  if (length > PAYLOAD_LIMIT) throw new PayloadTooLargeError(`${head.type} message`, length, PAYLOAD_LIMIT);
  return headText + SEPARATOR + attachment;
}

/**
 * Decides a message no hot check accepted: the pool table's validatePoolMessage, at hand (the
 * parent) or loaded on first use (a child, which holds no zod at rest: docs/pool.md, "Memory").
 */
export type SchemaPath = (value: unknown) => DecodedPoolMessage | Promise<DecodedPoolMessage>;

/**
 * A frame's text as its message of the pool's table, the attachment back in its field; a refusal
 * as the table's decode words it. Settles at once unless the message needed `schemaPath` and it answered later.
 */
export function decodeChannelMessage(
  text: string,
  schemaPath: SchemaPath,
): DecodedPoolMessage | Promise<DecodedPoolMessage> {
  const cut = text.indexOf(SEPARATOR);
  if (cut === -1 || text.length > PAYLOAD_LIMIT) return decided(decodeHotPoolMessage(text), schemaPath);
  const head = decided(decodeHotPoolMessage(text.slice(0, cut)), schemaPath);
  return head instanceof Promise
    ? head.then((decoded) => withAttachment(decoded, text, cut))
    : withAttachment(head, text, cut);
}

function decided(
  decoded: HotDecodedPoolMessage,
  schemaPath: SchemaPath,
): DecodedPoolMessage | Promise<DecodedPoolMessage> {
  return decoded.ok === undefined ? schemaPath(decoded.value) : decoded;
}

/** The decoded head of a frame with an attachment, the attachment in the field it fills. */
function withAttachment(decoded: DecodedPoolMessage, text: string, cut: number): DecodedPoolMessage {
  if (!decoded.ok) return decoded;
  const message = decoded.message;
  const attachment = text.slice(cut + 1);
  // The message is the decoder's own new object, so the attachment is put in place.
  if (message.type === 'dispatch' && message.args === '') message.args = attachment;
  else if (message.type === 'dispatchReply' && message.frame[1] === '') message.frame[1] = attachment;
  else if (message.type === 'dispatch' || message.type === 'dispatchReply') {
    return refused(FILLED_ATTACHMENT_FIELD_MESSAGE, message.id);
  } else return refused(unexpectedAttachmentMessage(message.type), 'id' in message ? message.id : undefined);
  return decoded;
}

function refused(message: string, id: string | undefined): DecodedPoolMessage {
  return {
    ok: false,
    fault: id === undefined ? { code: 'BAD_REQUEST', message } : { code: 'BAD_REQUEST', message, id },
  };
}
