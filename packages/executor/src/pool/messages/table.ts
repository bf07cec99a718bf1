/**
 * The pool's message table: every message the pool and its children exchange on their channel, by
 * type, validated with zod on arrival as every message at a process boundary is (docs/pool.md,
 * "The wire between parent and child").
 *
 * The messages a client and a server exchange too (an execution, its tool calls and outbound
 * requests, its console and result, the retained handles' calls, cancel, fault) are the protocol's,
 * taken from its table as they are: the pool forwards them, so they are defined once, there. Two
 * of them carry one more optional field here, a durable run's (durable-schemas.ts). The
 * rest are the pool's own (a heartbeat and its answer, a child's readiness, its host-wait edges,
 * its last words, what its start made), which no client or server knows: a server refuses one as an unknown type.
 *
 * This module loads zod; wire.ts is the table's zod-free half (the hot checks, the encode), which a
 * child at rest decodes with, loading this module with the first message only a schema can decide.
 */
import {
  CLOSED_REASON_LIMIT,
  ExecutionIdSchema,
  MESSAGE_SCHEMAS,
  MessageIdSchema,
  type MessageIn,
  messageSchema,
  messageValidation,
} from '@supolka/codemode-protocol';
import { z } from 'zod';
import { DURABLE_MESSAGE_SCHEMAS } from './durable-schemas.ts';
import { HandOnSchema, SnapshotSchema } from './hand-on.ts';
import { HealthSchema } from './health.ts';
import { PackagesMessageSchema } from './packages.ts';
import { POOL_WIRE } from './wire.ts';

/**
 * A list of message ids of any length (the conversations a child names when it ends: a run's, or
 * every invoke in flight of a retained execution). Checked whole first, with one issue for the
 * list, then element by element: zod makes one issue per bad element, and a child's million bad
 * elements (2 MB) took the parent over a second and 640 MB to refuse.
 */
export const MessageIdListSchema = z
  .custom<unknown[]>(
    // The element's own schema, stopping at the first it refuses: the whole list's verdict is
    // exactly the elements' (zod counts a long string's length in code points, not UTF-16 units).
    (value) => Array.isArray(value) && value.every((id) => MessageIdSchema.safeParse(id).success),
    { error: 'must be a list of message ids' },
  )
  .pipe(z.array(MessageIdSchema));

