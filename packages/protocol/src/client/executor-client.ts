/**
 * ExecutorClient: drives a remote executor server over one WebSocket while serving the program's
 * tools and proxied fetches on this side. It runs wherever a standard WebSocket exists (browsers,
 * Deno, Workers, Node 22+) and imports nothing beyond this package.
 *
 *   const client = await ExecutorClient.connect(new WebSocket(url), { token });
 *   const { result } = await client.execute({
 *     code: 'async () => math.add(1, 2)',
 *     providers: [{ name: 'math', fns: { add: (a, b) => a + b } }],
 *   });
 *
 * Executions multiplex over the socket, each under its own id. execute never rejects: a bad
 * request, a cancellation and a dropped socket all come back as envelopes with their code.
 * Reconnecting is the caller's choice: a closed client stays closed.
 */

import { splitRequest } from '../check-request.ts';
import { stringifyForDispatch } from '../codec.ts';
import { echo, REASON_ECHO_LIMIT } from '../echo.ts';
import { faultEnvelope, shapeEnvelope } from '../envelope-shape.ts';
import {
  BadRequestError,
  CodemodeError,
  cancelledMessage,
  EXECUTION_COMPLETED_MESSAGE,
  errorText,
  PayloadTooLargeError,
  toolNotFoundEnvelope,
  workerLostMessage,
} from '../errors.ts';
import type { DispatchFunction, OutboundSetting, ToolProvider } from '../host-part.ts';
import { IN_FLIGHT_CALL_LIMIT, PAYLOAD_LIMIT } from '../limits.ts';
import type { Message, MessageOf } from '../messages.ts';
import { isPauseSignal } from '../pause-signal.ts';
import type { PauseMessage } from '../schemas/durable.ts';
import type { ExecuteResult, LogLine } from '../schemas/envelope.ts';
import type { Fault } from '../schemas/fault.ts';
import {
  type DispatchFrame,
  type HttpRequest,
  type HttpResponse,
  HttpResponseSchema,
  type OutboundFrame,
} from '../schemas/frames.ts';
import type { CallerRequest, RequestParts } from '../split-request.ts';
import { decodeMessage, encodeMessage, validate } from '../validate.ts';
import {
  CANCEL_REASON_PROTOCOL_VERSION,
  CONSOLE_PROTOCOL_VERSION,
  DETAILS_PROTOCOL_VERSION,
  DURABLE_PROTOCOL_VERSION,
  MIN_PROTOCOL_VERSION,
  PROTOCOL_VERSION,
} from '../version.ts';
import { withDurableCall } from './durable-call.ts';
import { fromWireResponse, isResponseLike, toWireRequest, toWireResponse } from './http.ts';
import { answersOnTheWire, type ClientResumeAnswers } from './resume-answers.ts';
import {
  CLOSE_CODES,
  clientVersionMessage,
  connectionClosedCause,
  connectionClosedMessage,
  connectRefusedMessage,
  consoleFormatVersionMessage,
  durableVersionMessage,
  strayCallReason,
  tooManyServedMessage,
  unreadAnswersReason,
} from './texts.ts';
import {
  type AbortSignalLike,
  CLOSING,
  type CloseEventLike,
  CONNECTING,
  type MessageEventLike,
  OPEN,
  platform,
  type RequestLike,
  type ResponseLike,
  type WebSocketLike,
} from './web.ts';

export type { ToolFunction } from '../host-part.ts';

/** A namespace of tools as the client serves it: the wire descriptor and its `fns`. */
export type ClientProvider = ToolProvider;

/** Performs one proxied fetch of the program: answers the wire response or a standard Response. */
export type OutboundHandler = (
  request: HttpRequest,
  init: { readonly signal: AbortSignalLike },
) => HttpResponse | ResponseLike | Promise<HttpResponse | ResponseLike>;

export interface ClientExecuteRequest extends CallerRequest<OutboundHandler> {
  /**
   * A function proxies the program's fetch through it; `null` or no key disables fetch;
   * `undefined` written out asks the server to fetch natively, which it refuses unless enabled.
   */
  readonly outbound?: OutboundSetting<OutboundHandler>;
}

