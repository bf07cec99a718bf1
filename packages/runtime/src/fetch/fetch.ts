/**
 * fetch (Fetch, https://fetch.spec.whatwg.org/#fetch-method), over the host's __sendRequest
 * reference. The request body is read whole and the response body arrives whole: bodies are
 * buffered across the boundary. The host answers with a frame and never rejects; a thrown frame
 * becomes the error it names (a TypeError unless the host says Error, as workerd's "Network
 * connection lost." is) carrying its text. An aborted signal rejects at once with its reason and
 * tells the host to cancel the request. A data: URL is answered here, without the host.
 *
 * The asynchronous answer is only short text or a number (executor sandbox/answers.ts): the
 * frame's JSON when it is short, else the request's id, and the frame is then taken at once with a
 * synchronous call, as the body is. isolated-vm copies an asynchronous answer into the isolate in
 * a task of its own, where a copy that meets the memory limit aborts the whole process; inside a
 * synchronous call it ends only this run.
 */
import { abortSlots } from '../abort/abort-signal.ts';
import { virtualClock } from '../date.ts';
import { hostOf } from '../host.ts';
import { assertRequestScope, markObserved } from '../internals.ts';
import { memoryLimitBytes } from '../memory-limit.ts';
import { loadPiece, type Pieces } from '../pieces.ts';
import {
  ErrorCtor,
  JSONParse,
  ObjectFreeze,
  PromiseCtor,
  PromisePrototypeThen,
  StringPrototypeStartsWith,
  TypedArrayPrototypeGetByteLength,
  TypeErrorCtor,
  Uint8ArrayCtor,
} from '../primordials.ts';
import { Body } from './body.ts';
import { PIECE_IMPORTS } from './generated/data-url-piece-imports.generated.ts';
import { headerSlots } from './headers.ts';
import { Request, type RequestInit, requestSlots } from './request.ts';
import { Response, responseSlots } from './response.ts';
import { parseUrl } from './url.ts';

/** The request crosses copied; its answer is a promise. No prototypes, as host.ts's COPY_RESULT says why. */
const SEND_CROSSING: object = ObjectFreeze({
  __proto__: null,
  arguments: ObjectFreeze({ __proto__: null, copy: true }),
  result: ObjectFreeze({ __proto__: null, promise: true }),
});

interface WireResponse {
  status: number;
  statusText: string;
  headers: [string, string][];
  /** The body's length: its bytes are taken with a synchronous call (takeBody). */
  body: number | null;
  /** Present only when it is not the request's URL. */
  url?: string;
  redirected?: boolean;
}

let nextRequest = 1;

/**
 * The bytes of the requests whose answer has not come back. The host refuses a request past the
 * payload limit, and more in flight together, but only once it has crossed, and a header or URL of
 * a billion characters costs the program next to nothing (a rope) and the host its flat copy. So
 * the requests in flight may hand the host at most the isolate's own memory limit between them,
 * measured before they cross, as crypto.subtle's operations may (crypto/crossing.ts).
 */
let requestBytesInFlight = 0;

/** The text of the TypeError a request past that budget rejects with. */
export function requestBudgetMessage(bytes: number, limit: number, inFlight: number): string {
  return `This fetch would hand ${bytes} bytes to the host while ${inFlight} bytes of requests are in flight; requests in flight may hold at most ${limit} bytes (the execution's memory limit).`;
}

/** Counts a request in, or throws the TypeError past the budget; answers what to give back. */
function admitRequest(wire: {
  method: string;
  url: string;
  headers: [string, string][];
  body: Uint8Array | null;
}): number {
  let bytes =
    (wire.method.length + wire.url.length) * 2 +
    (wire.body === null ? 0 : TypedArrayPrototypeGetByteLength(wire.body));
  const headers = wire.headers;
  for (let index = 0; index < headers.length; index++) {
    const pair = headers[index] as [string, string];
    bytes += (pair[0].length + pair[1].length) * 2;
  }
  const limit = memoryLimitBytes();
  if (requestBytesInFlight + bytes > limit)
    throw new TypeErrorCtor(requestBudgetMessage(bytes, limit, requestBytesInFlight));
  requestBytesInFlight += bytes;
  return bytes;
}

/** The data: URL processor (./data-url.ts), a runtime piece loaded by the first data: URL fetched. */
function dataUrls(): Pieces['dataUrl'] {
  return loadPiece('dataUrl', PIECE_IMPORTS);
}

