/**
 * @supolka/codemode-protocol/client: drive a remote executor server from any JavaScript runtime
 * with a standard WebSocket, serving the tools on the client's side. docs/server.md describes
 * the conversation; the same module is built as one self-contained ESM file,
 * `@supolka/codemode-protocol/client.bundle.js`, for runtimes without a package manager.
 */
export { CodecError, parseForDispatch, stringifyForDispatch } from '../codec.ts';
export {
  CodemodeError,
  DURABLE_TOKEN_CODES,
  type DurableTokenCode,
  ENVELOPE_CODES,
  type EnvelopeCode,
  FAULT_CODES,
  type FaultCode,
  REPLAY_DIVERGED,
} from '../errors.ts';
export { isPauseSignal, PauseSignal } from '../pause-signal.ts';
export type { PausedRun, PendingCall } from '../schemas/durable.ts';
export type { ExecuteResult, LogLine } from '../schemas/envelope.ts';
export type { Fault } from '../schemas/fault.ts';
export type { HttpRequest, HttpResponse } from '../schemas/frames.ts';
export {
  CANCEL_REASON_PROTOCOL_VERSION,
  CONSOLE_PROTOCOL_VERSION,
  DURABLE_PROTOCOL_VERSION,
  MIN_PROTOCOL_VERSION,
  PROTOCOL_VERSION,
} from '../version.ts';
export { type ClientDurableCall, durableCall, pause } from './durable-call.ts';
export {
  CANCEL_ANSWER_GRACE,
  type ClientExecuteOptions,
  type ClientExecuteRequest,
  type ClientProvider,
  ConnectionClosedError,
  type ConnectOptions,
  ExecutorClient,
  type OutboundHandler,
  REFUSAL_BACKLOG,
  SERVED_CALL_LIMIT,
  type ToolFunction,
} from './executor-client.ts';
export { fromWireResponse, toWireRequest, toWireResponse } from './http.ts';
export type { ClientResumeAnswer, ClientResumeAnswers } from './resume-answers.ts';
export { INSTANCE_PARAMETER, instanceOf, instanceUrl } from './routing.ts';
export {
  CLOSE_CODES,
  clientVersionMessage,
  connectionClosedCause,
  connectionClosedMessage,
  connectRefusedMessage,
  consoleFormatVersionMessage,
  durableVersionMessage,
  HELLO_FIRST_MESSAGE,
  HELLO_TOKEN_REFUSED_MESSAGE,
  TOKEN_REFUSED_MESSAGE,
  UNAUTHORIZED_MESSAGE,
  UNAUTHORIZED_REASONS,
  versionMismatchMessage,
} from './texts.ts';
export type {
  AbortSignalLike,
  HeadersLike,
  RequestLike,
  ResponseLike,
  WebSocketLike,
} from './web.ts';
