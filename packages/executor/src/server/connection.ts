/**
 * One client connection: its authentication and hello, then every conversation multiplexed over
 * it (executions, their tool calls and proxied fetches, invocations, closeHandles), each message
 * validated on arrival. A malformed message gets a fault and the connection serves on; a
 * connection that ends takes its executions (cancelled, isolates disposed) and its retained
 * handles (closed) with it.
 */
import {
  decodeMessage,
  type ExecuteRequest,
  encodeMessage,
  isFaultCode,
  type Message,
  type MessageOf,
  PayloadTooLargeError,
  PROTOCOL_VERSION,
} from '@supolka/codemode-protocol';
import {
  CLOSE_CODES,
  HELLO_FIRST_MESSAGE,
  UNAUTHORIZED_MESSAGE,
  versionMismatchMessage,
} from '@supolka/codemode-protocol/client';
import type { RawData, WebSocket } from 'ws';
import type { HandleName, IsolateExecutor } from '../executor/isolate-executor.ts';
import type { IsolateExecuteRequest } from '../executor/request.ts';
import { errorText } from '../sandbox/dispatch.ts';
import type { ExecuteResult } from '../sandbox/sandbox.ts';
import { tokenMatches } from './auth.ts';
import { requestFromWire, responseToWire } from './invoke.ts';
import type { ServerMetrics } from './metrics.ts';
import type { ResolvedServerOptions } from './options.ts';
import { RemoteExecution } from './remote-execution.ts';
import {
  ALREADY_OPEN_MESSAGE,
  BINARY_FRAME_MESSAGE,
  CLIENT_CANCELLED,
  CLIENT_DISCONNECTED,
  connectionCapMessage,
  duplicateIdMessage,
  foreignInstanceMessage,
  NATIVE_OUTBOUND_REFUSED_MESSAGE,
  notFromClientMessage,
  SHUTTING_DOWN_MESSAGE,
} from './texts.ts';

/** What a connection needs from the server that holds it. */
export interface ConnectionContext {
  readonly executor: IsolateExecutor;
  readonly options: ResolvedServerOptions;
  readonly metrics: ServerMetrics;
  /** True once the server stopped taking work. */
  readonly draining: () => boolean;
  /** Registers a run, so shutdown can wait for it. */
  readonly track: (run: Promise<unknown>) => void;
}

export class ServerConnection {
  readonly #socket: WebSocket;
  readonly #context: ConnectionContext;
  #authenticated: boolean;
  #opened = false;
  #closed = false;
  readonly #helloTimer: NodeJS.Timeout;
  readonly #executions = new Map<string, RemoteExecution>();
  /** Executions this connection retained, by the executor's own id: closed when it ends. */
  readonly #retained = new Set<string>();
  /** Resolves once the connection has ended and its retained handles are closed. */
  readonly ended: Promise<void>;
  #onEnded: () => void = () => {};

