/**
 * @supolka/codemode-protocol/wire: everything of the package that loads no zod. The constants,
 * error texts and classes, the codec, the message encode and the decode up to the hot messages'
 * checks (message-wire.ts), and the shapes as types only. A process that must stay small at rest
 * (the executor's pool child, its type eraser's thread) imports this, and the package's main entry
 * when it needs a schema; both share these modules, so an error class is the same class from
 * either (docs/protocol.md, "The zod-free entry").
 */
export { CodecError, parseForDispatch, stringifyForDispatch } from './codec.ts';
export { CODEC_IDENTIFIERS } from './codec-identifiers.ts';
export { ECHO_LIMIT, ECHO_LIST_LIMIT, echo, echoList, REASON_ECHO_LIMIT } from './echo.ts';
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
export { checkExecuteRequest } from './hot-messages.ts';
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
} from './message-wire.ts';
export type { Message, MessageOf, MessageType } from './messages.ts';
export { validateProviders } from './providers.ts';
export {
  INTERNAL_NAMES,
  LANGUAGE_GLOBALS,
  RESERVED_WORDS,
  RUNTIME_GLOBALS,
  reservedReason,
} from './reserved.ts';
export type { ExecuteResult, LogLine, ResultEnvelope } from './schemas/envelope.ts';
export type { Fault } from './schemas/fault.ts';
export type { DispatchFrame, HttpRequest, HttpResponse, OutboundFrame } from './schemas/frames.ts';
export type {
  ExecuteRequest,
  ModuleEntry,
  ModuleMap,
  OutboundMode,
  ProviderDescriptor,
} from './schemas/request.ts';
export { checkSourceLimits, sourceLimitMessage } from './source-limits.ts';
export {
  agreedVersion,
  CONSOLE_PROTOCOL_VERSION,
  MIN_PROTOCOL_VERSION,
  PROTOCOL_VERSION,
} from './version.ts';
