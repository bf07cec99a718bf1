/**
 * Standard Request and Response objects on the caller's side, the wire shapes across the process
 * boundary: headers as ordered pairs, bodies buffered whole as bytes.
 */

import type { HttpRequest, HttpResponse } from '@supolka/codemode-protocol/wire';
import { errorText } from '@supolka/codemode-protocol/wire';
import { faultError } from '../pool/conversations.ts';

export async function toWireRequest(request: Request): Promise<HttpRequest> {
  return {
    method: request.method,
    url: request.url,
    headers: [...request.headers],
    body: request.body === null ? null : new Uint8Array(await request.arrayBuffer()),
    redirect: request.redirect,
  };
}

/** Statuses whose Response may carry no body, as the Fetch standard defines them. */
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/**
 * The wire shape allows what a standard Response refuses (a 1xx status, bytes undici rejects in a
 * header), so a refusal becomes a coded error naming the cause instead of a bare TypeError.
 */
export function fromWireResponse(response: HttpResponse): Response {
  const body = NULL_BODY_STATUSES.has(response.status) ? null : response.body;
  try {
    return new Response(body as Uint8Array<ArrayBuffer> | null, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  } catch (error) {
    throw faultError(
      'INTERNAL',
      `The handler answered a response a standard Response cannot hold: ${errorText(error)}`,
    );
  }
}
