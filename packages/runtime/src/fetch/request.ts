/**
 * Request (Fetch, https://fetch.spec.whatwg.org/#request-class), the parts a Worker has: method,
 * url, headers, body, signal and redirect, and workerd's cf and fetcher, with workerd's texts.
 * A request made from another takes its body, which leaves the other's used.
 */
import { AbortSignal, abortSlots } from '../abort/abort-signal.ts';
import {
  ArrayPrototypePush,
  JSONParse,
  JSONStringify,
  SafeSet,
  StringPrototypeToUpperCase,
  TypeErrorCtor,
} from '../primordials.ts';
import type { ReadableStream } from '../streams/index.ts';
import { defineInterface, illegalInvocation, toDOMString, toUSVString } from '../webidl.ts';
import { type Body, bodyReaders, extractBody } from './body.ts';
import { type Headers, headerSlots, isToken } from './headers.ts';
import { parseUrl } from './url.ts';

const NORMALIZED_METHODS = new SafeSet(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH']);
const REDIRECT_MODES = new SafeSet(['follow', 'error', 'manual']);
const GET_WITH_BODY = 'Request with a GET or HEAD method cannot have a body.';

export interface RequestInit {
  method?: string;
  headers?: unknown;
  body?: unknown;
  redirect?: string;
  signal?: AbortSignal | null;
  cf?: unknown;
  [key: string]: unknown;
}

interface RequestState {
  method: string;
  url: string;
  headers: Headers;
  body: Body | null;
  redirect: string;
  signal: AbortSignal;
  cf: unknown;
}

export let requestSlots: {
  state(request: Request): RequestState;
  isRequest(value: unknown): value is Request;
};

/**
 * The `cf` member workerd's Request and Response carry: a JSON copy of the init's object, kept
 * and answered as it is. Nothing here reads it; programs written for Workers may.
 */
export function cfFromInit(cf: unknown, dictionary: string): unknown {
  if (cf === undefined) return undefined;
  if (typeof cf !== 'object' || cf === null) {
    throw new TypeErrorCtor(
      `Incorrect type for the 'cf' field on '${dictionary}': the provided value is not of type 'Object'.`,
    );
  }
  return copyCf(cf);
}

export function copyCf(cf: unknown): unknown {
  return cf === undefined ? undefined : JSONParse(JSONStringify(cf) as string);
}

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
    // The input's body carries over unless init names a body of its own; workerd counts
    // `body: null` as one (https://github.com/whatwg/fetch/issues/674).
    const inputBody = options.body === undefined ? (base?.body ?? null) : null;
    if (inputBody?.used) throw new TypeErrorCtor('Cannot reconstruct a Request with a used body.');
    let method = base?.method ?? 'GET';
    if (options.method !== undefined) {
      const given = toDOMString(options.method);
      if (!isToken(given)) throw new TypeErrorCtor(`Invalid HTTP method string: ${given}`);
      const upper = StringPrototypeToUpperCase(given);
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
      const existing = headerSlots.pairs(headers);
      const seen = new SafeSet<string>();
      const names: string[] = [];
      for (let index = 0; index < existing.length; index++) {
        const name = (existing[index] as [string, string])[0];
        if (seen.has(name)) continue;
        seen.add(name);
        ArrayPrototypePush(names, name);
      }
      for (let index = 0; index < names.length; index++) headers.delete(names[index] as string);
      const given = headerSlots.pairs(fresh);
      for (let index = 0; index < given.length; index++) {
        const pair = given[index] as [string, string];
        headers.append(pair[0], pair[1]);
      }
    }
    const cf = options.cf === undefined ? copyCf(base?.cf) : cfFromInit(options.cf, 'RequestInitializerDict');
    let body: Body | null = null;
    const givenBody = options.body;
    if (givenBody !== undefined && givenBody !== null) {
      const extracted = extractBody(givenBody);
      if (method === 'GET' || method === 'HEAD') throw new TypeErrorCtor(GET_WITH_BODY);
      body = extracted.body;
      if (extracted.type !== null && !headers.has('content-type'))
        headers.append('content-type', extracted.type);
    }
    // As workerd: a GET or HEAD request keeps its input's body only while init changes neither.
    const changesMethodOrBody = options.method !== undefined || options.body !== undefined;
    if (inputBody !== null && changesMethodOrBody && (method === 'GET' || method === 'HEAD'))
      throw new TypeErrorCtor(GET_WITH_BODY);
    // The new request follows the given signal, or the input request's.
    const follow = options.signal !== undefined ? options.signal : (base?.signal ?? null);
    const signal = follow === null ? abortSlots.create() : AbortSignal.any([follow]);
    // Last, once nothing can throw: the input's body moves here and the input's is used.
    if (inputBody !== null) body = inputBody.transfer();
    this.#state = { method, url, headers, body, redirect, signal, cf };
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
  get cf(): unknown {
    return Request.#check(this).#state.cf;
  }
  /** workerd's service binding the request goes through; a program's own requests have none. */
  get fetcher(): null {
    Request.#check(this);
    return null;
  }

  clone(): Request {
    const state = Request.#check(this).#state;
    const body = state.body?.clone() ?? null;
    // Built from the URL alone, so the constructor takes nothing from this request.
    const copy = new Request(state.url);
    copy.#state = {
      ...state,
      headers: headerSlots.create('request', headerSlots.pairs(state.headers)),
      body,
      cf: copyCf(state.cf),
    };
    return copy;
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return bodyReaders.arrayBuffer(() => requestSlots.state(this));
  }
  bytes(): Promise<Uint8Array> {
    return bodyReaders.bytes(() => requestSlots.state(this));
  }
  text(): Promise<string> {
    return bodyReaders.text(() => requestSlots.state(this));
  }
  json(): Promise<unknown> {
    return bodyReaders.json(() => requestSlots.state(this));
  }
  blob(): Promise<unknown> {
    return bodyReaders.blob(() => requestSlots.state(this));
  }
  formData(): Promise<unknown> {
    return bodyReaders.formData(() => requestSlots.state(this));
  }
}

defineInterface(Request);
