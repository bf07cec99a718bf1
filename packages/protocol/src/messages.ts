/**
 * Every message a client and an executor server exchange, keyed by its `type`: the protocol's
 * message table (docs/protocol.md, "Messages").
 *
 * Adding a message is adding one entry to MESSAGE_SCHEMAS (and its tests): the union, the
 * Message types and decodeMessage all derive from this table. The executor's pool speaks to its
 * children with a table of its own (packages/executor/src/pool/messages/), which takes the
 * messages the two share (an execution, its tool calls, its result) from this one and adds the
 * pool's private ones (a heartbeat, a child's last words): so neither a client nor a server
 * knows those, and a server refuses one as it refuses any type it does not know.
 */
import { z } from 'zod';
import { LOG_LINE_LIMIT } from './limits.ts';
import { ExecutionIdSchema, MessageIdSchema } from './schemas/common.ts';
import { DurableCallSchema, PauseSchema, ResumeAnswersSchema, TokenSchema } from './schemas/durable.ts';
import { EnvelopeCodeSchema, LogLineSchema, ResultEnvelopeSchema } from './schemas/envelope.ts';
import {
  DispatchFrameSchema,
  HttpRequestSchema,
  HttpResponseSchema,
  OutboundFrameSchema,
} from './schemas/frames.ts';
import { ExecuteRequestSchema } from './schemas/request.ts';

const callNumber = z
  .number({ error: 'must be a number' })
  .int({ error: 'must be a whole number' })
  .min(0, { error: 'must not be negative' });

/** A message's schema: its `type` and its fields, and no other key. Another table's messages take it too. */
export const messageSchema = <Type extends string, Shape extends z.core.$ZodLooseShape>(
  type: Type,
  fields: Shape,
) => z.strictObject({ type: z.literal(type), ...fields });

