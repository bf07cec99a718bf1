/**
 * Request (Fetch, https://fetch.spec.whatwg.org/#request-class), the parts a Worker has: method,
 * url, headers, body, signal and redirect, with workerd's texts.
 */
import { AbortSignal, abortSlots } from '../abort/abort-signal.ts';
import { TypeErrorCtor } from '../primordials.ts';
import type { ReadableStream } from '../streams/index.ts';
import { defineInterface, illegalInvocation, toDOMString, toUSVString } from '../webidl.ts';
import { Body, bodyReaders, extractBody } from './body.ts';
import { type Headers, headerSlots, isToken } from './headers.ts';
import { parseUrl } from './url.ts';

const NORMALIZED_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH']);
const REDIRECT_MODES = new Set(['follow', 'error', 'manual']);

export interface RequestInit {
  method?: string;
  headers?: unknown;
  body?: unknown;
  redirect?: string;
  signal?: AbortSignal | null;
  [key: string]: unknown;
}

interface RequestState {
  method: string;
  url: string;
  headers: Headers;
  body: Body | null;
  redirect: string;
  signal: AbortSignal;
}

export let requestSlots: {
  state(request: Request): RequestState;
  isRequest(value: unknown): value is Request;
};

export class Request {
  #state: RequestState;

  constructor(input: unknown, init?: RequestInit) {
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    if (arguments.length === 0) {
      throw new TypeErrorCtor("Failed to construct 'Request': 1 argument required, but only 0 present.");
    }
    const options = init ?? {};
    let base: RequestState | undefined;
    let url: string;
    if (requestSlots.isRequest(input)) {
      base = input.#state;
      url = base.url;
    } else {
      const text = toUSVString(input);
      const parsed = parseUrl(text);
      if (parsed === null) throw new TypeErrorCtor(`Invalid URL: ${text}`);
      url = parsed.href;
    }
    let method = base?.method ?? 'GET';
    if (options.method !== undefined) {
      const given = toDOMString(options.method);
      if (!isToken(given)) throw new TypeErrorCtor(`Invalid HTTP method string: ${given}`);
      const upper = given.toUpperCase();
      method = NORMALIZED_METHODS.has(upper) ? upper : given;
    }
    const redirect =
      options.redirect === undefined ? (base?.redirect ?? 'follow') : toDOMString(options.redirect);
    if (!REDIRECT_MODES.has(redirect)) {
      throw new TypeErrorCtor(
        `Failed to construct 'Request': The provided value '${redirect}' is not a valid enum value of type RequestRedirect.`,
      );
    }
    const headers = headerSlots.create('request', base ? headerSlots.pairs(base.headers) : undefined);
    if (options.headers !== undefined) {
      const fresh = headerSlots.create('request');
      headerSlots.fill(fresh, options.headers);
      headerSlots.setGuard(headers, 'none');
      for (const name of [...new Set(headerSlots.pairs(headers).map(([key]) => key))]) headers.delete(name);
      for (const [name, value] of headerSlots.pairs(fresh)) headers.append(name, value);
    }
    let body: Body | null = null;
    const givenBody = options.body;
    if (givenBody !== undefined && givenBody !== null) {
      if (method === 'GET' || method === 'HEAD')
        throw new TypeErrorCtor('Request with a GET or HEAD method cannot have a body.');
      const extracted = extractBody(givenBody);
      body = extracted.body;
      if (extracted.type !== null && !headers.has('content-type'))
        headers.append('content-type', extracted.type);
    } else if (base?.body) {
      if (base.body.used)
        throw new TypeErrorCtor(
          'Cannot construct a Request with a Request object that has already been used.',
        );
      body = base.body;
    }
    // The new request follows the given signal, or the input request's.
    const follow = options.signal !== undefined ? options.signal : (base?.signal ?? null);
    const signal = follow === null ? abortSlots.create() : AbortSignal.any([follow]);
    this.#state = { method, url, headers, body, redirect, signal };
  }

  static {
    requestSlots = {
      state: (request) => request.#state,
      isRequest: (value): value is Request => typeof value === 'object' && value !== null && #state in value,
    };
  }

  static #check(value: unknown): Request {
    if (!requestSlots.isRequest(value)) throw illegalInvocation();
    return value;
  }

  get method(): string {
    return Request.#check(this).#state.method;
  }
  get url(): string {
    return Request.#check(this).#state.url;
  }
  get headers(): Headers {
    return Request.#check(this).#state.headers;
  }
  get redirect(): string {
    return Request.#check(this).#state.redirect;
  }
  get signal(): AbortSignal {
    return Request.#check(this).#state.signal;
  }
  get body(): ReadableStream | null {
    return (Request.#check(this).#state.body?.stream ?? null) as ReadableStream | null;
  }
  get bodyUsed(): boolean {
    return Request.#check(this).#state.body?.used ?? false;
  }
  get keepalive(): boolean {
    Request.#check(this);
    return false;
  }
  get integrity(): string {
    Request.#check(this);
    return '';
  }
  get cache(): undefined {
    Request.#check(this);
    return undefined;
  }

  clone(): Request {
    const state = Request.#check(this).#state;
    const copy = new Request(this);
    copy.#state = {
      ...state,
      headers: headerSlots.create('request', headerSlots.pairs(state.headers)),
      body: state.body?.clone() ?? null,
    };
    return copy;
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return read(this, (body) => bodyReaders.arrayBuffer(body));
  }
  bytes(): Promise<Uint8Array> {
    return read(this, (body) => bodyReaders.bytes(body));
  }
  text(): Promise<string> {
    return read(this, (body) => bodyReaders.text(body));
  }
  json(): Promise<unknown> {
    return read(this, (body) => bodyReaders.json(body));
  }
  blob(): Promise<unknown> {
    return read(this, (body, type) => bodyReaders.blob(body, type));
  }
  formData(): Promise<unknown> {
    return read(this, (body, type) => bodyReaders.formData(body, type));
  }
}

async function read<T>(
  request: Request,
  reader: (body: Body, type: string | null) => Promise<T>,
): Promise<T> {
  const state = requestSlots.state(request);
  return reader(state.body ?? new Body(null), state.headers.get('content-type'));
}

defineInterface(Request);