export interface ClientExecuteOptions {
  /**
   * Aborting sends `cancel`; the envelope comes back with code CANCELLED. Aborted with an Error, the
   * error repeats its message, as IsolateExecutor's does (a server of protocol version 3 or later).
   */
  readonly signal?: AbortSignalLike;
  /**
   * The run's console lines while it goes, in batches, before its envelope (which has them all
   * too). Needs a server of protocol version 2 or later: with an older one the lines come only in
   * the envelope. A throw from it is dropped.
   */
  readonly onConsole?: (lines: readonly LogLine[]) => void;
}

export interface ConnectOptions {
  /**
   * The bearer token, sent in the first message. Leave it out when the socket's upgrade already
   * carried it in an Authorization header (runtimes whose WebSocket takes headers).
   */
  readonly token?: string;
  /** How long to wait for the server's hello, in ms (default 10000). */
  readonly helloTimeout?: number;
  /** Faults the server sends outside any conversation (a message of ours it could not accept). */
  readonly onFault?: (fault: Fault) => void;
}

/**
 * Tool calls and outbound requests of one conversation this client runs at once; one past it is
 * answered with a thrown frame saying so, and its function is not called. A server streaming calls
 * it never let the client answer had it run 4400 at once and grow by 270 MB a second (measured).
 * Four times what a sandbox holds in flight (IN_FLIGHT_CALL_LIMIT): a server gives a call up at its
 * `dispatchTimeout` and the program may call again while the client's function still runs.
 */
export const SERVED_CALL_LIMIT = 4 * IN_FLIGHT_CALL_LIMIT;

/**
 * Bytes of answers left unsent past which a call this client refuses (past SERVED_CALL_LIMIT, or
 * for an execution that has ended) ends the connection instead: a server that keeps sending such
 * calls and reads none of the answers had the client queue them without end (300,000 of them held
 * 390 MB, measured). A server that reads drains them; only one that does not reaches this.
 */
export const REFUSAL_BACKLOG = 1024 * 1024;

/**
 * How long an aborted execution waits for the server's CANCELLED before it settles with one of its
 * own, in ms: a server that never answers the cancel must not hold the caller for ever.
 */
export const CANCEL_ANSWER_GRACE = 10_000;

/** What a call meets when the connection ends before its answer, or what connect meets before the hello. */
export class ConnectionClosedError extends Error {
  override name = 'ConnectionClosedError';
  readonly code = 'CONNECTION_CLOSED';
  readonly closeCode: number;
  readonly reason: string;
  /** `beforeHello`: connect met it, and a 1006 then most likely means the server refused the upgrade. */
  constructor(closeCode: number, reason: string, beforeHello = false) {
    super(
      beforeHello && closeCode === ABNORMAL_CLOSURE
        ? connectRefusedMessage(closeCode, reason)
        : connectionClosedMessage(closeCode, reason),
    );
    this.closeCode = closeCode;
    this.reason = reason;
  }
}

const DEFAULT_HELLO_TIMEOUT = 10_000;

/** The close code a WebSocket reports when no closing handshake took place (RFC 6455, 7.1.5). */
const ABNORMAL_CLOSURE = 1006;

/** What answers a call of the server's. */
type Reply = MessageOf<'dispatchReply'> | MessageOf<'outboundReply'>;

interface Execution {
  readonly kind: 'execute';
  /** Serves the program's tool calls from the request's `fns`; none when no provider has them. */
  readonly dispatch: DispatchFunction | undefined;
  readonly outbound: OutboundHandler | undefined;
  /** Aborted when the execution ends: proxied fetches still running are no longer wanted. */
  readonly ended: { readonly signal: AbortSignalLike; abort(reason?: unknown): void };
  readonly onConsole: ((lines: readonly LogLine[]) => void) | undefined;
  finish(envelope: ExecuteResult): void;
}

interface Call {
  readonly kind: 'call';
  readonly expects: 'invokeResult' | 'ack' | 'discarded';
  resolve(message: Message): void;
  reject(error: Error): void;
}

interface Handshake {
  resolve(hello: MessageOf<'hello'>): void;
  reject(error: Error): void;
}