export function fetch(input: unknown, init?: RequestInit): Promise<Response> {
  return new PromiseCtor((resolve, reject) => {
    let request: Request;
    try {
      assertRequestScope();
      request = new Request(input, init);
    } catch (error) {
      reject(error);
      return;
    }
    const state = requestSlots.state(request);
    const dataUrl = StringPrototypeStartsWith(state.url, 'data:')
      ? dataUrls().processDataUrl(state.url)
      : null;
    if (dataUrl !== null) {
      resolve(dataUrlResponse(state.method, dataUrl));
      return;
    }
    const signal = state.signal;
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const url = parseUrl(state.url);
    if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      reject(new TypeErrorCtor(`Fetch API cannot load: ${state.url}`));
      return;
    }
    const host = hostOf().sendRequest;
    if (host === undefined) {
      reject(new TypeErrorCtor('fetch is not connected to the host in this isolate.'));
      return;
    }
    const id = nextRequest++;
    let settled = false;
    abortSlots.onAbort(signal, () => {
      if (settled) return;
      settled = true;
      reject(signal.reason);
      PromisePrototypeThen(host.async(['abort', id]), undefined, () => {});
    });
    const sending = async () => {
      const body = state.body === null ? null : await state.body.consume();
      const wire = {
        method: state.method,
        url: state.url,
        headers: headerSlots.pairs(state.headers),
        body,
        redirect: state.redirect,
      };
      const bytes = admitRequest(wire);
      let answer: string | number;
      try {
        answer = (await host.async(['send', id, wire], SEND_CROSSING)) as string | number;
      } finally {
        requestBytesInFlight -= bytes;
      }
      observeDurable(host, id);
      if (settled) {
        // Aborted meanwhile: what the host holds for this request is let go, never copied in.
        host.sync(['drop', id]);
        return;
      }
      // Settled only once the response is built: a take or a header that fails rejects the fetch.
      const frame = JSONParse(typeof answer === 'string' ? answer : takeFrame(host, id)) as
        | ['returned', WireResponse]
        | ['thrown', string, ('Error' | 'TypeError')?, string?];
      if (frame[0] === 'thrown') {
        settled = true;
        const failure = frame[2] === 'Error' ? new ErrorCtor(frame[1]) : new TypeErrorCtor(frame[1]);
        // The host names the cause it observed (outbound disabled), for the envelope's errorKind.
        reject(frame[3] === undefined ? failure : markObserved(failure, frame[3]));
        return;
      }
      const wireResponse = frame[1];
      const response = responseSlots.create({
        type: 'default',
        status: wireResponse.status,
        statusText: wireResponse.statusText,
        headers: wireResponse.headers,
        body: wireResponse.body === null ? null : new Body(takeBody(host, id, wireResponse.body)),
        url: wireResponse.url ?? state.url,
        redirected: wireResponse.redirected ?? false,
      });
      settled = true;
      resolve(response);
    };
    PromisePrototypeThen(sending(), undefined, (error: unknown) => {
      if (settled) return;
      settled = true;
      reject(error);
    });
  });
}

type FetchHost = NonNullable<ReturnType<typeof hostOf>['sendRequest']>;

/**
 * In a durable run (docs/durable.md), an answer takes the next place in the sequence of observed
 * settlements the moment it arrives, aborted or not, and the clock moves to the time the host
 * gives it: the host journals the answer under that place, and a resume delivers it there again.
 */
function observeDurable(host: FetchHost, id: number): void {
  const observe = virtualClock.observe;
  if (virtualClock.now === undefined || observe === undefined) return;
  const time = host.sync(['observed', id, observe()]);
  if (typeof time === 'number' && time > virtualClock.now) virtualClock.now = time;
}

/** Takes a held frame's text from the host in a synchronous call, where a copy past the limit ends the run. */
function takeFrame(host: FetchHost, id: number): string {
  const text = host.sync(['frame', id]);
  if (typeof text !== 'string') throw new TypeErrorCtor('The execution has ended.');
  return text;
}

/** An isolated-vm ExternalCopy handle as code inside the isolate sees it. */
interface BodyCopy {
  copy(options: { release: boolean; transferIn: boolean }): Uint8Array;
}

/**
 * Takes an answered body from the host in a synchronous call, at once, so no user code runs
 * between the answer and the take. The bytes move into this isolate's memory here, inside a call
 * the engine's memory limit can end cleanly: a body that does not fit ends the run with
 * MEMORY_LIMIT (an asynchronous answer carrying it would abort the whole process instead).
 */
function takeBody(host: FetchHost, id: number, length: number) {
  if (length === 0) return new Uint8ArrayCtor(0);
  const copy = host.sync(['body', id]) as BodyCopy | null;
  if (copy === null) throw new TypeErrorCtor('The execution has ended.');
  // transferIn moves the bytes instead of copying them; release frees the host's handle.
  return copy.copy({ release: true, transferIn: true });
}

/**
 * The response to a data: URL, as workerd builds it: 200 OK, the MIME type as Content-Type in
 * headers the program may change, the payload as the body of a GET (any other method gets none),
 * and no URL. workerd answers before it looks at the request's signal, so an aborted one is ignored.
 */
function dataUrlResponse(method: string, dataUrl: { mimeType: string; body: Uint8Array }): Response {
  // Records with no prototype: the constructor finds only what is here (and iterates no array).
  const init = {
    __proto__: null,
    status: 200,
    statusText: 'OK',
    headers: { __proto__: null, 'content-type': dataUrl.mimeType },
  };
  return new Response(method === 'GET' ? dataUrl.body : null, init);
}
