/**
 * The defaults both processes that serve executions over HTTP share (the executor server and the
 * MCP bridge's Streamable HTTP), so a peer that has not authenticated meets the same bounds at
 * either door.
 */

/** How long a connection may stay open before it authenticates. */
export const DEFAULT_HELLO_TIMEOUT = 5_000;
/** How many connections may wait to authenticate at once. */
export const DEFAULT_MAX_UNAUTHENTICATED_CONNECTIONS = 128;
