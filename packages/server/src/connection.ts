/**
 * One client connection: its opening (opening.ts), then every conversation multiplexed over it
 * (executions, their tool calls and proxied fetches, invokes, closeHandles), each message
 * validated on arrival, in the order it arrived (in-order.ts: a message the protocol's hot checks
 * leave to the schemas waits for their load, decode-on-demand.ts). A malformed message gets a fault and the connection serves on; a
 * connection that ends takes its executions (cancelled, isolates disposed) and its retained
 * handles (closed) with it. The socket itself, and what guards it, is channel.ts.
 */
import type { Duplex } from 'node:stream';
import type {
  ExecuteResult,
  HandleName,
  IsolateExecutor,
  ResumeAnswer,
  WireHost,
} from '@supolka/codemode-executor';
import { type NestingFrame, withNestingCapacity } from '@supolka/codemode-executor/serving';
import {
  CONSOLE_PROTOCOL_VERSION,
  type Decoded,
  DURABLE_PROTOCOL_VERSION,
  durableVersionMessage,
  type ExecuteRequest,
  envelopeForVersion,
  errorText,
  faultEnvelope,
  type HttpResponse,
  isFaultCode,
  type LogLine,
  type Message,
  type MessageOf,
  type MessageScan,
  PAYLOAD_LIMIT,
  PayloadTooLargeError,
  scanMessage,
  VALUE_LIMIT,
  valueCount,
} from '@supolka/codemode-protocol/wire';
import type { RawData, WebSocket } from 'ws';
import { BudgetAccount, type RequestBudget } from './budget.ts';
import { byteLengthOf, Channel, textOf } from './channel.ts';
import { decodeOnDemand } from './decode-on-demand.ts';
import { InOrder } from './in-order.ts';
import { requestFromWire, responseToWire } from './invoke.ts';
import type { ConnectionLog } from './log.ts';
import { MESSAGE_COST_LIMIT, messageCost } from './message-cost.ts';
import { outcomeOf, type ServerMetrics } from './metrics.ts';
import { type Admission, Opening } from './opening.ts';
import type { ResolvedServerOptions } from './options.ts';
import { RemoteExecution, type WaitingCall } from './remote-execution.ts';
import {
  ALREADY_OPEN_MESSAGE,
  BINARY_FRAME_MESSAGE,
  CLIENT_DISCONNECTED,
  clientCancelReason,
  congestedMessage,
  connectionCapMessage,
  DURABLE_OFF_MESSAGE,
  duplicateIdMessage,
  ENVELOPE_MISREAD_MESSAGE,
  foreignInstanceMessage,
  HANDLES_CLOSED_REASON,
  invokeRequestMessage,
  memoryLimitPastMaxMessage,
  messageCostMessage,
  NATIVE_OUTBOUND_REFUSED_MESSAGE,
  notFromClientMessage,
  SHUTTING_DOWN_MESSAGE,
  timeoutPastMaxMessage,
  wallClockMessage,
} from './texts.ts';

/** What a connection needs from the server that holds it. */
export interface ConnectionContext {
  readonly executor: IsolateExecutor;
  readonly options: ResolvedServerOptions;
  readonly metrics: ServerMetrics;
  /** The byte budget every connection's held requests share (budget.ts). */
  readonly budget: RequestBudget;
  /** True once the server stopped taking work. */
  readonly draining: () => boolean;
  /** Registers a run, so shutdown can wait for it. */
  readonly track: (run: Promise<unknown>) => void;
}

