/**
 * The bound on a response's head toward an isolate: its status text, its URL when that is not the
 * request's own, and every header name and value, counted in characters. The body has a budget of
 * its own (body-budget.ts); the head had none but HEADER_LIMIT's count of pairs, so a caller's
 * outbound function could answer a 3 MiB header or a 2 MiB status text, which the host holds
 * until the isolate takes it. Native fetch never gets that far: Node refuses a response whose head
 * passes its maxHeaderSize (16 KiB), and the connection fails. 256 KiB is sixteen times that,
 * far past any response a server sends, so a head past it is refused, not carried.
 */
import type { HttpResponse } from '@supolka/codemode-protocol/wire';

export const RESPONSE_HEAD_LIMIT = 256 * 1024;

/** The text fetch rejects with (a TypeError) when a response's head passes RESPONSE_HEAD_LIMIT. */
export function responseHeadMessage(size: number): string {
  return `The response's status text, URL and headers take ${size} characters, past the ${RESPONSE_HEAD_LIMIT}-character limit of a response head.`;
}

/** Throws a TypeError naming the bound when `response`'s head, beside a request to `url`, passes it. */
export function measureResponseHead(response: HttpResponse, url: string): void {
  let size = response.statusText.length;
  if (response.url !== undefined && response.url !== url) size += response.url.length;
  for (const [name, value] of response.headers) size += name.length + value.length;
  if (size > RESPONSE_HEAD_LIMIT) throw new TypeError(responseHeadMessage(size));
}