  /** `authenticated` is true when the upgrade carried the token, or the server has none. */
  constructor(socket: WebSocket, context: ConnectionContext, authenticated: boolean) {
    this.#socket = socket;
    this.#context = context;
    this.#authenticated = authenticated;
    this.ended = new Promise((resolve) => {
      this.#onEnded = resolve;
    });
    this.#helloTimer = setTimeout(() => this.#refuseOpening(), context.options.helloTimeout);
    socket.on('message', (data, isBinary) => this.#onMessage(data, isBinary));
    socket.on('close', () => void this.#onClose());
    // ws reports a protocol violation (a frame past maxPayload, bad UTF-8) here and then closes.
    socket.on('error', () => {});
  }

  get inFlight(): number {
    return this.#executions.size;
  }

  /** Cancels every execution in flight; their CANCELLED envelopes still go to the client. */
  cancelAll(reason: string): void {
    for (const execution of this.#executions.values()) execution.cancel(reason);
  }

  close(code: number, reason: string): void {
    this.#socket.close(code, reason);
  }

  /** Drops the socket without the closing handshake, for a peer that never answers one. */
  terminate(): void {
    this.#socket.terminate();
  }

  #onMessage(data: RawData, isBinary: boolean): void {
    if (this.#closed) return;
    if (isBinary) {
      if (!this.#opened) this.#refuseOpening();
      else this.#send({ type: 'fault', code: 'BAD_REQUEST', message: BINARY_FRAME_MESSAGE });
      return;
    }
    const decoded = decodeMessage(textOf(data));
    if (!this.#opened) {
      this.#open(decoded.ok ? decoded.message : undefined);
      return;
    }
    if (!decoded.ok) {
      // The client will settle the conversation the fault names, so the server ends it too.
      if (decoded.fault.id !== undefined)
        this.#executions.get(decoded.fault.id)?.cancel(decoded.fault.message);
      this.#send({ type: 'fault', ...decoded.fault });
      return;
    }
    this.#route(decoded.message);
  }

  /** The first message: a hello, carrying the token unless the upgrade did, in this protocol version. */
  #open(message: Message | undefined): void {
    const hello = message?.type === 'hello' ? message : undefined;
    if (!this.#authenticated) {
      const token = this.#context.options.token;
      if (hello === undefined || token === undefined || !tokenMatches(token, hello.token)) {
        this.#refuseOpening();
        return;
      }
      this.#authenticated = true;
    }
    if (hello === undefined) {
      this.#refuseOpening();
      return;
    }
    if (hello.protocol !== PROTOCOL_VERSION) {
      this.#send({
        type: 'fault',
        code: 'BAD_REQUEST',
        message: versionMismatchMessage(PROTOCOL_VERSION, hello.protocol),
      });
      this.close(CLOSE_CODES.protocol, 'protocol version mismatch');
      return;
    }
    clearTimeout(this.#helloTimer);
    this.#opened = true;
    const instance = this.#context.options.instance;
    this.#send({ type: 'hello', protocol: PROTOCOL_VERSION, ...(instance ? { instance } : {}) });
  }

  /** No valid opening in time, or a wrong one: say why, then close. */
  #refuseOpening(): void {
    if (this.#opened || this.#closed) return;
    const [code, message] = this.#authenticated
      ? [CLOSE_CODES.protocol, HELLO_FIRST_MESSAGE]
      : [CLOSE_CODES.unauthorized, UNAUTHORIZED_MESSAGE];
    this.#send({ type: 'fault', code: 'BAD_REQUEST', message });
    this.close(code, code === CLOSE_CODES.unauthorized ? 'unauthorized' : 'no hello');
  }

  #route(message: Message): void {
    switch (message.type) {
      case 'execute':
        void this.#execute(message);
        return;
      case 'cancel':
        this.#executions.get(message.id)?.cancel(CLIENT_CANCELLED);
        return;
      case 'dispatchReply':
        this.#executions.get(message.id)?.answer('dispatch', message.call, message.frame);
        return;
      case 'outboundReply':
        this.#executions.get(message.id)?.answer('outbound', message.call, message.frame);
        return;
      case 'invoke':
        void this.#invoke(message);
        return;
      case 'closeHandles':
        void this.#closeHandles(message);
        return;
      case 'hello':
        this.#send({ type: 'fault', code: 'BAD_REQUEST', message: ALREADY_OPEN_MESSAGE });
        return;
      default:
        this.#send({ type: 'fault', code: 'BAD_REQUEST', message: notFromClientMessage(message.type) });
    }
  }

  async #execute({ id, request }: MessageOf<'execute'>): Promise<void> {
    const { options, executor, metrics } = this.#context;
    if (this.#executions.has(id)) {
      this.#send({ type: 'fault', id, code: 'BAD_REQUEST', message: duplicateIdMessage(id) });
      return;
    }
    const refusal = this.#context.draining()
      ? envelope('OVERLOADED', SHUTTING_DOWN_MESSAGE)
      : this.#executions.size >= options.maxExecutionsPerConnection
        ? envelope('OVERLOADED', connectionCapMessage(options.maxExecutionsPerConnection))
        : request.outbound === 'native' && !options.allowNativeOutbound
          ? envelope('BAD_REQUEST', NATIVE_OUTBOUND_REFUSED_MESSAGE)
          : undefined;
    if (refusal) {
      metrics.execution(refusal, 0);
      this.#sendResult(id, refusal);
      return;
    }
    const deadline = options.dispatchTimeout ?? request.timeout ?? options.defaultTimeout;
    const execution = new RemoteExecution(id, (message) => this.#sendOrThrow(message), deadline, metrics);
    this.#executions.set(id, execution);
    const started = performance.now();
    const run = executor.execute(hostRequest(request, execution), { signal: execution.signal });
    this.#context.track(run);
    const result = await run;
    execution.end('the execution has ended');
    this.#executions.delete(id);
    metrics.execution(result, (performance.now() - started) / 1000);
    if (result.executionId !== undefined) {
      if (this.#closed) {
        this.#closeQuietly(result.executionId);
        return;
      }
      this.#retained.add(result.executionId);
      if (options.instance) result.executionId = `${options.instance}.${result.executionId}`;
    }
    this.#sendResult(id, result);
  }

  async #invoke(message: MessageOf<'invoke'>): Promise<void> {
    const executionId = this.#ownId(message.id, message.executionId);
    if (executionId === undefined) return;
    let request: Request;
    try {
      request = requestFromWire(message.request);
    } catch (error) {
      this.#fault(message.id, 'BAD_REQUEST', `Invalid invoke message: request ${errorText(error)}`);
      return;
    }
    try {
      const response = await this.#context.executor.invoke(
        executionId,
        request,
        message.handle as HandleName,
      );
      this.#send({ type: 'invokeResult', id: message.id, response: await responseToWire(response) });
    } catch (error) {
      this.#fault(message.id, codeOf(error), errorText(error));
    }
  }

  async #closeHandles(message: MessageOf<'closeHandles'>): Promise<void> {
    const executionId = this.#ownId(message.id, message.executionId);
    if (executionId === undefined) return;
    this.#retained.delete(executionId);
    try {
      await this.#context.executor.closeHandles(executionId);
      this.#send({ type: 'ack', id: message.id });
    } catch (error) {
      this.#fault(message.id, codeOf(error), errorText(error));
    }
  }

  /** The executor's id behind the one the client holds: with an instance name, it carries a prefix. */
  #ownId(conversation: string, executionId: string): string | undefined {
    const instance = this.#context.options.instance;
    if (instance === undefined) return executionId;
    if (executionId.startsWith(`${instance}.`)) return executionId.slice(instance.length + 1);
    this.#fault(conversation, 'HANDLES_CLOSED', foreignInstanceMessage(executionId, instance));
    return undefined;
  }

  async #onClose(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#helloTimer);
    for (const execution of this.#executions.values()) {
      execution.cancel(CLIENT_DISCONNECTED);
      execution.end(CLIENT_DISCONNECTED);
    }
    const retained = [...this.#retained];
    this.#retained.clear();
    await Promise.all(retained.map((executionId) => this.#closeQuietly(executionId)));
    this.#onEnded();
  }

  /** Closes handles nobody can reach any more; ones already closed (idle, or by a call) are fine. */
  #closeQuietly(executionId: string): Promise<void> {
    return this.#context.executor.closeHandles(executionId).catch(() => {});
  }

  #sendResult(id: string, result: ExecuteResult): void {
    try {
      this.#sendOrThrow({ type: 'result', id, envelope: result });
    } catch (error) {
      const code = error instanceof PayloadTooLargeError ? 'PAYLOAD_TOO_LARGE' : 'INTERNAL';
      this.#send({ type: 'result', id, envelope: envelope(code, errorText(error)) });
    }
  }

  #fault(id: string, code: MessageOf<'fault'>['code'], message: string): void {
    this.#send({ type: 'fault', id, code, message });
  }

  /** Sends what can go; a message that cannot (closed socket) is dropped, and one past the limit is not sent. */
  #send(message: Message): void {
    try {
      this.#sendOrThrow(message);
    } catch {
      // Only a message past PAYLOAD_LIMIT throws here, and the senders above that can meet one
      // use #sendOrThrow and answer with a smaller message instead.
    }
  }

  #sendOrThrow(message: Message): void {
    const text = encodeMessage(message);
    if (this.#socket.readyState === this.#socket.OPEN) this.#socket.send(text);
  }
}

/** The request IsolateExecutor runs: the wire request, the client's dispatch, and the outbound rule. */
function hostRequest(request: ExecuteRequest, execution: RemoteExecution): IsolateExecuteRequest {
  const { outbound, ...rest } = request;
  // A request without an outbound mode is disabled, whatever the executor's own default.
  const setting = outbound === 'proxied' ? execution.outbound : outbound === 'native' ? undefined : null;
  // zod types optional keys as possibly undefined; a parsed request simply lacks absent ones.
  return { ...rest, dispatch: execution.dispatch, outbound: setting } as IsolateExecuteRequest;
}

function envelope(code: ExecuteResult['code'] & string, error: string): ExecuteResult {
  return { result: undefined, error, code, logs: [] };
}

function codeOf(error: unknown): MessageOf<'fault'>['code'] {
  const code = (error as { code?: unknown } | null)?.code;
  return isFaultCode(code) ? code : 'INTERNAL';
}

function textOf(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
