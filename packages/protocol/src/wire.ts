/**
 * @supolka/codemode-protocol/wire: everything of the package that loads no zod. The constants,
 * error texts and classes, the codec, the message encode and the decode up to the hot messages'
 * checks (message-wire.ts), the means to build them for another table (messageWire), and the
 * shapes as types only. A process that must stay small at rest
 * (the executor's pool child, its type eraser's thread) imports this, and the package's main entry
 * when it needs a schema; both share these modules, so an error class is the same class from
 * either (docs/protocol.md, "The zod-free entry").
 */
// The connection's own texts and close codes, as the client entry offers them: a server opens and
// refuses connections in these words without loading the client, which validates with zod.
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
} from './client/texts.ts';
export { CodecError, parseForDispatch, stringifyForDispatch } from './codec.ts';
export { CODEC_IDENTIFIERS } from './codec-identifiers.ts';
export { ECHO_LIMIT, ECHO_LIST_LIMIT, echo, echoList, REASON_ECHO_LIMIT } from './echo.ts';
export {
  DETAILS_FIELDS,
  DURABLE_VERSION_MESSAGE,
  envelopeForVersion,
  errorDetails,
  faultEnvelope,
  shapeEnvelope,
} from './envelope-shape.ts';
export * from './errors.ts';
export {
  buildDispatch,
  type DispatchFunction,
  describeProviders,
  type HostFunctions,
  type OutboundSetting,
  outboundMode,
  type ToolFunction,
  type ToolProvider,
} from './host-part.ts';
// The hot checks and their building blocks, for a table built on the protocol's (the executor's pool).
export {
  checkExecuteRequest,
  checkModuleEntry,
  checkModules,
  HOT_MESSAGE_CHECKS,
  ID_ONLY_KEYS,
  isId,
  knownKeys,
} from './hot-messages.ts';
export { type SeparatedImports, separateImports } from './imports.ts';
export * from './limits.ts';
export { type MessageScan, scanMessage, valueCount } from './message-scan.ts';
export {
  checkHotMessage,
  type Decoded,
  decodeHotMessage,
  describeValue,
  encodeMessage,
  formatPath,
  type HotDecoded,
  type HotMessageChecks,
  type MessageWire,
  messageWire,
} from './message-wire.ts';
export type {
  Message,
  MessageIn,
  MessageOf,
  MessageSchemas,
  MessageType,
  TypedMessage,
} from './messages.ts';
export { decideOnDemand, type OnDemand, onDemand, type SchemasFault } from './on-demand.ts';
export {
  isPauseSignal,
  NOT_DURABLE_PAUSE_MESSAGE,
  type PauseRequest,
  PauseSignal,
  pauseRequest,
} from './pause-signal.ts';
export { validateProviders } from './providers.ts';
export {
  INTERNAL_NAMES,
  LANGUAGE_GLOBALS,
  RESERVED_WORDS,
  RUNTIME_GLOBALS,
  reservedReason,
} from './reserved.ts';
export type {
  DurableCallMessage,
  PausedRun,
  PauseMessage,
  PendingCall,
  ResumeAnswerMessage,
} from './schemas/durable.ts';
export type { ExecuteResult, LogLine, ResultEnvelope } from './schemas/envelope.ts';
export type { Fault } from './schemas/fault.ts';
export type { DispatchFrame, HttpRequest, HttpResponse, OutboundFrame } from './schemas/frames.ts';
export type {
  ConsoleFormat,
  ExecuteRequest,
  ModuleEntry,
  ModuleMap,
  OutboundMode,
  ProviderDescriptor,
} from './schemas/request.ts';
export { checkSourceLimits, sourceLimitMessage } from './source-limits.ts';
export {
  type CallerRequest,
  type RequestDefaults,
  type RequestForm,
  type RequestParts,
  separateRequest,
  withDefaults,
} from './split-request.ts';
export { isErrorAnswer } from './tool-answer.ts';
export {
  agreedVersion,
  CANCEL_REASON_PROTOCOL_VERSION,
  CONSOLE_PROTOCOL_VERSION,
  DETAILS_PROTOCOL_VERSION,
  DURABLE_PROTOCOL_VERSION,
  MIN_PROTOCOL_VERSION,
  PROTOCOL_VERSION,
} from './version.ts';
