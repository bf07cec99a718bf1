/**
 * The fetch the HTTP transports reach an upstream with, bounding what one upstream message may
 * bring into this process as the SDK's stdio transport bounds a line: a JSON body past
 * UPSTREAM_MESSAGE_LIMIT bytes, or one server-sent event past it, errors the body before more is
 * read, so the call it answers fails naming the bound. Without it an HTTP upstream's answer of any
 * size was read whole (twelve answers of 96 MiB took the bridge past 1.5 GB).
 */
import type { FetchLike } from '@modelcontextprotocol/client';
import { upstreamMessageTooLargeMessage } from './texts.ts';

/** Bytes of one upstream message over HTTP: the SDK's bound on a stdio line, 10 MiB. */
export const UPSTREAM_MESSAGE_LIMIT = 10 * 1024 * 1024;

const LINE_FEED = 10;
const CARRIAGE_RETURN = 13;

export function boundedFetch(limit = UPSTREAM_MESSAGE_LIMIT): FetchLike {
  return async (url, init) => {
    const response = await fetch(url, init);
    if (response.body === null) return response;
    const events = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    return new Response(response.body.pipeThrough(messageBound(limit, events)), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/**
 * Counts the bytes of the message being read: the whole body, or, in an event stream, the bytes
 * since the last blank line (where one event ends and the next begins).
 */
function messageBound(limit: number, events: boolean): TransformStream<Uint8Array, Uint8Array> {
  let size = 0;
  let lineEnded = false;
  return new TransformStream({
    transform(chunk, controller) {
      if (!events) size += chunk.byteLength;
      else {
        for (const byte of chunk) {
          if (byte === LINE_FEED) {
            if (lineEnded) size = 0;
            lineEnded = true;
          } else if (byte !== CARRIAGE_RETURN) lineEnded = false;
          size++;
        }
      }
      if (size > limit) controller.error(new Error(upstreamMessageTooLargeMessage(limit)));
      else controller.enqueue(chunk);
    },
  });
}
