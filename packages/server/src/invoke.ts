/**
 * The wire shapes of an invocation and the standard Request and Response IsolateExecutor.invoke
 * takes and gives. The server holds the wire request already; IsolateExecutor wants a Request,
 * and answers a Response the wire needs back as bytes.
 */
import type { HttpRequest, HttpResponse } from '@supolka/codemode-protocol/wire';

/** Throws a TypeError the way the Request constructor does (a GET with a body, a bad URL). */
export function requestFromWire(request: HttpRequest): Request {
  return new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body: request.body as Uint8Array<ArrayBuffer> | null,
    ...(request.redirect !== undefined ? { redirect: request.redirect } : {}),
  });
}

export async function responseToWire(response: Response): Promise<HttpResponse> {
  return {
    status: response.status,
    statusText: response.statusText,
    headers: [...response.headers],
    body: response.body === null ? null : new Uint8Array(await response.arrayBuffer()),
  };
}
