/**
 * The host's half of outbound fetch. chooseOutbound turns the request's outbound setting into one
 * function of the wire request: null refuses without reading the request; a function the caller
 * supplied is used as it stands (wrapped to pause the run clock: the caller bounds its own
 * function); undefined has the executor perform the request natively. Both states that perform a
 * request measure it first against PAYLOAD_LIMIT, whatever transport follows.
 *
 * Native requests reach public addresses only unless the executor opts in to a range (the address
 * policy, outbound/address-policy.ts): every address they would connect to is judged before the connection
 * opens, an IP literal before the request starts and a name's every resolved address in the lookup
 * that the connection cannot bypass, on each of at most 20 redirect hops. They go through an agent
 * of their own, never an environment proxy (NODE_USE_ENV_PROXY, HTTP_PROXY), which would connect
 * to an address the policy never saw. They stop reading a response past PAYLOAD_LIMIT. On the wire
 * they look like workerd's: Host, the program's headers and a Content-Length the body implies,
 * nothing of Node's own; a gzip or br body is decoded and keeps its Content-Encoding; a failed
 * connection is workerd's plain Error, "Network connection lost.".
 */
import type { Agent } from 'node:http';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import {
  errorText,
  type HttpRequest,
  type HttpResponse,
  OutboundDisabledError,
  type OutboundMode,
  type OutboundSetting,
  PAYLOAD_LIMIT,
  PayloadTooLargeError,
} from '@supolka/codemode-protocol/wire';
import ivm from 'isolated-vm';
import { requestHash } from '../durable/fetch-journal.ts';
import type { DurableSession } from '../durable/session.ts';
import { type ClockSlot, wrapHostWait } from './bounds/clock.ts';
import { inlineText } from './crossing/answers.ts';
import { protocolSchemas } from './crossing/schemas.ts';
import { IN_FLIGHT_CALL_LIMIT } from './dispatch.ts';
import { AddressPolicy, type AddressPolicyOptions } from './outbound/address-policy.ts';
import { BodyBlocks, type BodyBudget, type BodyTicket, UNMETERED } from './outbound/body-budget.ts';
import { measureResponseHead } from './outbound/response-head.ts';

/** The caller's function for proxied outbound: it performs the request and answers the response. */
export type OutboundFunction = (
  request: HttpRequest,
  init: { signal: AbortSignal },
) => Promise<HttpResponse> | HttpResponse;

/** The tri-state: null disables, a function proxies, undefined performs natively. */
export type Outbound = OutboundSetting<OutboundFunction>;

/**
 * The tri-state chooseOutbound reads, from the request's two parts: the mode it travelled with
 * and the host's function. A mode left out is disabled, and so is `proxied` with no function to
 * serve it.
 */
export function outboundOf(mode: OutboundMode | undefined, proxy: OutboundFunction | undefined): Outbound {
  if (mode === 'native') return undefined;
  return mode === 'proxied' && proxy ? proxy : null;
}

/** Performs one request; `ticket` counts its response body against the isolate's budget as it arrives. */
export type Performer = (
  request: HttpRequest,
  signal: AbortSignal,
  ticket?: BodyTicket,
) => Promise<HttpResponse>;

/** The address policy's opt-ins and the executor's own endpoints (outbound/address-policy.ts). */
export type NativeOptions = AddressPolicyOptions;

/**
 * node:http, node:https, node:zlib and node:dns, loaded with the first native request: together
 * they cost a process about 11 MB resident, which a pool child at rest need not hold
 * (docs/pool.md, "Memory"), and most runs make no native request.
 */
const builtin = process.getBuiltinModule.bind(process);

/**
 * Agents of native fetch's own: a request with an explicit agent never goes through the global
 * agent, which Node 24 points at HTTP_PROXY/HTTPS_PROXY when NODE_USE_ENV_PROXY is set.
 */
