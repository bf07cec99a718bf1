/**
 * The wire between the pool and a child. Every message is a protocol message carried as its codec
 * text: encodeMessage refuses one past PAYLOAD_LIMIT before it leaves, and decodeMessage measures,
 * parses and validates it on arrival. The same text is what a network transport carries, so the
 * pool and a remote client speak one format.
 *
 * The text travels over Node's IPC channel with the 'advanced' serialization. With the default
 * 'json' serialization Node would JSON-encode the text a second time, escaping every quote of it;
 * the structured-clone serializer moves a string as its bytes. Binary values survive because the
 * codec carries them inside the text as tagged base64.
 */
import type { ChildProcess } from 'node:child_process';
import { type Decoded, decodeMessage, encodeMessage, type Message } from '@supolka/codemode-protocol';

/** A ChildProcess (in the parent) or `process` (in the child). */
export type MessageEndpoint =
  | Pick<ChildProcess, 'send' | 'connected'>
  | Pick<NodeJS.Process, 'send' | 'connected'>;

type Send = (message: string, callback: (error: Error | null) => void) => boolean;

/**
 * Encodes and sends one message. Throws PayloadTooLargeError past the limit, so the caller can
 * answer with a smaller message instead. A channel that closed meanwhile drops the message
 * quietly: the side that lost its peer learns it from the exit or disconnect event, not here.
 */
export function sendMessage(endpoint: MessageEndpoint, message: Message): void {
  sendText(endpoint, encodeMessage(message));
}

/** Sends text encodeMessage already produced. */
export function sendText(endpoint: MessageEndpoint, text: string): void {
  if (!endpoint.send || endpoint.connected === false) return;
  // Both faces take (message, callback); their overload lists differ only in what else they take.
  (endpoint.send as Send).call(endpoint, text, ignoreClosed);
}

function ignoreClosed(): void {
  // The exit or disconnect event reports the lost peer.
}

/** Decodes what arrived on the channel: it must be codec text, measured and validated like any message. */
export function receiveMessage(value: unknown): Decoded {
  if (typeof value !== 'string') {
    return {
      ok: false,
      fault: { code: 'BAD_REQUEST', message: `A message must arrive as codec text; got ${typeof value}.` },
    };
  }
  return decodeMessage(value);
}