export class ServerConnection {
  readonly #channel: Channel;
  readonly #opening: Opening;
  readonly #context: ConnectionContext;
  readonly #log: ConnectionLog;
  /** Each message's handling, in the order the messages arrived. */
  readonly #inOrder: InOrder;
  #closed = false;
  /**
   * The caller its executions run as: the executor shares its children and reading lanes between
   * callers (docs/server.md, "Fair sharing between connections"), so one connection's flood waits
   * on itself and not another connection's run.
   */
  readonly #callerId = `connection ${nextConnection++}`;
  readonly #executions = new Map<string, RemoteExecution>();
  /** Invokes and closeHandles awaiting the executor: they count toward the cap like executions. */
  #calls = 0;
  /** Executions this connection retained, by the executor's own id: closed when it ends. */
  readonly #retained = new Set<string>();
  /**
   * Executions that granted handles, by their conversation id: their invocations, from this
   * connection or another, call this client's tools and fetch through it until the handles close.
   */
  readonly #holding = new Map<
    string,
    { readonly execution: RemoteExecution; readonly executionId: string }
  >();
  /** What this connection's held requests take of the server's budget. */
  readonly #account = new BudgetAccount();
  /** Resolves once the connection has ended and its retained handles are closed. */
  readonly ended: Promise<void>;
  #onEnded: () => void = () => {};

  /**
   * `raw` is the socket under `socket`, for the opening's byte count; `admission` is what the
   * upgrade showed of the token (opening.ts).
   */
  constructor(
    socket: WebSocket,
    raw: Duplex,
    context: ConnectionContext,
    admission: Admission,
    log: ConnectionLog,
  ) {
    this.#context = context;
    this.#log = log;
    const { options } = context;
    log.opened(admission === 'authenticated');
    this.#channel = new Channel(socket, options, (cause) => log.dropped(cause));
    this.#opening = new Opening(this.#channel, raw, options, admission, log);
    this.ended = new Promise((resolve) => {
      this.#onEnded = resolve;
    });
    this.#inOrder = new InOrder(
      () => this.#channel.hold(),
      () => this.#channel.release(),
    );
    socket.on('message', (data, isBinary) => this.#inOrder.run(() => this.#onMessage(data, isBinary)));
    socket.on('close', (code) => {
      log.closed(code);
      void this.#onClose();
    });
    // ws reports a protocol violation (a frame past maxPayload, bad UTF-8) here and then closes.
    socket.on('error', () => {});
  }

  /** Executions in flight, queued or running. */
  get inFlight(): number {
    return this.#executions.size;
  }

  /** Not opened, with no token seen (maxUnauthenticatedConnections counts these). */
  get unauthenticated(): boolean {
    return this.#opening.unauthenticated;
  }