let agents: { readonly 'http:': Agent; readonly 'https:': Agent } | undefined;
const agentFor = (protocol: string): Agent => {
  agents ??= { 'http:': new (builtin('node:http').Agent)(), 'https:': new (builtin('node:https').Agent)() };
  return agents[protocol === 'https:' ? 'https:' : 'http:'];
};

export const MAX_REDIRECTS = 20;

/** workerd's text for a request whose connection failed: refused, reset, unreachable, TLS. */
export const NETWORK_LOST_MESSAGE = 'Network connection lost.';

/** The text for a server that answers by switching protocols, which native fetch does not speak. */
export const PROTOCOL_SWITCH_MESSAGE =
  'Native fetch does not follow a switch of protocols (a 101 response, or a CONNECT tunnel).';

/** A failure of the connection itself, which the program sees as workerd's plain Error. */
export class NetworkError extends Error {
  constructor(cause: unknown) {
    super(NETWORK_LOST_MESSAGE, { cause });
  }
}

/** The method, the URL, every header name and value, and the body bytes. */
function requestSize(request: HttpRequest): number {
  let size = request.method.length + request.url.length + (request.body?.byteLength ?? 0);
  for (const [name, value] of request.headers) size += name.length + value.length;
  return size;
}

/** Refuses a request past PAYLOAD_LIMIT. */
export function measureRequest(request: HttpRequest): void {
  const size = requestSize(request);
  if (size > PAYLOAD_LIMIT) throw new PayloadTooLargeError('outbound request', size, PAYLOAD_LIMIT);
}

