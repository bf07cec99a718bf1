/**
 * The texts both processes that serve executions over HTTP say (the executor server and the MCP
 * bridge's Streamable HTTP): the refusals that go with the bearer-token check and the connection
 * caps they share, defined once so the two say the same words.
 */

/** The bodies of the HTTP answers that refuse an upgrade. */
export function originRefusedMessage(origin: string): string {
  return `Origin ${origin} is not allowed to connect: add it to the server's allowed origins.`;
}

export function tooManyUnauthenticatedMessage(max: number): string {
  return `The server already holds ${max} connections that have not authenticated yet, its maxUnauthenticatedConnections. Retry shortly, or send the token in the Authorization header of the upgrade.`;
}

/** The serve command's refusal: the advice names its environment and flag. */
export function notLoopbackServeMessage(host: string): string {
  return `Refusing to listen on ${host} without a token: only a loopback address (127.0.0.1, ::1, localhost) may be served unauthenticated. Set CODEMODE_EXECUTOR_TOKEN or --token-file.`;
}
