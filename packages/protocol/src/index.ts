/**
 * @supolka/codemode-protocol: every shape a client and a codemode executor exchange, and the
 * codec, limits and validation every boundary of the executor is built on (the executor's pool
 * builds its own message table from these). Runs unchanged in Node, Deno, browsers and Workers. It
 * is the zod-free entry (wire.ts, re-exported whole, so the two never drift apart) plus what needs
 * zod: the schemas and the validation built on them.
 */

export { checkRequest, splitRequest } from './check-request.ts';
export { MESSAGE_SCHEMAS, MESSAGE_TYPES, messageSchema } from './messages.ts';
export {
  BytesSchema,
  boundedRecord,
  ExecutionIdSchema,
  HeaderPairsSchema,
  MessageIdSchema,
  MillisecondsSchema,
} from './schemas/common.ts';
export {
  DurableCallSchema,
  PausedRunSchema,
  PauseSchema,
  PendingCallSchema,
  ResumeAnswerSchema,
  ResumeAnswersSchema,
  SequenceSchema,
  TokenSchema,
} from './schemas/durable.ts';
export {
  EnvelopeCodeSchema,
  ErrorKindSchema,
  FaultCodeSchema,
  LogLineSchema,
  ResultEnvelopeSchema,
} from './schemas/envelope.ts';
export { FaultSchema } from './schemas/fault.ts';
export {
  DispatchFrameSchema,
  HttpRequestSchema,
  HttpResponseSchema,
  OutboundFrameSchema,
} from './schemas/frames.ts';
export {
  ConsoleFormatSchema,
  ExecuteRequestSchema,
  ModuleEntrySchema,
  ModuleMapSchema,
  OutboundModeSchema,
  ProviderDescriptorSchema,
} from './schemas/request.ts';
export {
  decodeMessage,
  formatIssues,
  type MessageValidation,
  messageValidation,
  validate,
  validateExecutionId,
  validateMessage,
} from './validate.ts';
export * from './wire.ts';