export class ExecutorClient {
  readonly #socket: WebSocketLike;
  readonly #onFault: ((fault: Fault) => void) | undefined;
  readonly #conversations = new Map<string, Execution | Call>();
  /** Calls served now, by conversation (SERVED_CALL_LIMIT). */
  readonly #served = new Map<string, number>();
  /**
   * Executions that granted handles, by conversation id, with the executionId the server handed
   * out: their invocations call this side's tools and fetch as the granting execution did, until
   * closeHandles here meets or closes them, or the connection ends. Handles the server closed on
   * its own (idle, a bound) are let go when a call here meets HANDLES_CLOSED for them.
   */
  readonly #holding = new Map<string, { readonly execution: Execution; readonly executionId: string }>();
  #handshake: Handshake | undefined;
  #next = 0;
  #closed: { code: number; reason: string } | undefined;
  #instance: string | undefined;
  /** The version the hello agreed on. */
  #protocol = MIN_PROTOCOL_VERSION;

  /**
   * Opens a session over `socket` (connecting or open): sends the hello, with the token when
   * given, and resolves once the server answers with its own. Rejects with the server's fault
   * (no token, a wrong token in the upgrade or the hello, another protocol version), or
   * ConnectionClosedError when the socket closes first. A server that refused the upgrade with an
   * HTTP status (403 for an origin it does not allow, 503 at capacity) shows as a close with code
   * 1006, since WebSocket reports no HTTP status; the error's message names those causes.
   */
  static connect(socket: WebSocketLike, options: ConnectOptions = {}): Promise<ExecutorClient> {
    const client = new ExecutorClient(socket, options.onFault);
    return client.#open(options).then(() => client);
  }

