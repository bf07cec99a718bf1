/**
 * Response (Fetch, https://fetch.spec.whatwg.org/#response-class), with workerd's texts for the
 * status rules.
 */

import { utf8Encode } from '../encoding/utf8.ts';
import { assertRequestScope } from '../internals.ts';
import { JSONStringify, RangeErrorCtor, RegExpTest, SafeSet, TypeErrorCtor } from '../primordials.ts';
import type { ReadableStream } from '../streams/index.ts';
import { defineInterface, illegalInvocation, toByteString, toDOMString, toInteger } from '../webidl.ts';
import { type Body, bodyReaders, extractBody } from './body.ts';
import { type Headers, headerSlots } from './headers.ts';
import { cfFromInit, copyCf } from './request.ts';
import { parseUrl } from './url.ts';

const NULL_BODY_STATUS = new SafeSet([101, 103, 204, 205, 304]);
const REDIRECT_STATUS = new SafeSet([301, 302, 303, 307, 308]);
/** RFC 9110 reason-phrase: HTAB, SP, VCHAR, obs-text. */
const REASON_PHRASE = /^[\t\x20-\x7e\x80-\xff]*$/;

export type ResponseType = 'basic' | 'cors' | 'default' | 'error' | 'opaque' | 'opaqueredirect';

interface ResponseState {
  type: ResponseType;
  status: number;
  statusText: string;
  headers: Headers;
  body: Body | null;
  url: string;
  redirected: boolean;
  cf: unknown;
}

export let responseSlots: {
  create(
    state: Omit<ResponseState, 'headers' | 'cf'> & { headers: [string, string][]; cf?: unknown },
  ): Response;
  body(response: Response): Body | null;
  state(response: Response): ResponseState;
};

export class Response {
  #state: ResponseState;

  constructor(
    body?: unknown,
    init?: { status?: number; statusText?: string; headers?: unknown; cf?: unknown },
  ) {
    const status = init?.status === undefined ? 200 : toInteger(init.status, 16, false);
    if (status < 200 || status > 599) {
      throw new RangeErrorCtor(
        'Responses may only be constructed with status codes in the range 200 to 599, inclusive.',
      );
    }
    const statusText =
      init?.statusText === undefined
        ? ''
        : toByteString(init.statusText, () => new TypeErrorCtor('Invalid statusText'));
    if (!RegExpTest(REASON_PHRASE, statusText)) throw new TypeErrorCtor('Invalid statusText');
    const headers = headerSlots.create('response');
    if (init?.headers !== undefined) headerSlots.fill(headers, init.headers);
    let extracted: { body: Body; type: string | null } | null = null;
    if (body !== undefined && body !== null) {
      if (NULL_BODY_STATUS.has(status)) {
        throw new TypeErrorCtor('Response with null body status (101, 204, 205, or 304) cannot have a body.');
      }
      extracted = extractBody(body);
      if (extracted.type !== null && !headers.has('content-type'))
        headers.append('content-type', extracted.type);
    }
    this.#state = {
      type: 'default',
      status,
      statusText,
      headers,
      body: extracted?.body ?? null,
      url: '',
      redirected: false,
      cf: cfFromInit(init?.cf, 'ResponseInitializerDict'),
    };
  }

  static {
    responseSlots = {
      create: (state) => {
        const response = new Response();
        const headers = headerSlots.create('immutable', state.headers);
        response.#state = { ...state, headers, cf: state.cf };
        return response;
      },
      body: (response) => response.#state.body,
      state: (response) => Response.#check(response).#state,
    };
  }

  static #check(value: unknown): Response {
    if (typeof value !== 'object' || value === null || !(#state in value)) throw illegalInvocation();
    return value as Response;
  }

  static error(): Response {
    const response = responseSlots.create({
      type: 'error',
      status: 0,
      statusText: '',
      headers: [],
      body: null,
      url: '',
      redirected: false,
    });
    // The standard makes these headers immutable; workerd lets them change, and nothing reads them.
    headerSlots.setGuard(response.#state.headers, 'response');
    return response;
  }

  static redirect(url: string, status = 302): Response {
    const code = toInteger(status, 16, false);
    const target = parseUrl(toDOMString(url));
    if (target === null) throw new TypeErrorCtor(`Unable to parse URL: ${toDOMString(url)}`);
    if (!REDIRECT_STATUS.has(code)) {
      throw new RangeErrorCtor(
        `${code} is not a redirect status code. It must be one of: 301, 302, 303, 307, or 308.`,
      );
    }
    // workerd refuses a redirect at a module's top level, as it refuses a body there.
    assertRequestScope();
    return responseSlots.create({
      type: 'default',
      status: code,
      statusText: '',
      headers: [['location', String(target)]],
      body: null,
      url: '',
      redirected: false,
    });
  }

  static json(data: unknown, init?: { status?: number; statusText?: string; headers?: unknown }): Response {
    const text = JSONStringify(data);
    if (text === undefined) throw new TypeErrorCtor('The value cannot be converted to JSON.');
    const response = new Response(utf8Encode(text), init);
    const headers = response.#state.headers;
    if (!headers.has('content-type')) headers.append('content-type', 'application/json');
    return response;
  }

  get type(): ResponseType {
    return Response.#check(this).#state.type;
  }
  get url(): string {
    return Response.#check(this).#state.url;
  }
  get redirected(): boolean {
    return Response.#check(this).#state.redirected;
  }
  get status(): number {
    return Response.#check(this).#state.status;
  }
  get ok(): boolean {
    const { status } = Response.#check(this).#state;
    return status >= 200 && status <= 299;
  }
  get statusText(): string {
    return Response.#check(this).#state.statusText;
  }
  get headers(): Headers {
    return Response.#check(this).#state.headers;
  }
  get body(): ReadableStream | null {
    return (Response.#check(this).#state.body?.stream ?? null) as ReadableStream | null;
  }
  get bodyUsed(): boolean {
    return Response.#check(this).#state.body?.used ?? false;
  }
  get cf(): unknown {
    return Response.#check(this).#state.cf;
  }

  clone(): Response {
    const state = Response.#check(this).#state;
    const copy = responseSlots.create({
      ...state,
      headers: headerSlots.pairs(state.headers),
      body: state.body?.clone() ?? null,
      cf: copyCf(state.cf),
    });
    headerSlots.setGuard(copy.#state.headers, headerSlots.guard(state.headers));
    return copy;
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return bodyReaders.arrayBuffer(() => responseSlots.state(this));
  }
  bytes(): Promise<Uint8Array> {
    return bodyReaders.bytes(() => responseSlots.state(this));
  }
  text(): Promise<string> {
    return bodyReaders.text(() => responseSlots.state(this));
  }
  json(): Promise<unknown> {
    return bodyReaders.json(() => responseSlots.state(this));
  }
  blob(): Promise<unknown> {
    return bodyReaders.blob(() => responseSlots.state(this));
  }
  formData(): Promise<unknown> {
    return bodyReaders.formData(() => responseSlots.state(this));
  }
}

defineInterface(Response);