  /** Cancels every execution in flight; their CANCELLED envelopes still go to the client. */
  cancelAll(reason: string): void {
    for (const execution of this.#executions.values()) execution.cancel(reason);
  }

  /** The closing handshake; the socket is dropped if the client does not answer it in time. */
  close(code: number, reason: string): void {
    this.#channel.close(code, reason);
  }

  /** Handles one message; a promise while it waits for the schemas, which the ones after it wait behind. */
  #onMessage(data: RawData, isBinary: boolean): void | Promise<void> {
    // A refused connection is over: ws delivers what was in flight, and none of it is read.
    if (this.#closed || this.#opening.state === 'refused') return;
    if (this.#opening.state === 'waiting') return this.#opening.receive(data, isBinary);
    if (isBinary) {
      this.#send({ type: 'fault', code: 'BAD_REQUEST', message: BINARY_FRAME_MESSAGE });
      return;
    }
    // Measured as bytes, as PAYLOAD_LIMIT is, before the text is decoded at all.
    const bytes = byteLengthOf(data);
    if (bytes > PAYLOAD_LIMIT) {
      const error = new PayloadTooLargeError('message', bytes, PAYLOAD_LIMIT);
      this.#send({ type: 'fault', code: 'PAYLOAD_TOO_LARGE', message: error.message });
      return;
    }
    const text = textOf(data);
    // What the decoded message would cost is counted from its text and admitted before anything
    // parses it (message-cost.ts): its size says little, `[{},{},...]` decodes to twenty times it.
    const scan = scanMessage(text, VALUE_LIMIT);
    // Past VALUE_LIMIT, the decode refuses without parsing, so there is nothing to admit.
    const admitted =
      valueCount(scan) > VALUE_LIMIT ? { release: () => {}, fair: true } : this.#admit(scan, bytes);
    if (admitted === undefined) return;
    const decoded = decodeOnDemand(text, PAYLOAD_LIMIT, scan);
    if (decoded instanceof Promise) return decoded.then((settled) => this.#take(settled, admitted));
    this.#take(decoded, admitted);
  }

  /** A message decoded, its cost admitted: routed, or answered with the fault that refused it. */
  #take(decoded: Decoded, admitted: { release: () => void; fair: boolean }): void {
    // The connection ended while the schemas loaded: nothing more of it is served.
    if (this.#closed) {
      admitted.release();
      return;
    }
    if (!decoded.ok) {
      admitted.release();
      // The client will settle the conversation the fault names, so the server ends it too.
      if (decoded.fault.id !== undefined)
        this.#executions.get(decoded.fault.id)?.cancel(decoded.fault.message);
      this.#send({ type: 'fault', ...decoded.fault });
      return;
    }
    const { message } = decoded;
    if (HELD_TYPES.has(message.type)) {
      // Charged as a reply, outside the share, yet parsed as a request: only a message that names
      // its type twice, the second spelled with escapes, gets here.
      if (!admitted.fair) {
        admitted.release();
        this.#refuse(
          'id' in message ? message.id : undefined,
          message.type,
          'BAD_REQUEST',
          ENVELOPE_MISREAD_MESSAGE,
        );
        return;
      }
      this.#route(message, admitted.release);
      return;
    }
    this.#route(message, admitted.release);
    // Any other message is done with once routed: its charge only bounded its decoding.
    admitted.release();
  }

  /**
   * Charges what the message would cost once decoded to this connection's account, refusing it
   * (answered, undecoded) past MESSAGE_COST_LIMIT or past the budget. A message an admitted
   * execution waits on (a reply, a cancel) is charged within the total only, so a connection at
   * its share still hears its tools' answers.
   */
  #admit(scan: MessageScan, bytes: number): { release: () => void; fair: boolean } | undefined {
    const cost = messageCost(scan, bytes);
    if (cost > MESSAGE_COST_LIMIT) {
      this.#refuse(scan.id, scan.type, 'PAYLOAD_TOO_LARGE', messageCostMessage(cost, MESSAGE_COST_LIMIT));
      return undefined;
    }
    const fair = !REPLY_TYPES.has(scan.type ?? '');
    const charged = this.#context.budget.charge(this.#account, cost, fair);
    if (typeof charged === 'string') {
      this.#refuse(scan.id, scan.type, 'OVERLOADED', charged);
      return undefined;
    }
    return { release: charged, fair };
  }

