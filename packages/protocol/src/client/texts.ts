/**
 * The connection's own texts and close codes, shared by the client and the executor server so both
 * ends name a failure in the same words. Every text here is asserted verbatim by the tests.
 */

/** Close codes a server ends a connection with (4000-4999 is the range RFC 6455 leaves to applications). */
export const CLOSE_CODES = {
  /** Normal end: the client or the server closed on purpose. */
  normal: 1000,
  /** The server is shutting down. */
  goingAway: 1001,
  /** The connection did not open with a hello, spoke another protocol version, or called for a conversation never started. */
  protocol: 4400,
  /** No valid bearer token: none in the upgrade, and none (or a wrong one) in the first message in time. */
  unauthorized: 4401,
} as const;

/** Sent (as a fault) before closing with CLOSE_CODES.unauthorized, when no token came at all. */
export const UNAUTHORIZED_MESSAGE =
  'The connection is not authenticated: send the bearer token in the Authorization header of the upgrade, or as the token of the first message, a hello.';

/**
 * Sent (as a fault) before closing with CLOSE_CODES.unauthorized, when the upgrade's Authorization
 * header held a token that is not the server's. The server accepts such an upgrade only to say
 * this: a WebSocket never shows its client an HTTP status.
 */
export const TOKEN_REFUSED_MESSAGE = "The bearer token in the Authorization header is not this server's.";

/** Sent (as a fault) before closing with CLOSE_CODES.unauthorized, when the hello's token is not the server's. */
export const HELLO_TOKEN_REFUSED_MESSAGE = "The token in the hello is not this server's bearer token.";

/** The close reasons of CLOSE_CODES.unauthorized (a close reason is at most 123 bytes; the fault before it says more). */
export const UNAUTHORIZED_REASONS = {
  missing: 'unauthorized',
  wrong: 'wrong token',
} as const;

/** The server's answer to a hello whose version it does not speak (`oldest` to `newest` it does). */
export function versionMismatchMessage(oldest: number, newest: number, client: number): string {
  return `The executor speaks protocol versions ${oldest} to ${newest}; the client speaks version ${client}. Use a client of one of those versions.`;
}

/** What connect rejects with when the server's hello states a version this client does not speak. */
export function clientVersionMessage(server: number, oldest: number, newest: number): string {
  return `The executor speaks protocol version ${server}; this client speaks versions ${oldest} to ${newest}.`;
}

/** Sent (as a fault) before closing with CLOSE_CODES.protocol when the first message is not a hello. */
export const HELLO_FIRST_MESSAGE = 'The connection opens with a hello stating the protocol version.';

function closed(code: number, reason: string): string {
  return `connection to the executor closed (code ${code}${reason ? `: ${reason}` : ''})`;
}

/** The cause an execution in flight meets when its connection ends (inside workerLostMessage). */
export function connectionClosedCause(code: number, reason: string): string {
  return `the ${closed(code, reason)}`;
}

/**
 * What connect rejects with when the socket closes with 1006 before the server's hello: the server
 * answered the upgrade with an HTTP status (which a WebSocket never shows) or could not be reached.
 */
export function connectRefusedMessage(code: number, reason: string): string {
  return `The ${closed(code, reason)} before its hello: the server refused the upgrade or could not be reached. A server refuses a browser origin it does not allow (403), and takes no connection at its maxConnections, at its maxUnauthenticatedConnections, or while shutting down (503); check the address, the server's allowedOrigins and its log.`;
}

/** What a call (connect, invoke, closeHandles) rejects with when its connection ends first. */
export function connectionClosedMessage(code: number, reason: string): string {
  return `The ${closed(code, reason)}.`;
}

/** The close reason when the server sends a call for a conversation this client never started. */
export function strayCallReason(type: 'dispatch' | 'outbound'): string {
  const kind = type === 'dispatch' ? 'a tool call' : 'an outbound request';
  return `the executor sent ${kind} for an execution this client never started`;
}

/** Why the connection ended: the server sent calls the client refuses and read none of the answers. */
export function unreadAnswersReason(limit: number): string {
  return `the executor kept sending calls this client refuses and left more than ${limit} bytes of its answers unread`;
}

/** What a call past SERVED_CALL_LIMIT of one execution is answered with (its function is not called). */
export function tooManyServedMessage(limit: number): string {
  return `This client is already running ${limit} tool calls and outbound requests of this execution; the call was not made.`;
}

/**
 * What ExecutorClient answers (BAD_REQUEST) for a request with `consoleFormat` on a connection that
 * agreed on a version before 3: such a server would refuse the field as one it does not know.
 */
export function consoleFormatVersionMessage(agreed: number): string {
  return `The server speaks protocol version ${agreed}, and consoleFormat needs version 3: leave it out, or use a server of version 3.`;
}

/** What a durable request, a resume or a discard meets on a connection that agreed on a version before 3. */
export function durableVersionMessage(agreed: number): string {
  return `The server speaks protocol version ${agreed}, and durable runs need version 3: use a server of version 3.`;
}