  private constructor(socket: WebSocketLike, onFault: ((fault: Fault) => void) | undefined) {
    this.#socket = socket;
    this.#onFault = onFault;
    socket.addEventListener('message', this.#onMessage);
    socket.addEventListener('close', this.#onClose);
  }

  /** The server's name for load-balancer routing, when it has one (docs/server.md). */
  get instance(): string | undefined {
    return this.#instance;
  }

  get closed(): boolean {
    return this.#closed !== undefined;
  }

  /** The protocol version the hello agreed on with the server. */
  get protocol(): number {
    return this.#protocol;
  }

  /**
   * How the connection closed, once it has: the WebSocket close code and reason. A server that
   * shuts down closes with 1001 (CLOSE_CODES.goingAway) only after every execution it ran has
   * its envelope sent, so an execution that read WORKER_LOST from that close never ran and can
   * be sent again elsewhere; after any other close (1006: the server or the network was lost) it
   * may have run, tools and all (docs/deploy.md, "Failure model across servers").
   */
  get closedWith(): { readonly code: number; readonly reason: string } | undefined {
    return this.#closed;
  }

  /**
   * Runs `request.code` on the server, serving its tool calls from `providers[].fns` and its
   * proxied fetches from `outbound`. Resolves to the envelope; never rejects.
   */
  execute(request: ClientExecuteRequest, options: ClientExecuteOptions = {}): Promise<ExecuteResult> {
    return this.#run(request, options, (id, wire, streamConsole) => ({
      type: 'execute',
      id,
      request: wire,
      ...(streamConsole ? { streamConsole } : {}),
    }));
  }

  /**
   * Resumes a paused durable run on the server (docs/durable.md, "Over the wire"): `token` is the
   * paused envelope's, `answers` one answer per pending call by sequence (`{ result }`,
   * `{ error }`, or `{ perform: true }`, which calls the tool on this side with the idempotency
   * key durableCall() reads), and `request` the request it paused under, with its tools. Any
   * server holding the key resumes it. Resolves to the envelope, which may pause again; a refused
   * token comes back with its code. Needs a server of protocol version 3. Never rejects.
   */
  resume(
    token: string,
    answers: ClientResumeAnswers,
    request: ClientExecuteRequest,
    options: ClientExecuteOptions = {},
  ): Promise<ExecuteResult> {
    if (typeof token !== 'string')
      return Promise.resolve(faultEnvelope('BAD_REQUEST', 'The token to resume must be a string.'));
    if (this.#protocol < DURABLE_PROTOCOL_VERSION)
      return Promise.resolve(faultEnvelope('BAD_REQUEST', durableVersionMessage(this.#protocol)));
    return this.#run(request, options, (id, wire, streamConsole) => ({
      type: 'resume',
      id,
      token,
      answers: answersOnTheWire(answers),
      request: wire,
      ...(streamConsole ? { streamConsole } : {}),
    }));
  }

  /**
   * Spends a paused run's token without resuming it: the server opens it as a resume of `request`
   * would, and with a claim store records it as used. Resolves to the token's id and whether a
   * store spent it (without one the token resumes until it expires); rejects with the server's
   * coded error (a durable token code) or ConnectionClosedError. Needs protocol version 3.
   */
  async discard(
    token: string,
    request: ClientExecuteRequest,
  ): Promise<{ readonly tokenId: string; readonly claimed: boolean }> {
    if (this.#protocol < DURABLE_PROTOCOL_VERSION)
      throw new BadRequestError(durableVersionMessage(this.#protocol));
    const { wire } = splitRequest<OutboundHandler>(request);
    const answer = (await this.#call('discarded', (id) => ({
      type: 'discard',
      id,
      token,
      request: wire,
    }))) as MessageOf<'discarded'>;
    return { tokenId: answer.tokenId, claimed: answer.claimed };
  }

  /** One execution's conversation, opened by the message `build` makes (an execute, or a resume). */
  #run(
    request: ClientExecuteRequest,
    options: ClientExecuteOptions,
    build: (id: string, wire: RequestParts<OutboundHandler>['wire'], streamConsole: boolean) => Message,
  ): Promise<ExecuteResult> {
    if (this.#closed) return Promise.resolve(this.#lostEnvelope());
    let split: RequestParts<OutboundHandler>;
    try {
      // A tool's pause signal leaves its dispatch as a throw, for #serveDispatch to answer with `paused`.
      split = splitRequest<OutboundHandler>(request, { passThrough: isPauseSignal });
    } catch (error) {
      return Promise.resolve(faultEnvelope('BAD_REQUEST', (error as Error).message));
    }
    const { signal, onConsole } = options;
    if (onConsole !== undefined && typeof onConsole !== 'function') {
      return Promise.resolve(faultEnvelope('BAD_REQUEST', 'options.onConsole must be a function.'));
    }
    if (signal?.aborted)
      return Promise.resolve(faultEnvelope('CANCELLED', cancelledMessage(cancelReason(signal))));
    if (split.wire.consoleFormat !== undefined && this.#protocol < DETAILS_PROTOCOL_VERSION)
      return Promise.resolve(faultEnvelope('BAD_REQUEST', consoleFormatVersionMessage(this.#protocol)));
    if (split.wire.durable === true && this.#protocol < DURABLE_PROTOCOL_VERSION)
      return Promise.resolve(faultEnvelope('BAD_REQUEST', durableVersionMessage(this.#protocol)));
    // Asked for only where the server speaks it: an older one would refuse nothing, and send nothing.
    const streamConsole = onConsole !== undefined && this.#protocol >= CONSOLE_PROTOCOL_VERSION;
    const id = this.#id();
    return new Promise<ExecuteResult>((resolve) => {
      let unanswered: ReturnType<typeof platform.setTimeout> | undefined;
      const cancel = () => {
        // Only to a server that takes it: one of version 2 refuses a cancel with a key it does not know.
        const reason = this.#protocol >= CANCEL_REASON_PROTOCOL_VERSION ? cancelReason(signal) : undefined;
        this.#trySend({ type: 'cancel', id, ...(reason !== undefined ? { reason } : {}) });
        // The server's own CANCELLED (with the run's logs) is the answer; past the grace, this one.
        unanswered = platform.setTimeout(
          () => execution.finish(faultEnvelope('CANCELLED', cancelledMessage(cancelReason(signal)))),
          CANCEL_ANSWER_GRACE,
        );
      };
      const execution: Execution = {
        kind: 'execute',
        dispatch: split.host.dispatch,
        outbound: split.host.outbound,
        ended: new platform.AbortController(),
        onConsole,
        finish: (envelope) => {
          if (this.#conversations.get(id) !== execution) return;
          this.#conversations.delete(id);
          signal?.removeEventListener('abort', cancel);
          if (unanswered !== undefined) platform.clearTimeout(unanswered);
          // A grant keeps the functions serving its invocations (and their signal unaborted).
          if (envelope.executionId !== undefined && !this.#closed)
            this.#holding.set(id, { execution, executionId: envelope.executionId });
          else execution.ended.abort(new Error('The execution has ended.'));
          resolve(envelope);
        },
      };
      this.#conversations.set(id, execution);
      try {
        this.#send(build(id, split.wire, streamConsole));
      } catch (error) {
        // A socket already closing fires its close soon: the execution settles with that close's
        // code (1001 from a server shutting down), which tells the caller whether to send it again.
        if (error instanceof ConnectionClosedError && this.#socket.readyState === CLOSING) return;
        execution.finish(envelopeFromError(error));
        return;
      }
      signal?.addEventListener('abort', cancel, { once: true });
    });
  }

  /**
   * Calls a handler the retained execution `executionId` granted, with a standard Request.
   * Rejects with the server's coded error (HANDLES_CLOSED, HANDLE_NOT_FOUND, ...) or
   * ConnectionClosedError.
   */
  async invoke(executionId: string, request: RequestLike, handle = 'fetch'): Promise<ResponseLike> {
    const wire = await toWireRequest(request);
    const answer = await this.#heldCall(executionId, 'invokeResult', (id) => ({
      type: 'invoke',
      id,
      executionId,
      handle,
      request: wire,
    }));
    return fromWireResponse((answer as MessageOf<'invokeResult'>).response);
  }

  /** Ends a retained execution and frees its isolate; the functions serving its calls here go too. */
  async closeHandles(executionId: string): Promise<void> {
    // A refused close (OVERLOADED, a bad id) leaves the handles open: their calls are still served.
    await this.#heldCall(executionId, 'ack', (id) => ({ type: 'closeHandles', id, executionId }));
    this.#letGo(executionId);
  }

  /** A call about retained handles; meeting HANDLES_CLOSED, the functions kept for them go. */
  async #heldCall(
    executionId: string,
    expects: Call['expects'],
    build: (id: string) => Message,
  ): Promise<Message> {
    try {
      return await this.#call(expects, build);
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code === 'HANDLES_CLOSED') this.#letGo(executionId);
      throw error;
    }
  }

  /** Stops serving the calls of the execution that granted `executionId`, if this client holds it. */
  #letGo(executionId: string): void {
    for (const [id, held] of this.#holding) {
      if (held.executionId !== executionId) continue;
      this.#holding.delete(id);
      held.execution.ended.abort(new Error('The handles have closed.'));
    }
  }

  /**
   * Closes the socket. Executions still in flight resolve at once with a WORKER_LOST envelope
   * and pending calls reject; the server ends the executions and closes their handles.
   */
  close(): void {
    this.#end(CLOSE_CODES.normal, 'closed by the client');
    try {
      this.#socket.close(CLOSE_CODES.normal, 'closed by the client');
    } catch {
      // Already closing: nothing is left to end.
    }
  }

  #open(options: ConnectOptions): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timeout = options.helloTimeout ?? DEFAULT_HELLO_TIMEOUT;
      const timer = platform.setTimeout(() => {
        const reason = `no hello from the executor within ${timeout} ms`;
        this.#end(CLOSE_CODES.protocol, reason);
        this.#socket.close(CLOSE_CODES.protocol, reason);
      }, timeout);
      this.#handshake = {
        resolve: (hello) => {
          platform.clearTimeout(timer);
          this.#instance = hello.instance;
          resolve();
        },
        reject: (error) => {
          platform.clearTimeout(timer);
          reject(error);
        },
      };
      const hello = () =>
        this.#send({
          type: 'hello',
          protocol: PROTOCOL_VERSION,
          ...(options.token !== undefined ? { token: options.token } : {}),
        });
      if (this.#socket.readyState === OPEN) hello();
      else if (this.#socket.readyState === CONNECTING) {
        const onOpen = () => {
          this.#socket.removeEventListener('open', onOpen);
          if (!this.#closed) hello();
        };
        this.#socket.addEventListener('open', onOpen);
      } else {
        // Closed by its owner, not refused by a server: the causes a 1006 usually means do not apply.
        const reason = 'the socket was closed before connect';
        this.#handshake.reject(new ConnectionClosedError(ABNORMAL_CLOSURE, reason));
        this.#handshake = undefined;
        this.#end(ABNORMAL_CLOSURE, reason);
      }
    });
  }

  #id(): string {
    this.#next += 1;
    return `c${this.#next}`;
  }

  /**
   * Encodes and sends; throws PayloadTooLargeError past PAYLOAD_LIMIT bytes of UTF-8 (what the
   * server measures) and ConnectionClosedError when closed.
   */
  #send(message: Message): void {
    const text = encodeMessage(message, Number.POSITIVE_INFINITY);
    // A UTF-16 unit takes at most 3 bytes, so only a text past a third of the limit needs counting.
    const bytes = text.length * 3 > PAYLOAD_LIMIT ? utf8Length(text) : 0;
    if (bytes > PAYLOAD_LIMIT) {
      throw new PayloadTooLargeError(`${message.type} message`, bytes, PAYLOAD_LIMIT);
    }
    if (this.#closed || this.#socket.readyState !== OPEN) {
      throw new ConnectionClosedError(
        this.#closed?.code ?? ABNORMAL_CLOSURE,
        this.#closed?.reason ?? 'not open',
      );
    }
    this.#socket.send(text);
  }

  /** Sends an answer or a cancel; one that can no longer go anywhere is dropped. */
  #trySend(message: Message): void {
    try {
      this.#send(message);
    } catch {
      // The connection ended: the close already settled everything this message was about.
    }
  }

  #call(expects: Call['expects'], build: (id: string) => Message): Promise<Message> {
    if (this.#closed) {
      return Promise.reject(new ConnectionClosedError(this.#closed.code, this.#closed.reason));
    }
    const id = this.#id();
    return new Promise<Message>((resolve, reject) => {
      const settle =
        <Value>(then: (value: Value) => void) =>
        (value: Value) => {
          this.#conversations.delete(id);
          then(value);
        };
      this.#conversations.set(id, {
        kind: 'call',
        expects,
        resolve: settle(resolve),
        reject: settle(reject),
      });
      try {
        this.#send(build(id));
      } catch (error) {
        // As for an execution: a socket already closing rejects the call with that close's code.
        if (error instanceof ConnectionClosedError && this.#socket.readyState === CLOSING) return;
        this.#conversations.delete(id);
        reject(error as Error);
      }
    });
  }

  readonly #onMessage = (event: MessageEventLike): void => {
    if (this.#closed) return;
    if (typeof event.data !== 'string') {
      this.#onFault?.({
        code: 'BAD_REQUEST',
        message: 'The executor sent a binary frame; messages are text.',
      });
      return;
    }
    const decoded = decodeMessage(event.data);
    if (!decoded.ok) {
      this.#onFault?.(decoded.fault);
      return;
    }
    const message = decoded.message;
    switch (message.type) {
      case 'hello':
        this.#onHello(message);
        return;
      case 'dispatch':
      case 'outbound':
        void this.#serveCall(message);
        return;
      case 'result':
        this.#execution(message.id)?.finish(shapeEnvelope(message.envelope));
        return;
      case 'console':
        this.#console(message);
        return;
      case 'invokeResult':
      case 'ack':
      case 'discarded': {
        const call = this.#conversations.get(message.id);
        if (call?.kind === 'call' && call.expects === message.type) call.resolve(message);
        return;
      }
      case 'fault':
        this.#onServerFault(message);
        return;
      default:
        this.#onFault?.({
          code: 'BAD_REQUEST',
          message: `The executor sent a ${message.type} message, which a client does not expect.`,
        });
    }
  };

  #onHello(hello: MessageOf<'hello'>): void {
    const handshake = this.#handshake;
    if (!handshake) return;
    this.#handshake = undefined;
    // The server answers with the newest version both speak: one of ours, or it is not speaking the protocol.
    if (hello.protocol >= MIN_PROTOCOL_VERSION && hello.protocol <= PROTOCOL_VERSION) {
      this.#protocol = hello.protocol;
      handshake.resolve(hello);
      return;
    }
    const message = clientVersionMessage(hello.protocol, MIN_PROTOCOL_VERSION, PROTOCOL_VERSION);
    handshake.reject(new BadRequestError(message));
    const reason = 'protocol version mismatch';
    this.#end(CLOSE_CODES.protocol, reason);
    this.#socket.close(CLOSE_CODES.protocol, reason);
  }

  /** Console lines of a running execution that asked; a throw from the caller's callback is dropped. */
  #console(message: MessageOf<'console'>): void {
    const onConsole = this.#execution(message.id)?.onConsole;
    if (onConsole === undefined) return;
    try {
      onConsole(message.lines);
    } catch {
      // The run goes on as if nobody watched.
    }
  }

  #onServerFault(fault: MessageOf<'fault'>): void {
    const conversation = fault.id === undefined ? undefined : this.#conversations.get(fault.id);
    if (conversation?.kind === 'execute') conversation.finish(faultEnvelope(fault.code, fault.message));
    else if (conversation?.kind === 'call') conversation.reject(new CodemodeError(fault.code, fault.message));
    else if (this.#handshake) {
      const handshake = this.#handshake;
      this.#handshake = undefined;
      handshake.reject(new CodemodeError(fault.code, fault.message));
    } else this.#onFault?.({ code: fault.code, message: fault.message });
  }

  #execution(id: string): Execution | undefined {
    const conversation = this.#conversations.get(id);
    return conversation?.kind === 'execute' ? conversation : undefined;
  }

  /** The execution whose calls `id` names: running, or holding handles whose invocations call. */
  #serving(id: string): Execution | undefined {
    return this.#execution(id) ?? this.#holding.get(id)?.execution;
  }

  /**
   * Whether this client ever started conversation `id`. A call naming one it never had is a server
   * not speaking the protocol: the connection ends with a protocol error, as the pool ends a child.
   */
  #stray(message: MessageOf<'dispatch'> | MessageOf<'outbound'>): boolean {
    const match = /^c([1-9]\d{0,15})$/.exec(message.id);
    if (match !== null && Number(match[1]) <= this.#next) return false;
    this.#violation(strayCallReason(message.type));
    return true;
  }

  /** Ends the connection as a server not speaking the protocol: close code 4400 with `reason`. */
  #violation(reason: string): void {
    this.#end(CLOSE_CODES.protocol, reason);
    try {
      this.#socket.close(CLOSE_CODES.protocol, reason);
    } catch {
      // Already closing.
    }
  }

  /**
   * Whether the server leaves more than REFUSAL_BACKLOG of this client's answers unsent while it
   * sends calls the client refuses: then the connection ends with a protocol error, and true.
   */
  #unread(): boolean {
    if ((this.#socket.bufferedAmount ?? 0) <= REFUSAL_BACKLOG) return false;
    this.#violation(unreadAnswersReason(REFUSAL_BACKLOG));
    return true;
  }

  /** Counts a call this client starts serving for conversation `id`: false past SERVED_CALL_LIMIT. */
  #startServing(id: string): boolean {
    const serving = (this.#served.get(id) ?? 0) + 1;
    if (serving > SERVED_CALL_LIMIT) return false;
    this.#served.set(id, serving);
    return true;
  }

  #doneServing(id: string): void {
    const serving = (this.#served.get(id) ?? 1) - 1;
    if (serving === 0) this.#served.delete(id);
    else this.#served.set(id, serving);
  }

  /**
   * Serves one call of the server's, counted against SERVED_CALL_LIMIT for its conversation: one
   * past it is answered thrown, its function not called.
   */
  async #serveCall(message: MessageOf<'dispatch'> | MessageOf<'outbound'>): Promise<void> {
    if (this.#stray(message)) return;
    if (!this.#startServing(message.id)) {
      if (this.#unread()) return;
      const type = message.type === 'dispatch' ? 'dispatchReply' : 'outboundReply';
      const frame = ['thrown', tooManyServedMessage(SERVED_CALL_LIMIT)] as const;
      this.#answer({ type, id: message.id, call: message.call, frame } as Reply);
      return;
    }
    try {
      await (message.type === 'dispatch' ? this.#serveDispatch(message) : this.#serveOutbound(message));
    } finally {
      this.#doneServing(message.id);
    }
  }

  async #serveDispatch(message: MessageOf<'dispatch'>): Promise<void> {
    const execution = this.#serving(message.id);
    const { provider, tool, args, durable } = message;
    let frame: DispatchFrame;
    let paused: PauseMessage | undefined;
    if (!execution && this.#unread()) return;
    if (!execution) frame = ['thrown', EXECUTION_COMPLETED_MESSAGE];
    else if (!execution.dispatch) frame = ['returned', toolNotFoundEnvelope(provider, tool)];
    else {
      const dispatch = execution.dispatch;
      try {
        // The tool reads the call's durable context with durableCall() during its synchronous start.
        frame = ['returned', await withDurableCall(durable, () => dispatch(provider, tool, args))];
      } catch (error) {
        // Only a tool's pause signal leaves the dispatch (splitRequest's passThrough).
        if (!isPauseSignal(error)) throw error;
        // The tool failed as any throw fails it; in a durable run's call, the reply says it paused.
        frame = ['returned', stringifyForDispatch({ error: errorText(error) })];
        if (durable !== undefined) {
          paused = {
            ...(error.reason !== undefined ? { reason: error.reason } : {}),
            ...(error.data !== undefined ? { data: error.data } : {}),
          };
        }
      }
    }
    this.#answer({
      type: 'dispatchReply',
      id: message.id,
      call: message.call,
      frame,
      ...(paused !== undefined ? { paused } : {}),
    });
  }

  async #serveOutbound(message: MessageOf<'outbound'>): Promise<void> {
    const execution = this.#serving(message.id);
    let frame: OutboundFrame;
    if (!execution && this.#unread()) return;
    if (!execution?.outbound) frame = ['thrown', EXECUTION_COMPLETED_MESSAGE];
    else {
      try {
        const answer = await execution.outbound(message.request, { signal: execution.ended.signal });
        const wire = isResponseLike(answer) ? await toWireResponse(answer) : answer;
        frame = ['returned', validate(HttpResponseSchema, wire, 'outbound response')];
      } catch (error) {
        frame = ['thrown', errorText(error)];
      }
    }
    this.#answer({ type: 'outboundReply', id: message.id, call: message.call, frame });
  }

  /** Sends a reply; one past the payload limit goes as a `thrown` frame naming the size instead. */
  #answer(reply: Reply): void {
    try {
      this.#send(reply);
    } catch (error) {
      if (error instanceof PayloadTooLargeError) {
        this.#trySend({ ...reply, frame: ['thrown', error.message] } as Message);
      }
    }
  }

  readonly #onClose = (event: CloseEventLike): void => {
    this.#end(event.code, event.reason);
  };

  /** Settles everything in flight, once: executions with WORKER_LOST, calls and connect with ConnectionClosedError. */
  #end(code: number, reason: string): void {
    if (this.#closed) return;
    this.#closed = { code, reason };
    this.#socket.removeEventListener('message', this.#onMessage);
    this.#socket.removeEventListener('close', this.#onClose);
    const error = new ConnectionClosedError(code, reason);
    this.#handshake?.reject(new ConnectionClosedError(code, reason, true));
    this.#handshake = undefined;
    const lost = this.#lostEnvelope();
    for (const conversation of [...this.#conversations.values()]) {
      if (conversation.kind === 'execute') conversation.finish(lost);
      else conversation.reject(error);
    }
    this.#conversations.clear();
    for (const { execution } of this.#holding.values()) execution.ended.abort(error);
    this.#holding.clear();
  }

  #lostEnvelope(): ExecuteResult {
    const { code, reason } = this.#closed ?? { code: ABNORMAL_CLOSURE, reason: '' };
    return faultEnvelope('WORKER_LOST', workerLostMessage(connectionClosedCause(code, reason)));
  }
}

