/**
 * Every message that crosses a process or a network, keyed by its `type`. The same messages travel
 * between the pool and its children and between a remote client and an executor server.
 *
 * Adding a message is adding one entry to MESSAGE_SCHEMAS (and its tests): the union, the
 * Message types and decodeMessage all derive from this table.
 */
import { z } from 'zod';
import { CLOSED_REASON_LIMIT, LOG_LINE_LIMIT } from './limits.ts';
import { ExecutionIdSchema, MessageIdListSchema, MessageIdSchema } from './schemas/common.ts';
import { FaultCodeSchema, LogLineSchema, ResultEnvelopeSchema } from './schemas/envelope.ts';
import {
  DispatchFrameSchema,
  HttpRequestSchema,
  HttpResponseSchema,
  OutboundFrameSchema,
} from './schemas/frames.ts';
import { HealthSchema } from './schemas/health.ts';
import { ExecuteRequestSchema } from './schemas/request.ts';

const callNumber = z
  .number({ error: 'must be a number' })
  .int({ error: 'must be a whole number' })
  .min(0, { error: 'must not be negative' });

const shape = <Type extends string, Shape extends z.core.$ZodLooseShape>(type: Type, fields: Shape) =>
  z.strictObject({ type: z.literal(type), ...fields });

export const MESSAGE_SCHEMAS = {
  /**
   * Opens a connection: the protocol version the sender speaks. A client whose WebSocket cannot set
   * headers (a browser's) carries its bearer `token` here instead; a server that has a name for
   * load-balancer routing states it as `instance`.
   */
  hello: shape('hello', {
    protocol: z.number({ error: 'must be a number' }).int({ error: 'must be a whole number' }),
    token: z.string({ error: 'must be a string' }).optional(),
    instance: z.string({ error: 'must be a string' }).optional(),
  }),
  /** Asks for one execution; `id` names it for every message of its conversation. */
  execute: shape('execute', {
    id: MessageIdSchema,
    request: ExecuteRequestSchema,
    /** Send hostWait messages for this execution; without it the edges stay in the executor. */
    reportHostWaits: z.boolean({ error: 'must be a boolean' }).optional(),
    /** Send the run's console lines in `console` messages as they are written, besides the envelope's logs. */
    streamConsole: z.boolean({ error: 'must be a boolean' }).optional(),
  }),
  /**
   * Console lines of a running execution that asked for them (`streamConsole`), in the order
   * written, batched; every line is also in the envelope's `logs`, and all of them arrive before
   * the `result`.
   */
  console: shape('console', {
    id: MessageIdSchema,
    // Bounded as the envelope's logs are (every line is in them too): checked before the lines
    // are, so a child's million bad lines cost one issue, not a million (seconds and hundreds of MB).
    lines: z
      .array(LogLineSchema, { error: 'must be a list of log lines' })
      .max(LOG_LINE_LIMIT, { error: `must hold at most ${LOG_LINE_LIMIT} lines` }),
  }),
  /** Ends an execution's conversation with its envelope. */
  result: shape('result', { id: MessageIdSchema, envelope: ResultEnvelopeSchema }),
  /** One tool call of a running execution, for whoever serves the tools. `args` is codec JSON. */
  dispatch: shape('dispatch', {
    id: MessageIdSchema,
    call: callNumber,
    provider: z.string({ error: 'must be a string' }),
    tool: z.string({ error: 'must be a string' }),
    args: z.string({ error: 'must be a string of codec JSON' }),
  }),
  /** The answer to one tool call. */
  dispatchReply: shape('dispatchReply', {
    id: MessageIdSchema,
    call: callNumber,
    frame: DispatchFrameSchema,
  }),
  /** One outbound request of a running execution in proxied mode, for the caller to perform. */
  outbound: shape('outbound', { id: MessageIdSchema, call: callNumber, request: HttpRequestSchema }),
  /** The answer to one outbound request. */
  outboundReply: shape('outboundReply', {
    id: MessageIdSchema,
    call: callNumber,
    frame: OutboundFrameSchema,
  }),
  /** Invokes a retained handler of the execution `executionId` with a request. */
  invoke: shape('invoke', {
    id: MessageIdSchema,
    executionId: ExecutionIdSchema,
    handle: z.string({ error: 'must be a string' }),
    request: HttpRequestSchema,
  }),
  /** The response of one invocation. */
  invokeResult: shape('invokeResult', { id: MessageIdSchema, response: HttpResponseSchema }),
  /** Ends a retained execution and disposes its isolate. */
  closeHandles: shape('closeHandles', {
    id: MessageIdSchema,
    executionId: ExecutionIdSchema,
  }),
  /** Confirms a request that has no other answer (closeHandles). */
  ack: shape('ack', { id: MessageIdSchema }),
  /** Cancels the running execution `id`; it ends with an envelope whose code is CANCELLED. */
  cancel: shape('cancel', { id: MessageIdSchema }),
  /**
   * The outermost edges of the execution's waits on its caller (a tool call, a proxied fetch):
   * `true` when the first opens, `false` when the last closes, so the layer above pauses with the run.
   */
  hostWait: shape('hostWait', {
    id: MessageIdSchema,
    waiting: z.boolean({ error: 'must be a boolean' }),
  }),
  /** A worker has an isolate ready for its next execution (it prepares one after each). */
  prepared: shape('prepared', {}),
  /**
   * A worker is about to end because an isolate ran out of memory where its own limit could not
   * stop it: V8's fatal out-of-memory (`engine`) or the worker's resident-memory backstop
   * (`backstop`). `conversations` names what the culprit was serving (the execute id of its run, or
   * the invoke ids of a retained execution), `executionId` the retained execution when it was one;
   * those read MEMORY_LIMIT at `memoryLimit`, everything else the worker held reads WORKER_LOST.
   */
  outOfMemory: shape('outOfMemory', {
    conversations: MessageIdListSchema,
    executionId: ExecutionIdSchema.optional(),
    memoryLimit: z
      .number({ error: 'must be a number' })
      .int({ error: 'must be a whole number' })
      .min(1, { error: 'must be positive' }),
    cause: z.enum(['engine', 'backstop'], { error: 'must be engine or backstop' }),
    /** Resident memory when the worker decided, and the ceiling it passed (backstop), in bytes. */
    rss: z.number({ error: 'must be a number' }).min(0, { error: 'must not be negative' }).optional(),
    ceiling: z.number({ error: 'must be a number' }).min(0, { error: 'must not be negative' }).optional(),
  }),
  /**
   * A worker is about to end because the engine could not stop an isolate that ran past its bound
   * (the engine's "Script failed to terminate": its timer asked, and a builtin that does
   * not check for interrupts kept running). `conversations` and `executionId` name what that isolate
   * was serving, as in `outOfMemory`; those read TIMEOUT at `timeout`, the rest WORKER_LOST.
   */
  timedOut: shape('timedOut', {
    conversations: MessageIdListSchema,
    executionId: ExecutionIdSchema.optional(),
    timeout: z
      .number({ error: 'must be a number' })
      .int({ error: 'must be a whole number' })
      .min(0, { error: 'must not be negative' }),
  }),
  /**
   * A worker ended a retained execution on its own (its timer work between invocations passed its
   * bound), so the route to it goes at once; the next invoke reads HANDLES_CLOSED with `message`.
   */
  handlesClosed: shape('handlesClosed', {
    executionId: ExecutionIdSchema,
    message: z
      .string({ error: 'must be a string' })
      .max(CLOSED_REASON_LIMIT, { error: `must be at most ${CLOSED_REASON_LIMIT} characters` }),
  }),
  /**
   * A worker disposed an isolate (its run or invocation ended at its bound, or was cancelled) whose
   * thread had not stopped `settle` ms later: a builtin that never checks for interrupts keeps
   * running guest code. The worker takes no more work and is ended; what it answered stands.
   */
  wedged: shape('wedged', {
    settle: z
      .number({ error: 'must be a number' })
      .int({ error: 'must be a whole number' })
      .min(0, { error: 'must not be negative' }),
  }),
  /** Asks a worker whether it can serve; answered by `health`, or by a `fault` saying why it cannot. */
  heartbeat: shape('heartbeat', { id: MessageIdSchema }),
  /** A worker's answer to `heartbeat`: its engine report and what it holds. */
  health: shape('health', { id: MessageIdSchema, ...HealthSchema }),
  /** A request failed, or a message could not be accepted. `id` names the conversation when known. */
  fault: shape('fault', {
    id: MessageIdSchema.optional(),
    code: FaultCodeSchema,
    message: z.string({ error: 'must be a string' }),
  }),
};

export type MessageType = keyof typeof MESSAGE_SCHEMAS;
export type Message = { [Type in MessageType]: z.infer<(typeof MESSAGE_SCHEMAS)[Type]> }[MessageType];
export type MessageOf<Type extends MessageType> = z.infer<(typeof MESSAGE_SCHEMAS)[Type]>;

export const MESSAGE_TYPES = Object.keys(MESSAGE_SCHEMAS) as MessageType[];
