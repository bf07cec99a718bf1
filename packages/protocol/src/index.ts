/**
 * @supolka/codemode-protocol: every shape that crosses a process or a network boundary of the
 * codemode executor. Runs unchanged in Node, Deno, browsers and Workers.
 */
export { CodecError, parseForDispatch, stringifyForDispatch } from './codec.ts';
export { CODEC_IDENTIFIERS } from './codec-identifiers.ts';
export * from './errors.ts';
export { checkExecuteRequest } from './hot-messages.ts';
export { type SeparatedImports, separateImports } from './imports.ts';
export * from './limits.ts';
export { type MessageScan, scanMessage, valueCount } from './message-scan.ts';
export {
  MESSAGE_SCHEMAS,
  MESSAGE_TYPES,
  type Message,
  type MessageOf,
  type MessageType,
} from './messages.ts';
export { validateProviders } from './providers.ts';
export {
  INTERNAL_PREFIX,
  LANGUAGE_GLOBALS,
  RESERVED_WORDS,
  RUNTIME_GLOBALS,
  reservedReason,
} from './reserved.ts';
export {
  BytesSchema,
  ExecutionIdSchema,
  HeaderPairsSchema,
  MessageIdSchema,
  MillisecondsSchema,
} from './schemas/common.ts';
export {
  ErrorKindSchema,
  type ExecuteResult,
  errorDetails,
  FaultCodeSchema,
  faultEnvelope,
  type LogLine,
  LogLineSchema,
  type ResultEnvelope,
  ResultEnvelopeSchema,
  shapeEnvelope,
} from './schemas/envelope.ts';
export { type Fault, FaultSchema } from './schemas/fault.ts';
export {
  type DispatchFrame,
  DispatchFrameSchema,
  type HttpRequest,
  HttpRequestSchema,
  type HttpResponse,
  HttpResponseSchema,
  type OutboundFrame,
  OutboundFrameSchema,
} from './schemas/frames.ts';
export {
  type ExecuteRequest,
  ExecuteRequestSchema,
  type ModuleEntry,
  ModuleEntrySchema,
  type ModuleMap,
  ModuleMapSchema,
  type OutboundMode,
  OutboundModeSchema,
  type ProviderDescriptor,
  ProviderDescriptorSchema,
} from './schemas/request.ts';
export { checkSourceLimits, sourceLimitMessage } from './source-limits.ts';
export {
  type Decoded,
  decodeMessage,
  describeValue,
  encodeMessage,
  formatIssues,
  formatPath,
  validate,
  validateExecutionId,
  validateMessage,
} from './validate.ts';
export {
  agreedVersion,
  CONSOLE_PROTOCOL_VERSION,
  MIN_PROTOCOL_VERSION,
  PROTOCOL_VERSION,
} from './version.ts';
