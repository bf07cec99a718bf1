/**
 * Every text the server says to a client or an operator, defined once and asserted verbatim by
 * the tests. The texts both ends share (close codes, the hello, authentication) live in
 * `@supolka/codemode-protocol/client`.
 */

export function dispatchUnansweredMessage(provider: string, tool: string, ms: number): string {
  return `The client did not answer the tool call ${provider}.${tool} within ${ms} ms, so the call failed.`;
}

export function outboundUnansweredMessage(url: string, ms: number): string {
  return `The client did not answer the proxied fetch of ${url} within ${ms} ms, so the fetch failed.`;
}

export function connectionCapMessage(cap: number): string {
  return `This connection already has ${cap} executions in flight, the most the server allows per connection. Wait for one to finish, or open another connection.`;
}

export const SHUTTING_DOWN_MESSAGE =
  'The server is shutting down and takes no new executions. Retry on another.';

export const NATIVE_OUTBOUND_REFUSED_MESSAGE =
  "Invalid execute request: outbound 'native' is not enabled on this server for remote clients; use 'proxied' or 'disabled'.";

export function duplicateIdMessage(id: string): string {
  return `An execution with id ${id} is already in flight on this connection; give each one its own id.`;
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
export const CLIENT_CANCELLED = 'its client cancelled it';
export const SERVER_SHUT_DOWN = 'the server shut down';

export const ORIGIN_REFUSED = (origin: string) =>
  `Origin ${origin} is not allowed to connect: add it to the server's allowed origins.`;
export const TOKEN_REFUSED = "The bearer token in the Authorization header is not this server's.";
export const DRAINING_REFUSED = 'The server is shutting down and takes no new connections.';

export function notLoopbackMessage(host: string): string {
  return `Refusing to listen on ${host} without a token: only a loopback address (127.0.0.1, ::1, localhost) may be served unauthenticated. Set CODEMODE_EXECUTOR_TOKEN or --token-file.`;
}