export const POOL_MESSAGE_SCHEMAS = {
  // The protocol's messages, as the protocol defines them; two with the field a durable run adds
  // between the pool and its child (durable-schemas.ts), which no client or server knows.
  execute: DURABLE_MESSAGE_SCHEMAS.execute,
  console: MESSAGE_SCHEMAS.console,
  result: DURABLE_MESSAGE_SCHEMAS.result,
  dispatch: MESSAGE_SCHEMAS.dispatch,
  dispatchReply: MESSAGE_SCHEMAS.dispatchReply,
  outbound: MESSAGE_SCHEMAS.outbound,
  outboundReply: MESSAGE_SCHEMAS.outboundReply,
  invoke: MESSAGE_SCHEMAS.invoke,
  invokeResult: MESSAGE_SCHEMAS.invokeResult,
  closeHandles: MESSAGE_SCHEMAS.closeHandles,
  ack: MESSAGE_SCHEMAS.ack,
  cancel: MESSAGE_SCHEMAS.cancel,
  fault: MESSAGE_SCHEMAS.fault,
  /**
   * The outermost edges of the execution's waits on its caller (a tool call, a proxied fetch):
   * `true` when the first opens, `false` when the last closes, so the layer above pauses with the
   * run. Sent only for an execute message that asked (`reportHostWaits`).
   */
  hostWait: messageSchema('hostWait', {
    id: MessageIdSchema,
    waiting: z.boolean({ error: 'must be a boolean' }),
  }),
  /** A child has an isolate ready for its next execution (it prepares one after each). */
  prepared: messageSchema('prepared', {}),
  /**
   * A child is about to end because an isolate ran out of memory where its own limit could not
   * stop it: V8's fatal out-of-memory (`engine`) or the child's resident-memory backstop
   * (`backstop`). `conversations` names what the culprit was serving (the execute id of its run, or
   * the invoke ids of a retained execution), `executionId` the retained execution when it was one;
   * those read MEMORY_LIMIT at `memoryLimit`, everything else the child held reads WORKER_LOST.
   */
  outOfMemory: messageSchema('outOfMemory', {
    conversations: MessageIdListSchema,
    executionId: ExecutionIdSchema.optional(),
    memoryLimit: z
      .number({ error: 'must be a number' })
      .int({ error: 'must be a whole number' })
      .min(1, { error: 'must be positive' }),
    cause: z.enum(['engine', 'backstop'], { error: 'must be engine or backstop' }),
    /** Resident memory when the child decided, and the ceiling it passed (backstop), in bytes. */
    rss: z.number({ error: 'must be a number' }).min(0, { error: 'must not be negative' }).optional(),
    ceiling: z.number({ error: 'must be a number' }).min(0, { error: 'must not be negative' }).optional(),
  }),
  /**
   * A child is about to end because the engine could not stop an isolate that ran past its bound
   * (the engine's "Script failed to terminate": its timer asked, and a builtin that does not check
   * for interrupts kept running). `conversations` and `executionId` name what that isolate was
   * serving, as in `outOfMemory`; those read TIMEOUT at `timeout`, the rest WORKER_LOST.
   */
  timedOut: messageSchema('timedOut', {
    conversations: MessageIdListSchema,
    executionId: ExecutionIdSchema.optional(),
    timeout: z
      .number({ error: 'must be a number' })
      .int({ error: 'must be a whole number' })
      .min(0, { error: 'must not be negative' }),
  }),
  /**
   * A child ended a retained execution on its own (its timer work between invocations passed its
   * bound), so the route to it goes at once; the next invoke reads HANDLES_CLOSED with `message`.
   */
  handlesClosed: messageSchema('handlesClosed', {
    executionId: ExecutionIdSchema,
    message: z
      .string({ error: 'must be a string' })
      .max(CLOSED_REASON_LIMIT, { error: `must be at most ${CLOSED_REASON_LIMIT} characters` }),
  }),
  /**
   * A child disposed an isolate (its run or invocation ended at its bound, or was cancelled) whose
   * thread had not stopped `settle` ms later: a builtin that never checks for interrupts keeps
   * running guest code. The child takes no more work and is ended once it answered `id`, the run or
   * invocation whose answer follows this report; what it answered stands.
   */
  wedged: messageSchema('wedged', {
    settle: z
      .number({ error: 'must be a number' })
      .int({ error: 'must be a whole number' })
      .min(0, { error: 'must not be negative' }),
    id: MessageIdSchema.optional(),
  }),
  /** Asks a child whether it can serve; answered by `health`, or by a `fault` saying why it cannot. */
  heartbeat: messageSchema('heartbeat', { id: MessageIdSchema }),
  /** A child's answer to `heartbeat`: its engine report and what it holds. */
  health: messageSchema('health', { id: MessageIdSchema, ...HealthSchema }),
  /** The packages the executor allows, bundled; sent to each child once, before its first execution. */
  packages: PackagesMessageSchema,
  /**
   * The start an earlier child made, for a new child to start from (hand-on.ts): sent by the parent
   * to each child it spawns after, as its first message.
   */
  handOn: messageSchema('handOn', HandOnSchema),
  /**
   * The bytes of the snapshot a child made, which it committed to in its first healthy answer
   * (hand-on.ts): sent once, behind a later heartbeat answer, by a child the parent asked for its
   * start.
   */
  snapshot: messageSchema('snapshot', SnapshotSchema),
};

export type PoolMessageType = keyof typeof POOL_MESSAGE_SCHEMAS;
export type PoolMessage = MessageIn<typeof POOL_MESSAGE_SCHEMAS>;
export type PoolMessageOf<Type extends PoolMessageType> = z.infer<(typeof POOL_MESSAGE_SCHEMAS)[Type]>;

/** The table's validation: its schemas, behind its hot checks (wire.ts). */
export const POOL_VALIDATION = messageValidation(POOL_MESSAGE_SCHEMAS, POOL_WIRE);

/** Decides a message no hot check accepted: the schema its type names, or a fault saying why not. */
export const validatePoolMessage = POOL_VALIDATION.validate;
