/**
 * @supolka/codemode-protocol: every shape that crosses a process or a network boundary of the
 * codemode executor. Runs unchanged in Node, Deno, browsers and Workers. It is the zod-free entry
 * (wire.ts, re-exported whole, so the two never drift apart) plus what needs zod: the schemas and
 * the validation built on them.
 */

export { MESSAGE_SCHEMAS, MESSAGE_TYPES } from './messages.ts';
export {
  BytesSchema,
  ExecutionIdSchema,
  HeaderPairsSchema,
  MessageIdSchema,
  MillisecondsSchema,
} from './schemas/common.ts';
export {
  ErrorKindSchema,
  errorDetails,
  FaultCodeSchema,
  faultEnvelope,
  LogLineSchema,
  ResultEnvelopeSchema,
  shapeEnvelope,
} from './schemas/envelope.ts';
export { FaultSchema } from './schemas/fault.ts';
export {
  DispatchFrameSchema,
  HttpRequestSchema,
  HttpResponseSchema,
  OutboundFrameSchema,
} from './schemas/frames.ts';
export {
  ExecuteRequestSchema,
  ModuleEntrySchema,
  ModuleMapSchema,
  OutboundModeSchema,
  ProviderDescriptorSchema,
} from './schemas/request.ts';
export {
  type CallerRequest,
  checkRequest,
  type RequestDefaults,
  type RequestForm,
  type RequestParts,
  splitRequest,
  withDefaults,
} from './split-request.ts';
export { decodeMessage, formatIssues, validate, validateExecutionId, validateMessage } from './validate.ts';
export * from './wire.ts';