export const MESSAGE_SCHEMAS = {
  /**
   * Opens a connection: the protocol version the sender speaks. A client whose WebSocket cannot set
   * headers (a browser's) carries its bearer `token` here instead; a server that has a name for
   * load-balancer routing states it as `instance`.
   */
  hello: messageSchema('hello', {
    protocol: z.number({ error: 'must be a number' }).int({ error: 'must be a whole number' }),
    token: z.string({ error: 'must be a string' }).optional(),
    instance: z.string({ error: 'must be a string' }).optional(),
  }),
  /** Asks for one execution; `id` names it for every message of its conversation. */
  execute: messageSchema('execute', {
    id: MessageIdSchema,
    request: ExecuteRequestSchema,
    /**
     * The pool's: a pool child sends `hostWait` messages for this execution (the pool's own table);
     * without it the edges stay in the executor. A server accepts it and asks for nothing.
     */
    reportHostWaits: z.boolean({ error: 'must be a boolean' }).optional(),
    /** Send the run's console lines in `console` messages as they are written, besides the envelope's logs. */
    streamConsole: z.boolean({ error: 'must be a boolean' }).optional(),
  }),
  /**
   * Console lines of a running execution that asked for them (`streamConsole`), in the order
   * written, batched; every line is also in the envelope's `logs`, and all of them arrive before
   * the `result`.
   */
  console: messageSchema('console', {
    id: MessageIdSchema,
    // Bounded as the envelope's logs are (every line is in them too): checked before the lines
    // are, so a child's million bad lines cost one issue, not a million (seconds and hundreds of MB).
    lines: z
      .array(LogLineSchema, { error: 'must be a list of log lines' })
      .max(LOG_LINE_LIMIT, { error: `must hold at most ${LOG_LINE_LIMIT} lines` }),
  }),
  /** Ends an execution's conversation with its envelope. */
  result: messageSchema('result', { id: MessageIdSchema, envelope: ResultEnvelopeSchema }),
  /**
   * One tool call of a running execution, for whoever serves the tools. `args` is codec JSON.
   * `durable` (version 3): the call of a durable run, with its sequence, and on a call a resume
   * performs, the idempotency key the tool passes on (docs/durable.md).
   */
  dispatch: messageSchema('dispatch', {
    id: MessageIdSchema,
    call: callNumber,
    provider: z.string({ error: 'must be a string' }),
    tool: z.string({ error: 'must be a string' }),
    args: z.string({ error: 'must be a string of codec JSON' }),
    durable: DurableCallSchema.optional(),
  }),
  /** The answer to one tool call; `paused` (version 3): the tool paused its durable run, with why. */
  dispatchReply: messageSchema('dispatchReply', {
    id: MessageIdSchema,
    call: callNumber,
    frame: DispatchFrameSchema,
    paused: PauseSchema.optional(),
  }),
  /** One outbound request of a running execution in proxied mode, for the caller to perform. */
  outbound: messageSchema('outbound', { id: MessageIdSchema, call: callNumber, request: HttpRequestSchema }),
  /** The answer to one outbound request. */
  outboundReply: messageSchema('outboundReply', {
    id: MessageIdSchema,
    call: callNumber,
    frame: OutboundFrameSchema,
  }),
  /** Invokes a retained handler of the execution `executionId` with a request. */
  invoke: messageSchema('invoke', {
    id: MessageIdSchema,
    executionId: ExecutionIdSchema,
    handle: z.string({ error: 'must be a string' }),
    request: HttpRequestSchema,
  }),
  /** The response of one invocation. */
  invokeResult: messageSchema('invokeResult', { id: MessageIdSchema, response: HttpResponseSchema }),
  /** Ends a retained execution and disposes its isolate. */
  closeHandles: messageSchema('closeHandles', {
    id: MessageIdSchema,
    executionId: ExecutionIdSchema,
  }),
  /** Confirms a request that has no other answer (closeHandles). */
  ack: messageSchema('ack', { id: MessageIdSchema }),
  /**
   * Resumes a paused durable run (version 3; docs/durable.md, "Over the wire"): the token its
   * paused envelope carried, an answer for each pending call, and the request it paused under.
   * Answered as an execute is: its tool calls, console and a `result` under `id`.
   */
  resume: messageSchema('resume', {
    id: MessageIdSchema,
    token: TokenSchema,
    answers: ResumeAnswersSchema,
    request: ExecuteRequestSchema,
    streamConsole: z.boolean({ error: 'must be a boolean' }).optional(),
  }),
  /**
   * Spends a paused run's token without resuming it (version 3): opened as a resume of `request`
   * would open it. Answered by `discarded`, or a `fault` with the token's refusal code.
   */
  discard: messageSchema('discard', {
    id: MessageIdSchema,
    token: TokenSchema,
    request: ExecuteRequestSchema,
  }),
  /** The answer to `discard`: the token's id, and whether a claim store spent it (without one it resumes until it expires). */
  discarded: messageSchema('discarded', {
    id: MessageIdSchema,
    tokenId: z.string({ error: 'must be a string' }),
    claimed: z.boolean({ error: 'must be a boolean' }),
  }),
  /**
   * Cancels the running execution `id`; it ends with an envelope whose code is CANCELLED. `reason`
   * (version 3) is the caller's, which the envelope's error repeats, cut to REASON_ECHO_LIMIT.
   */
  cancel: messageSchema('cancel', {
    id: MessageIdSchema,
    reason: z.string({ error: 'must be a string' }).optional(),
  }),
  /** A request failed, or a message could not be accepted. `id` names the conversation when known. */
  fault: messageSchema('fault', {
    id: MessageIdSchema.optional(),
    // A durable code only answers a discard, which only a client of version 3 sends.
    code: EnvelopeCodeSchema,
    message: z.string({ error: 'must be a string' }),
  }),
};

/** What a message of any table has: its type. */
export interface TypedMessage {
  readonly type: string;
}

/** A table of message schemas by type, as MESSAGE_SCHEMAS is (and the pool's is). */
export type MessageSchemas = Readonly<Record<string, z.ZodType<TypedMessage>>>;
/** Every message a table describes, as one union. */
export type MessageIn<Schemas extends MessageSchemas> = {
  [Type in keyof Schemas]: z.infer<Schemas[Type]>;
}[keyof Schemas];

export type MessageType = keyof typeof MESSAGE_SCHEMAS;
export type Message = MessageIn<typeof MESSAGE_SCHEMAS>;
export type MessageOf<Type extends MessageType> = z.infer<(typeof MESSAGE_SCHEMAS)[Type]>;

export const MESSAGE_TYPES = Object.keys(MESSAGE_SCHEMAS) as MessageType[];
