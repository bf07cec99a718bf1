/**
 * Standard Request and Response objects on the client's side, the wire shapes across: headers as
 * ordered pairs, bodies buffered whole as bytes. The same conversions IsolateExecutor makes in
 * process, written against the structural shapes of ./web.ts so no runtime's types are needed.
 */
import type { HttpRequest, HttpResponse } from '../schemas/frames.ts';
import { type HeadersLike, platform, type RequestLike, type ResponseLike } from './web.ts';

function pairs(headers: HeadersLike): [string, string][] {
  const list: [string, string][] = [];
  headers.forEach((value, name) => {
    list.push([name, value]);
  });
  return list;
}

export async function toWireRequest(request: RequestLike): Promise<HttpRequest> {
  const redirect = request.redirect;
  return {
    method: request.method,
    url: request.url,
    headers: pairs(request.headers),
    body: request.body === null ? null : new Uint8Array(await request.arrayBuffer()),
    ...(redirect === 'follow' || redirect === 'manual' || redirect === 'error' ? { redirect } : {}),
  };
}

export async function toWireResponse(response: ResponseLike): Promise<HttpResponse> {
  return {
    status: response.status,
    statusText: response.statusText,
    headers: pairs(response.headers),
    body: response.body === null ? null : new Uint8Array(await response.arrayBuffer()),
    ...(response.url ? { url: response.url } : {}),
    ...(response.redirected ? { redirected: true } : {}),
  };
}

/** Statuses whose Response may carry no body, as the Fetch standard defines them. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** A standard Response built with the runtime's own constructor. */
export function fromWireResponse(response: HttpResponse): ResponseLike {
  const Response = platform.Response;
  if (Response === undefined) throw new TypeError('This runtime has no Response constructor.');
  return new Response(NULL_BODY_STATUSES.has(response.status) ? null : response.body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** Whether an outbound handler answered with a standard Response rather than the wire shape. */
export function isResponseLike(value: unknown): value is ResponseLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as ResponseLike).arrayBuffer === 'function' &&
    typeof (value as ResponseLike).headers?.forEach === 'function'
  );
}
