/**
 * Requests and responses as they cross the isolate boundary (the protocol's HttpRequest and
 * HttpResponse shapes), for the retained-handler invoker. They read internal state, never the
 * public getters: a Response subclass can override what a getter answers, not what it holds.
 */
import { TypeErrorCtor } from '../primordials.ts';
import type { Body } from './body.ts';
import { headerSlots } from './headers.ts';
import { Request } from './request.ts';
import { responseSlots } from './response.ts';

interface WireRequest {
  method: string;
  url: string;
  headers: [string, string][];
  body: Uint8Array | null;
}

export function requestFromWire(wire: WireRequest): Request {
  const hasBody = wire.body !== null && wire.method !== 'GET' && wire.method !== 'HEAD';
  // The host's header pairs become a Headers first: the constructor copies one without iterating
  // an array (whose iterator a program can replace). The init has no prototype, so the
  // constructor finds only what is here.
  return new Request(wire.url, {
    __proto__: null,
    method: wire.method,
    headers: headerSlots.create('none', wire.headers),
    ...(hasBody ? { body: wire.body } : {}),
  });
}

/** workerd's text for a fetch handler that answered something other than a Response. */
export const NOT_A_RESPONSE_MESSAGE =
  "Incorrect type for Promise: the Promise did not resolve to 'Response'.";

export function isResponse(value: unknown): boolean {
  try {
    responseSlots.state(value as never);
    return true;
  } catch {
    return false;
  }
}

export async function responseToWire(response: unknown): Promise<{
  status: number;
  statusText: string;
  headers: [string, string][];
  body: Uint8Array | null;
}> {
  if (!isResponse(response)) throw new TypeErrorCtor(NOT_A_RESPONSE_MESSAGE);
  const state = responseSlots.state(response as never);
  const body = state.body === null ? null : await (state.body as Body).consume();
  return {
    status: state.status,
    statusText: state.statusText,
    headers: headerSlots.pairs(state.headers),
    body,
  };
}
