/**
 * Every text the server says to a client or an operator, defined once and asserted verbatim by
 * the tests. The texts both ends share (close codes, the hello, authentication) live in
 * `@supolka/codemode-protocol/client`.
 */
import { echo, REASON_ECHO_LIMIT } from '@supolka/codemode-protocol/wire';

// The texts the MCP bridge's HTTP serving says too live beside the bearer-token check they go
// with, in the executor's serving entry; re-exported so this module still holds every server text.
export {
  notLoopbackServeMessage,
  originRefusedMessage,
  tooManyUnauthenticatedMessage,
} from '@supolka/codemode-executor/serving';

/**
 * Why an invoke's request could not be made a Request: `reason` is the Request constructor's
 * words, which repeat the URL, method or header name the client sent whole, so only their start
 * is repeated here.
 */
export function invokeRequestMessage(reason: string): string {
  return `Invalid invoke message: request ${echo(reason)}`;
}

export function dispatchUnansweredMessage(provider: string, tool: string, ms: number): string {
  return `The client did not answer the tool call ${provider}.${tool} within ${ms} ms, so the call failed.`;
}

export function outboundUnansweredMessage(url: string, ms: number): string {
  return `The client did not answer the proxied fetch of ${url} within ${ms} ms, so the fetch failed.`;
}

export function connectionCapMessage(cap: number): string {
  return `This connection already has ${cap} requests in flight (executions, invokes and closeHandles), the most the server allows per connection. Wait for one to finish, or open another connection.`;
}

/** Why a message is refused when the server already holds its requestBudget (budget.ts). */
export function requestBudgetMessage(budget: number): string {
  return `The server already holds as many requests as its requestBudget of ${budget} bytes allows (each counted at its estimated heap cost: three bytes per byte, plus each object, array, key and value it holds). Retry once some finish, or on another server.`;
}

/** Why a request is refused when its connection holds its fair share of the requestBudget. */
export function requestShareMessage(share: number, budget: number, connections: number): string {
  return `This connection already holds its share of the server's requestBudget: ${share} of ${budget} bytes with ${connections} connections open (each request counted at its estimated heap cost). Wait for one of its requests to finish.`;
}

/** Why a message charged as a reply, whose decoded type is a request, is refused (connection.ts). */
export const ENVELOPE_MISREAD_MESSAGE =
  'The message names its type twice, or spells it with escapes, so the server could not read it before decoding it. Name the type once, as plain text.';

/** Why one message is refused before it is decoded, whatever the budget holds (message-cost.ts). */
export function messageCostMessage(cost: number, limit: number): string {
  return `The message would cost the server about ${cost} bytes of heap once decoded (three bytes per byte, plus each object, array, key and value it holds), past the ${limit}-byte bound on one message (MESSAGE_COST_LIMIT). Send fewer values, or large data as text.`;
}

/**
 * Why a connection whose client stopped reading takes no new work (docs/server.md, "A client that
 * stops reading").
 */
export function congestedMessage(limit: number): string {
  return `The client has left more than ${limit} bytes unread on this connection (the server's sendBufferLimit), so the connection takes no new work until the client reads them.`;
}

export function timeoutPastMaxMessage(timeout: number, max: number): string {
  return `Invalid execute request: timeout ${timeout} ms is past this server's maxTimeout of ${max} ms.`;
}

export function memoryLimitPastMaxMessage(memoryLimit: number, max: number): string {
  return `Invalid execute request: memoryLimit ${memoryLimit} MB is past this server's maxMemoryLimit of ${max} MB.`;
}

/** The error of an execution the wall-clock bound ended (its code is TIMEOUT). */
export function wallClockMessage(ms: number): string {
  return `Execution took longer than this server's wallClockLimit of ${ms} ms, which counts time spent queued and waiting on tools, so the server ended it.`;
}

export const SHUTTING_DOWN_MESSAGE =
  'The server is shutting down and takes no new executions. Retry on another.';

export const NATIVE_OUTBOUND_REFUSED_MESSAGE =
  "Invalid execute request: outbound 'native' is not enabled on this server for remote clients; use 'proxied' or 'disabled'.";

export function duplicateIdMessage(id: string): string {
  return `An execution with id ${id} is already in flight on this connection, or holds handles whose calls use that id; give each one its own id.`;
}

export const ALREADY_OPEN_MESSAGE = 'The connection already opened with a hello; send it once.';

export const BINARY_FRAME_MESSAGE = 'Messages are text frames of codec JSON; a binary frame was sent.';

export function notFromClientMessage(type: string): string {
  return `A client does not send ${type} messages; it sends hello, execute, cancel, dispatchReply, outboundReply, invoke and closeHandles.`;
}

export function foreignInstanceMessage(executionId: string, instance: string): string {
  return `Execution ${executionId} was not retained by this server (instance ${instance}): route it to the instance named before the first dot of its id.`;
}

/** Why an execution's calls fail when its client goes away. */
export const CLIENT_DISCONNECTED = 'its client disconnected';

/** Why a call of a retained execution's invocation fails once its handles closed. */
export const HANDLES_CLOSED_REASON = 'its handles closed';
export const CLIENT_CANCELLED = 'its client cancelled it';

/**
 * Characters of a cancel's reason repeated as they came. ExecutorClient cuts a longer reason
 * itself, where the caller's length is known (echo, REASON_ECHO_LIMIT: what it sends is a little
 * past that limit with the length it names), so what it sends is kept whole; a reason longer than
 * this, from any other client, is cut here.
 */
export const CANCEL_REASON_LIMIT = 2 * REASON_ECHO_LIMIT;

/**
 * Why a client's cancel ended its execution: the reason the cancel carried (protocol version 3),
 * bounded as the protocol bounds a reason it repeats, or CLIENT_CANCELLED when it carried none.
 */
export function clientCancelReason(reason: string | undefined): string {
  if (!reason) return CLIENT_CANCELLED;
  return reason.length <= CANCEL_REASON_LIMIT ? reason : echo(reason, REASON_ECHO_LIMIT);
}
export const SERVER_SHUT_DOWN = 'the server shut down';

export const DRAINING_REFUSED_MESSAGE = 'The server is shutting down and takes no new connections.';

export function tooManyConnectionsMessage(max: number): string {
  return `The server already holds ${max} connections, its maxConnections. Retry later, or on another server.`;
}

/** createServer's refusal: the advice names its option. */
export function notLoopbackMessage(host: string): string {
  return `Refusing to listen on ${host} without a token: only a loopback address (127.0.0.1, ::1, localhost) may be served unauthenticated. Pass createServer a token option of at least 16 characters.`;
}

/** Any plain HTTP path but the two routes, as the request named it (routes.ts). */
export const ROUTE_NOT_FOUND_MESSAGE =
  'Not found: the executor serves WebSocket upgrades, /healthz and /metrics.\n';

/** A durable request, a resume or a discard to a server whose operator gave it no durable key ring. */
export const DURABLE_OFF_MESSAGE =
  'This server does not run durable executions: its operator has given it no durable key ring (CODEMODE_DURABLE_KEYS or a keys file).';