  /**
   * Answers a message refused before it was decoded, by the id and type its scan read: an
   * execute with its envelope, anything else with a fault naming its id (or none, if it had none
   * the scan could read).
   */
  #refuse(
    id: string | undefined,
    type: string | undefined,
    code: MessageOf<'fault'>['code'],
    text: string,
  ): void {
    if (id === undefined) {
      this.#send({ type: 'fault', code, message: text });
      return;
    }
    if (type === 'execute') {
      const answer = faultEnvelope(code, text);
      this.#context.metrics.execution(answer, 0);
      this.#log.execution(id, outcomeOf(answer), 0, undefined);
      this.#sendResult(id, answer);
      return;
    }
    // The client settles the conversation the fault names, so the server ends it too.
    this.#executions.get(id)?.cancel(text);
    this.#fault(id, code, text);
  }

  /** `release` gives back what the budget charged the message; a request keeps it until it settles. */
  #route(message: Message, release: () => void): void {
    switch (message.type) {
      case 'execute':
        void this.#execute(message, release);
        return;
      case 'cancel':
        this.#executions.get(message.id)?.cancel(clientCancelReason(message.reason));
        return;
      case 'dispatchReply':
        this.#asking(message.id)?.answer('dispatch', message.call, message.frame, message.paused);
        return;
      case 'outboundReply':
        this.#asking(message.id)?.answer('outbound', message.call, message.frame);
        return;
      case 'invoke':
        void this.#invoke(message, release);
        return;
      case 'closeHandles':
        void this.#closeHandles(message, release);
        return;
      case 'resume':
        void this.#execute(message, release);
        return;
      case 'discard':
        void this.#discard(message, release);
        return;
      case 'hello':
        this.#send({ type: 'fault', code: 'BAD_REQUEST', message: ALREADY_OPEN_MESSAGE });
        return;
      default:
        this.#send({ type: 'fault', code: 'BAD_REQUEST', message: notFromClientMessage(message.type) });
    }
  }

  /** The execution whose calls this client answers under `id`: running, or holding handles. */
  #asking(id: string): RemoteExecution | undefined {
    return this.#executions.get(id) ?? this.#holding.get(id)?.execution;
  }

  /** An execute, or a resume of a paused durable run, which is answered as an execute is. */
  async #execute(message: MessageOf<'execute'> | MessageOf<'resume'>, release: () => void): Promise<void> {
    const { id, request, streamConsole } = message;
    // An id whose handles still call this client is taken too: their replies would be ambiguous.
    if (this.#executions.has(id) || this.#holding.has(id)) {
      release();
      this.#fault(id, 'BAD_REQUEST', duplicateIdMessage(id));
      return;
    }
    const resumption = message.type === 'resume' ? message : undefined;
    const refusal =
      this.#durableRefusal(request.durable === true || resumption !== undefined) ?? this.#refusal(request);
    if (refusal !== undefined) {
      release();
      this.#context.metrics.execution(refusal, 0);
      this.#log.execution(id, outcomeOf(refusal), 0, undefined);
      this.#sendResult(id, refusal);
      return;
    }
    try {
      // Only a client that agreed on a version with the live console gets it; an older one, today's behaviour.
      const live = streamConsole === true && this.#opening.protocol >= CONSOLE_PROTOCOL_VERSION;
      await this.#run(id, request, release, live, resumption);
    } finally {
      release();
    }
  }

  /**
   * Why a durable request, a resume or a discard is refused at the door, if it is: a client that
   * agreed on a version before 3 never gets a run that could pause (its schema has no paused
   * envelope, and no tool should run for an end it cannot read), and a server without a key ring
   * has no durable runs.
   */
  #durableRefusal(durable: boolean): ExecuteResult | undefined {
    if (!durable) return undefined;
    if (this.#opening.protocol < DURABLE_PROTOCOL_VERSION)
      return faultEnvelope('BAD_REQUEST', durableVersionMessage(this.#opening.protocol));
    if (!this.#context.options.durable) return faultEnvelope('BAD_REQUEST', DURABLE_OFF_MESSAGE);
    return undefined;
  }

  /** Answers a discard: the executor spends the token (a claim store) or checks it, as this server's principal. */
  async #discard(message: MessageOf<'discard'>, charged: () => void): Promise<void> {
    const refusal = this.#durableRefusal(true);
    const busy = this.#busy();
    if (refusal !== undefined || busy !== undefined) {
      charged();
      if (busy !== undefined) this.#fault(message.id, 'OVERLOADED', busy);
      else this.#fault(message.id, 'BAD_REQUEST', refusal?.error as string);
      return;
    }
    this.#calls += 1;
    try {
      const { executor, options } = this.#context;
      const answer = await executor.discardWire(message.token, message.request, options.principal);
      if (answer.discarded)
        this.#send({ type: 'discarded', id: message.id, tokenId: answer.tokenId, claimed: answer.claimed });
      else this.#fault(message.id, answer.code, answer.error);
    } finally {
      this.#calls -= 1;
      charged();
    }
  }

  /**
   * Runs an admitted execute, or a resume (`resumption`); `release` gives its bytes back to the
   * budget once it settled.
   */
  async #run(
    id: string,
    request: ExecuteRequest,
    release: () => void,
    live: boolean,
    resumption?: MessageOf<'resume'>,
  ): Promise<void> {
    const { options, executor, metrics } = this.#context;
    const nestedIn = this.#waitingFrame();
    const execution = new RemoteExecution(
      id,
      (message) => this.#channel.sendOrThrow(message),
      {
        deadline: options.dispatchTimeout ?? request.timeout ?? options.defaultTimeout,
        wallClockLimit: options.wallClockLimit,
      },
      metrics,
      this.#log,
    );
    this.#executions.set(id, execution);
    const started = performance.now();
    let handlesClosed = false;
    const onHandlesClosed = () => {
      handlesClosed = true;
      this.#letGo(id, execution);
    };
    // The wire request goes down as it arrived: the client's functions, asked over this
    // connection, are its host part, and a request without an outbound mode is disabled.
    const host: WireHost = {
      dispatch: execution.dispatch,
      outbound: execution.outbound,
      signal: execution.signal,
      onHandlesClosed,
      callerId: this.#callerId,
      // Whom a durable run is for: the authenticated bearer identity, never a field of the request.
      principal: options.principal,
      ...(live ? { onConsole: (lines: readonly LogLine[]) => this.#console(id, lines) } : {}),
    };
    const start = () =>
      resumption === undefined
        ? executor.executeWire(request, host)
        : executor.resumeWire(resumption.token, answersByCall(resumption.answers), request, host);
    const run = nestedIn ? withNestingCapacity(nestedIn, start) : start();
    this.#context.track(run);
    const settled = await run;
    release();
    this.#executions.delete(id);
    const granted = settled.executionId;
    if (granted !== undefined && !handlesClosed && !this.#closed) {
      execution.holdForHandles();
      this.#holding.set(id, { execution, executionId: granted });
    } else execution.end('the execution has ended');
    // The wall clock ends the run by cancelling it; the client is told the bound it reached.
    const result =
      execution.expired && settled.code === 'CANCELLED'
        ? { ...settled, code: 'TIMEOUT' as const, error: wallClockMessage(options.wallClockLimit) }
        : settled;
    const elapsed = performance.now() - started;
    metrics.execution(result, elapsed / 1000);
    if (resumption !== undefined) metrics.resume(result);
    this.#log.execution(id, outcomeOf(result), elapsed, result.executionId);
    if (result.executionId !== undefined) {
      if (this.#closed) {
        this.#closeQuietly(result.executionId);
        return;
      }
      if (!handlesClosed) this.#retained.add(result.executionId);
      if (options.instance) result.executionId = `${options.instance}.${result.executionId}`;
    }
    this.#sendResult(id, result);
  }

  /**
   * A batch of a live execution's console lines, sent on. They are within the console capture
   * bound (1 MiB of cost for the whole run), so a batch never nears PAYLOAD_LIMIT; a closed
   * connection drops it, as its result would be.
   */
  #console(id: string, lines: readonly LogLine[]): void {
    if (this.#closed) return;
    this.#send({ type: 'console', id, lines: [...lines] });
  }

  /**
   * The nesting frame of this client's call asked last that still waits on it. A client's tool
   * that calls execute sends it over the same connection while its call waits, so an execute that
   * arrives then is taken as nested in that call's execution, for capacity only: it may use the
   * children a nested run may (docs/pool.md, "Nested executions"), and is not cancelled with it,
   * since it may be an unrelated run sent meanwhile.
   */
  #waitingFrame(): NestingFrame | undefined {
    let latest: WaitingCall | undefined;
    for (const execution of this.#executions.values()) {
      const call = execution.latestCall;
      if (call !== undefined && (latest === undefined || call.order > latest.order)) latest = call;
    }
    return latest?.frame;
  }

  /** Why an execute is answered at once instead of run, if it is. */
  #refusal(request: ExecuteRequest): ExecuteResult | undefined {
    const { options, draining } = this.#context;
    if (draining()) return faultEnvelope('OVERLOADED', SHUTTING_DOWN_MESSAGE);
    const busy = this.#busy();
    if (busy) return faultEnvelope('OVERLOADED', busy);
    if (request.outbound === 'native' && !options.allowNativeOutbound) {
      return faultEnvelope('BAD_REQUEST', NATIVE_OUTBOUND_REFUSED_MESSAGE);
    }
    if (request.timeout !== undefined && request.timeout > options.maxTimeout) {
      return faultEnvelope('BAD_REQUEST', timeoutPastMaxMessage(request.timeout, options.maxTimeout));
    }
    if (request.memoryLimit !== undefined && request.memoryLimit > options.maxMemoryLimit) {
      return faultEnvelope(
        'BAD_REQUEST',
        memoryLimitPastMaxMessage(request.memoryLimit, options.maxMemoryLimit),
      );
    }
    return undefined;
  }

  /**
   * Why the connection takes no new request now: its client is not reading what it was sent,
   * or it has as many requests in flight as the cap allows.
   */
  #busy(): string | undefined {
    const { sendBufferLimit, maxExecutionsPerConnection: cap } = this.#context.options;
    if (this.#channel.congested) return congestedMessage(sendBufferLimit);
    if (this.#executions.size + this.#calls >= cap) return connectionCapMessage(cap);
    return undefined;
  }

  async #invoke(message: MessageOf<'invoke'>, charged: () => void): Promise<void> {
    const started = performance.now();
    const admitted = this.#admitCall(message.id, message.executionId, charged);
    if (typeof admitted === 'string') {
      this.#log.invocation(message.id, message.executionId, message.handle, admitted, 0, undefined);
      return;
    }
    let answer: { outcome: string; status?: number };
    try {
      answer = await this.#answerInvoke(message, admitted.executionId);
    } finally {
      admitted.release();
    }
    const { outcome, status } = answer;
    const elapsed = performance.now() - started;
    this.#log.invocation(message.id, admitted.executionId, message.handle, outcome, elapsed, status);
  }

  /** Answers an admitted invoke; resolves to how it ended: ok and the status, or the fault code. */
  async #answerInvoke(
    message: MessageOf<'invoke'>,
    executionId: string,
  ): Promise<{ outcome: string; status?: number }> {
    let request: Request;
    try {
      request = requestFromWire(message.request);
    } catch (error) {
      this.#fault(message.id, 'BAD_REQUEST', invokeRequestMessage(errorText(error)));
      return { outcome: 'BAD_REQUEST' };
    }
    let response: HttpResponse;
    try {
      const handle = message.handle as HandleName;
      response = await responseToWire(await this.#context.executor.invoke(executionId, request, handle));
    } catch (error) {
      const code = codeOf(error);
      this.#fault(message.id, code, errorText(error));
      return { outcome: code };
    }
    this.#send({ type: 'invokeResult', id: message.id, response });
    return { outcome: 'ok', status: response.status };
  }

  async #closeHandles(message: MessageOf<'closeHandles'>, charged: () => void): Promise<void> {
    const started = performance.now();
    const admitted = this.#admitCall(message.id, message.executionId, charged);
    if (typeof admitted === 'string') {
      this.#log.handlesClosed(message.id, message.executionId, admitted, 0);
      return;
    }
    this.#retained.delete(admitted.executionId);
    let outcome = 'ok';
    try {
      await this.#context.executor.closeHandles(admitted.executionId);
      this.#send({ type: 'ack', id: message.id });
    } catch (error) {
      const code = codeOf(error);
      outcome = code;
      this.#fault(message.id, code, errorText(error));
    } finally {
      admitted.release();
    }
    this.#log.handlesClosed(message.id, admitted.executionId, outcome, performance.now() - started);
  }

  /**
   * Admits an invoke or closeHandles, already charged to the budget, under the cap and counts it,
   * answering a fault when it is refused (and returning the fault's code); resolves the executor's
   * id behind the one the client holds. `release` ends the count and gives the charge back.
   */
  #admitCall(
    conversation: string,
    executionId: string,
    charged: () => void,
  ): { executionId: string; release: () => void } | MessageOf<'fault'>['code'] {
    const busy = this.#busy();
    if (busy) {
      charged();
      this.#fault(conversation, 'OVERLOADED', busy);
      return 'OVERLOADED';
    }
    const own = this.#ownId(conversation, executionId);
    if (own === undefined) {
      charged();
      // #ownId answered it so: the id is another instance's.
      return 'HANDLES_CLOSED';
    }
    this.#calls += 1;
    return {
      executionId: own,
      release: () => {
        this.#calls -= 1;
        charged();
      },
    };
  }

  /** The executor's id behind the one the client holds: with an instance name, it carries a prefix. */
  #ownId(conversation: string, executionId: string): string | undefined {
    const instance = this.#context.options.instance;
    if (instance === undefined) return executionId;
    if (executionId.startsWith(`${instance}.`)) return executionId.slice(instance.length + 1);
    this.#fault(conversation, 'HANDLES_CLOSED', foreignInstanceMessage(executionId, instance));
    return undefined;
  }

  /** The handles of execution `id` closed: its calls fail from now on, and nothing here holds it. */
  #letGo(id: string, execution: RemoteExecution): void {
    execution.end(HANDLES_CLOSED_REASON);
    const held = this.#holding.get(id);
    if (held?.execution !== execution) return;
    this.#holding.delete(id);
    this.#retained.delete(held.executionId);
  }

  async #onClose(): Promise<void> {
    this.#closed = true;
    this.#opening.end();
    for (const execution of this.#executions.values()) {
      execution.cancel(CLIENT_DISCONNECTED);
      execution.end(CLIENT_DISCONNECTED);
    }
    // Invocations from other connections meet this in their calls until the close below lands.
    for (const { execution } of this.#holding.values()) execution.end(CLIENT_DISCONNECTED);
    const retained = [...this.#retained];
    this.#retained.clear();
    await Promise.all(retained.map((executionId) => this.#closeQuietly(executionId)));
    this.#onEnded();
  }

  /** Closes handles nobody can reach any more; ones already closed (idle, or by a call) are fine. */
  #closeQuietly(executionId: string): Promise<void> {
    return this.#context.executor.closeHandles(executionId).catch(() => {});
  }

  /**
   * A result past PAYLOAD_LIMIT is replaced by an envelope saying so, so the execution still settles.
   * A client that agreed on a version before 3 gets the envelope without that version's fields
   * (envelopeForVersion): its own schema is strict, and would refuse the whole result for them.
   */
  #sendResult(id: string, result: ExecuteResult): void {
    try {
      this.#channel.sendOrThrow({
        type: 'result',
        id,
        envelope: envelopeForVersion(result, this.#opening.protocol),
      });
    } catch (error) {
      const code = error instanceof PayloadTooLargeError ? 'PAYLOAD_TOO_LARGE' : 'INTERNAL';
      this.#send({ type: 'result', id, envelope: faultEnvelope(code, errorText(error)) });
    }
  }

  #fault(id: string, code: MessageOf<'fault'>['code'], message: string): void {
    this.#send({ type: 'fault', id, code, message });
  }

  /**
   * Sends a message. One past PAYLOAD_LIMIT (an invokeResult with a large body, a fault naming
   * every error of a large message) is replaced by a PAYLOAD_TOO_LARGE fault for its id, so the
   * client's conversation still settles.
   */
  #send(message: Message): void {
    try {
      this.#channel.sendOrThrow(message);
    } catch (error) {
      const id = 'id' in message ? message.id : undefined;
      const code = error instanceof PayloadTooLargeError ? 'PAYLOAD_TOO_LARGE' : 'INTERNAL';
      this.#channel.sendOrThrow({
        type: 'fault',
        ...(id !== undefined ? { id } : {}),
        code,
        message: errorText(error),
      });
    }
  }
}

/** Requests the server holds until they settle, charged within the connection's share. */
/** Numbers each connection's caller id; unique in the process, as a caller id must be per executor. */
let nextConnection = 0;

const HELD_TYPES: ReadonlySet<string> = new Set(['execute', 'invoke', 'closeHandles', 'resume', 'discard']);

/** Messages an admitted execution waits on: charged within the budget's total only. */
const REPLY_TYPES: ReadonlySet<string> = new Set(['dispatchReply', 'outboundReply', 'cancel']);

/** A resume message's answers as the executor takes them: by the pending call's sequence. */
function answersByCall(answers: MessageOf<'resume'>['answers']): Map<number, ResumeAnswer> {
  return new Map(answers.map(({ sequence, ...answer }) => [sequence, answer as ResumeAnswer]));
}

function codeOf(error: unknown): MessageOf<'fault'>['code'] {
  const code = (error as { code?: unknown } | null)?.code;
  return isFaultCode(code) ? code : 'INTERNAL';
}