export function chooseOutbound(outbound: Outbound, slot: ClockSlot, options: NativeOptions = {}): Performer {
  if (outbound === null) return () => Promise.reject(new OutboundDisabledError());
  if (typeof outbound === 'function') {
    const proxied = wrapHostWait(slot, async (request: HttpRequest, signal: AbortSignal) => {
      const response = await outbound(request, { signal });
      // The caller's answer is checked like any message: a broken one is a clear error, not a crash.
      const { validate, HttpResponseSchema } = await protocolSchemas();
      return validate(HttpResponseSchema, response, 'outbound response');
    });
    return async (request, signal, ticket = UNMETERED) => {
      measureRequest(request);
      const response = await proxied(request, signal);
      // The caller's body arrives whole: it is counted as it lands.
      ticket.add(response.body?.byteLength ?? 0);
      return response;
    };
  }
  return async (request, signal, ticket) => {
    measureRequest(request);
    return nativeFetch(request, signal, options, ticket);
  };
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Performs `request` with node:http(s), every connection's address checked as it is resolved. */
export async function nativeFetch(
  request: HttpRequest,
  signal: AbortSignal,
  options: NativeOptions = {},
  ticket: BodyTicket = UNMETERED,
): Promise<HttpResponse> {
  const policy = new AddressPolicy(options);
  let current = request;
  /** Every URL requested so far, which workerd's redirect-limit error lists. */
  const urls = [request.url];
  for (;;) {
    const response = await send(current, signal, policy, ticket);
    const location = response.headers.find(([name]) => name.toLowerCase() === 'location')?.[1];
    if (!REDIRECTS.has(response.status) || location === undefined || current.redirect === 'manual') {
      return urls.length === 1 ? response : { ...response, redirected: true };
    }
    if (current.redirect === 'error')
      throw new TypeError(`Fetch to ${current.url} was redirected while redirect is 'error'.`);
    const next = URL.parse(location, current.url);
    if (next === null) throw new TypeError('Invalid Location header; unable to follow redirect.');
    if (urls.length > MAX_REDIRECTS) throw new TypeError(`Too many redirects.${urls.join(', ')}`);
    if (next.protocol !== 'http:' && next.protocol !== 'https:')
      throw new TypeError(`Fetch API cannot load: ${next.href}`);
    urls.push(next.href);
    // The redirect's own body is dropped: its bytes leave the budget.
    ticket.release();
    // https://fetch.spec.whatwg.org/#http-redirect-fetch, step 13: credentials stay with their origin.
    const headers =
      next.origin === new URL(current.url).origin
        ? current.headers
        : current.headers.filter(([name]) => name.toLowerCase() !== 'authorization');
    // https://fetch.spec.whatwg.org/#http-redirect-fetch, step 12: 303, and 301/302 after POST, become
    // GET without a body. The standard also drops the Content-* headers; workerd keeps them.
    const becomesGet =
      response.status === 303
        ? current.method !== 'HEAD'
        : (response.status === 301 || response.status === 302) && current.method === 'POST';
    current = { ...current, url: next.href, headers, ...(becomesGet ? { method: 'GET', body: null } : {}) };
  }
}

/**
 * A header value as bytes on the wire, in the latin1 string Node writes: Latin-1 text byte for
 * byte and anything wider as UTF-8, which is what workerd sends for either.
 */
function wireValue(value: string): string {
  return /[\u0100-\uffff]/.test(value) ? Buffer.from(value, 'utf8').toString('latin1') : value;
}

/**
 * The request's headers as Node sets them: Host from the URL, then the program's, repeated names
 * as one list; Content-Length and Transfer-Encoding are the body's to decide, never the program's.
 */
function outgoingHeaders(request: HttpRequest, url: URL): Map<string, { name: string; values: string[] }> {
  const headers = new Map([['host', { name: 'host', values: [url.host] }]]);
  for (const [name, value] of request.headers) {
    const key = name.toLowerCase();
    if (key === 'host' || key === 'content-length' || key === 'transfer-encoding') continue;
    const entry = headers.get(key);
    if (entry === undefined) headers.set(key, { name, values: [wireValue(value)] });
    else entry.values.push(wireValue(value));
  }
  if (request.body !== null) {
    headers.set('content-length', { name: 'content-length', values: [String(request.body.byteLength)] });
  }
  return headers;
}

/** A decoder for the encodings workerd decodes: exactly `gzip`, and `br`. */
function decoderFor(encoding: string | undefined) {
  if (encoding === 'gzip') return builtin('node:zlib').createGunzip();
  if (encoding === 'br') return builtin('node:zlib').createBrotliDecompress();
  return undefined;
}

function send(
  request: HttpRequest,
  signal: AbortSignal,
  policy: AddressPolicy,
  ticket: BodyTicket,
): Promise<HttpResponse> {
  return new Promise<HttpResponse>((resolve, reject) => {
    const url = new URL(request.url);
    const hostname = url.hostname.replace(/^\[|\]$/g, '');
    const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    // An IP literal never reaches the lookup below: it is judged here, before the request starts.
    const refused = isIP(hostname) ? policy.refusal(hostname, port) : policy.nameRefusal(hostname);
    if (refused !== undefined) {
      reject(new TypeError(refused));
      return;
    }
    const client = url.protocol === 'https:' ? builtin('node:https') : builtin('node:http');
    const dnsLookup = builtin('node:dns').lookup;
    const outgoing = client.request(
      url,
      {
        method: request.method,
        signal,
        agent: agentFor(url.protocol),
        // Every address of the answer is judged, since the connection may try any of them
        // (autoSelectFamily); one refused address refuses the name.
        lookup: (host, lookupOptions, callback) =>
          dnsLookup(host, { ...lookupOptions, all: true }, (error, addresses) => {
            if (error) return callback(error, '', 4);
            const list = addresses as { address: string; family: number }[];
            for (const { address } of list) {
              const why = policy.refusal(address, port);
              if (why !== undefined) return callback(new TypeError(why), '', 4);
            }
            if ((lookupOptions as { all?: boolean }).all)
              return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
            const first = list[0] as { address: string; family: number };
            callback(null, first.address, first.family);
          }),
      },
      (incoming) => {
        const status = incoming.statusCode ?? 0;
        const pairs: [string, string][] = [];
        for (let index = 0; index < incoming.rawHeaders.length; index += 2) {
          pairs.push([incoming.rawHeaders[index] as string, incoming.rawHeaders[index + 1] as string]);
        }
        incoming.on('error', (error) => reject(new NetworkError(error)));
        const decoder = decoderFor(incoming.headers['content-encoding']);
        // A body that does not decode fails with the decoder's text, and its connection ends with
        // it: the request is no longer in flight, so nothing would abort it at the run's end.
        decoder?.on('error', (error) => {
          outgoing.destroy();
          reject(error);
        });
        const stream = decoder ? incoming.pipe(decoder) : incoming;
        const body = new BodyBlocks();
        let received = 0;
        stream.on('data', (chunk: Buffer) => {
          received += chunk.byteLength;
          try {
            if (received > PAYLOAD_LIMIT)
              throw new PayloadTooLargeError('outbound response', received, PAYLOAD_LIMIT);
            // Decoded bytes are counted: a small gzip body that inflates stops at the budget.
            ticket.add(chunk.byteLength);
          } catch (error) {
            outgoing.destroy();
            stream.destroy();
            reject(error);
            return;
          }
          body.push(chunk);
        });
        stream.on('end', () => {
          resolve({
            status: status < 100 || status > 599 ? 502 : status,
            statusText: incoming.statusMessage ?? '',
            // As workerd's: the headers as they came, Content-Encoding and Content-Length included.
            headers: pairs,
            body:
              request.method === 'HEAD' || [101, 103, 204, 205, 304].includes(status) ? null : body.bytes(),
            url: request.url,
          });
        });
      },
    );
    // A 101, or a CONNECT's 2xx, hands over the socket instead of a response; unheard, Node destroys
    // the socket and never answers, and the fetch would wait for the run's end even when aborted.
    const switched = (_: unknown, socket: Duplex) => {
      socket.destroy();
      reject(new TypeError(PROTOCOL_SWITCH_MESSAGE));
    };
    outgoing.on('upgrade', switched);
    outgoing.on('connect', switched);
    // The address refusal arrives as a TypeError of ours; every other error is the connection's.
    outgoing.on('error', (error) => reject(error instanceof TypeError ? error : new NetworkError(error)));
    try {
      // Set here rather than as options, so Node adds no header of its own: removing Connection
      // (when the program set none) keeps Node's default Connection: keep-alive off the wire.
      for (const { name, values } of outgoingHeaders(request, url).values()) {
        outgoing.setHeader(name, values.length === 1 ? (values[0] as string) : values);
      }
      if (!outgoing.hasHeader('connection')) outgoing.removeHeader('connection');
    } catch (error) {
      // Node refuses a name that is not an RFC 9110 token, or a control character in a value.
      outgoing.destroy();
      reject(error);
      return;
    }
    if (request.body !== null && request.body.byteLength > 0) outgoing.end(request.body);
    else outgoing.end();
  });
}

/** What crosses back for one request: ['returned', response with its body's length] or ['thrown', text, 'Error'?]. */
type Frame =
  | readonly ['returned', WireAnswer]
  | readonly ['thrown', string]
  | readonly ['thrown', string, 'Error' | 'TypeError']
  | readonly ['thrown', string, 'TypeError', 'outbound-disabled'];

/** A response as its frame carries it: the body is its length, the URL only when not the request's. */
interface WireAnswer {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: number | null;
  url?: string;
  redirected?: true;
}

/** A request's answer before it is held for the isolate: its frame, and a body the isolate will take. */
interface Answered {
  readonly frame: Frame;
  readonly body?: Uint8Array;
  readonly ticket?: BodyTicket;
}

/** What the host holds of an answered request until the isolate takes it, or the run ends. */
interface Held {
  frame?: string;
  body?: ivm.ExternalCopy<Uint8Array>;
  ticket?: BodyTicket;
}

/**
 * The reference the runtime's fetch calls. `send` answers asynchronously, never rejecting, with
 * the frame's JSON text when it is short (crossing/answers.ts) or else the request's id, under which the
 * host holds the text for the synchronous `frame` call; a body is held for the synchronous `body`
 * call; `drop` lets go of what a settled fetch will not take; `abortAll` cancels what is still in
 * flight when the run ends, and drops what is held.
 *
 * In a durable run (`durable` answers its session) every request goes through the session, which
 * journals its answer or, in a resume, answers it from the journal without sending it; the
 * isolate tells the host with `observed` the sequence under which it saw each answer
 * (docs/durable.md, "Fetch").
 *
 * Requests in flight are bounded as tool calls are (IN_FLIGHT_CALL_LIMIT, and PAYLOAD_LIMIT bytes
 * together): each one is held on the host until its answer, where the isolate's memory limit no
 * longer meters it, so without a bound a program could park gigabytes on the host. Response
 * bodies are bounded by the isolate's BodyBudget, counted as they arrive and decode; a response's
 * head by RESPONSE_HEAD_LIMIT (outbound/response-head.ts).
 *
 * Nothing of program size crosses in the asynchronous answer: isolated-vm copies it into the
 * isolate in a task of its own, and when that copy changes the isolate's external memory (an
 * ArrayBuffer, a string of 1024 bytes or more) and finds it past the isolate's memory limit, the
 * engine's termination is thrown where nothing catches it: the whole child aborts (SIGABRT,
 * std::exception), taking every other execution in it. A 200 KiB header, status text or URL
 * arriving while the program filled its heap did so, as bodies had. Taken inside a synchronous
 * call, a frame or body that does not fit ends only its own run, with MEMORY_LIMIT, as any
 * allocation past the limit does.
 */
export function hostSendRequest(
  perform: () => Performer | undefined,
  alive: () => boolean,
  budget: BodyBudget,
  durable: () => DurableSession | undefined = () => undefined,
) {
  const inFlight = new Map<number, AbortController>();
  let inFlightBytes = 0;
  /** What answered requests left for the isolate to take, by request id. */
  const held = new Map<number, Held>();
  const drop = (id: number) => {
    const entry = held.get(id);
    held.delete(id);
    entry?.body?.release();
    entry?.ticket?.release();
  };
  const abortAll = () => {
    for (const controller of inFlight.values()) controller.abort();
    for (const id of [...held.keys()]) drop(id);
  };
  /** The frame of an answered request, once. */
  const takeFrame = (id: number) => {
    const entry = held.get(id);
    const frame = entry?.frame;
    if (entry === undefined || frame === undefined) return null;
    delete entry.frame;
    if (entry.body === undefined) held.delete(id);
    return frame;
  };
  /** The body of an answered request, once: its bytes leave the host's budget as the isolate takes them. */
  const takeBody = (id: number) => {
    const entry = held.get(id);
    if (entry?.body === undefined) return null;
    held.delete(id);
    entry.ticket?.release();
    return entry.body;
  };
  /** The frame's text as it crosses: itself when short, else the id it is held under. */
  const answer = (id: number, text: string, entry: Held = {}): string | number => {
    const inline = inlineText(text);
    if (!alive()) {
      // No one will take it: the isolate is gone.
      entry.body?.release();
      entry.ticket?.release();
      return inline ?? id;
    }
    if (inline === undefined) entry.frame = text;
    if (entry.frame !== undefined || entry.body !== undefined) held.set(id, entry);
    return inline ?? id;
  };
  const request = async (id: number, wire: HttpRequest): Promise<Answered> => {
    const performer = perform();
    if (performer === undefined || !alive()) return { frame: ['thrown', 'The execution has ended.'] };
    const size = requestSize(wire);
    if (inFlight.size >= IN_FLIGHT_CALL_LIMIT) {
      return {
        frame: [
          'thrown',
          `Too many fetch requests are in flight: one execution may have at most ${IN_FLIGHT_CALL_LIMIT} at once.`,
        ],
      };
    }
    if (inFlightBytes + size > PAYLOAD_LIMIT && inFlight.size > 0) {
      return {
        frame: [
          'thrown',
          new PayloadTooLargeError('set of fetch requests in flight', inFlightBytes + size, PAYLOAD_LIMIT)
            .message,
        ],
      };
    }
    const controller = new AbortController();
    inFlight.set(id, controller);
    inFlightBytes += size;
    const ticket = budget.ticket();
    try {
      const response = await performer(wire, controller.signal, ticket);
      measureResponseHead(response, wire.url);
      const body = response.body;
      // An aborted fetch has settled in the isolate and will take nothing: nothing is held for it.
      const kept = body !== null && body.byteLength > 0 && alive() && !controller.signal.aborted;
      if (!kept) ticket.release();
      // A view crosses as its own bytes: isolated-vm's ExternalCopy of a view copies the whole
      // ArrayBuffer under it (a pooled Buffer's 64 KiB of whatever else the host keeps there).
      // new Uint8Array copies into a buffer of its own; a Buffer's slice would be another view.
      const own =
        !kept || (body.byteOffset === 0 && body.byteLength === body.buffer.byteLength)
          ? body
          : new Uint8Array(body);
      const frame: Frame = [
        'returned',
        {
          status: response.status,
          statusText: response.statusText,
          headers: response.headers,
          body: body === null ? null : body.byteLength,
          ...(response.url !== undefined && response.url !== wire.url ? { url: response.url } : {}),
          ...(response.redirected === true ? { redirected: true } : {}),
        },
      ];
      return kept ? { frame, body: own as Uint8Array, ticket } : { frame };
    } catch (error) {
      ticket.release();
      // The runtime raises a network failure as workerd does, a plain Error; the rest as TypeError.
      // A refusal of the disabled state names its cause, for the envelope's errorKind.
      if (error instanceof OutboundDisabledError)
        return { frame: ['thrown', error.message, 'TypeError', 'outbound-disabled'] };
      return {
        frame:
          error instanceof NetworkError ? ['thrown', error.message, 'Error'] : ['thrown', errorText(error)],
      };
    } finally {
      inFlight.delete(id);
      inFlightBytes -= size;
    }
  };
  /** The answer held for the isolate under the request's id: its body copied out of the host's heap. */
  const hold = (id: number, text: string, body: Uint8Array | null | undefined, ticket?: BodyTicket) => {
    if (body === null || body === undefined || !alive()) {
      ticket?.release();
      return answer(id, text);
    }
    return answer(id, text, { body: new ivm.ExternalCopy(body), ...(ticket ? { ticket } : {}) });
  };
  /** A durable run's request, through its session: journaled, or answered from the journal. */
  const durableRequest = (session: DurableSession, id: number, wire: HttpRequest) => {
    let ticket: BodyTicket | undefined;
    return session
      .fetch(id, requestHash(wire), async () => {
        const answered = await request(id, wire);
        ticket = answered.ticket;
        return { frame: JSON.stringify(answered.frame), body: answered.body ?? null };
      })
      .then((answered) => hold(id, answered.frame, answered.body, ticket));
  };
  /** Not async itself: `frame`, `body`, `drop` and `observed` are called synchronously and answer at once. */
  const send = (
    operation: 'send' | 'abort' | 'frame' | 'body' | 'drop' | 'observed',
    id: number,
    wire?: HttpRequest | number,
  ) => {
    if (operation === 'frame') return takeFrame(id);
    if (operation === 'body') return takeBody(id);
    if (operation === 'drop') return drop(id);
    // A durable run's isolate observed the answer under this sequence: the clock's time comes back.
    if (operation === 'observed') return durable()?.fetchObserved(id, wire as number);
    if (operation === 'abort') {
      inFlight.get(id)?.abort();
      return Promise.resolve(null);
    }
    const session = durable();
    if (session !== undefined) return durableRequest(session, id, wire as HttpRequest);
    return request(id, wire as HttpRequest).then((answered) =>
      hold(id, JSON.stringify(answered.frame), answered.body, answered.ticket),
    );
  };
  return { send, abortAll };
}