/**
 * The UTF-8 length of `text` as a WebSocket sends it (a lone surrogate becomes U+FFFD, 3 bytes),
 * counted without encoding it.
 */
function utf8Length(text: string): number {
  let bytes = text.length;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit < 0x80) continue;
    if (unit < 0x800) bytes += 1;
    else if (unit >= 0xd800 && unit <= 0xdbff && isLowSurrogate(text.charCodeAt(index + 1))) {
      bytes += 2; // the pair's two units take 4 bytes
      index++;
    } else bytes += 2;
  }
  return bytes;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/**
 * The reason a cancel carries: the message of the Error the caller aborted with, cut as the
 * protocol cuts a reason it repeats. None for a bare abort(), whose reason is the platform's
 * AbortError and names no cause: the server's own words (`its client cancelled it`) say more.
 */
function cancelReason(signal: AbortSignalLike | undefined): string | undefined {
  const reason = signal?.reason;
  if (!(reason instanceof Error) || reason.name === 'AbortError') return undefined;
  const text = String(reason.message);
  return text === '' ? undefined : echo(text, REASON_ECHO_LIMIT);
}

function envelopeFromError(error: unknown): ExecuteResult {
  if (error instanceof PayloadTooLargeError) return faultEnvelope('PAYLOAD_TOO_LARGE', error.message);
  if (error instanceof ConnectionClosedError) {
    return faultEnvelope(
      'WORKER_LOST',
      workerLostMessage(connectionClosedCause(error.closeCode, error.reason)),
    );
  }
  return faultEnvelope('INTERNAL', `The execute message could not be sent: ${errorText(error)}`);
}
