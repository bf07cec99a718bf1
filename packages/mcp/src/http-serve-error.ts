/**
 * Why `--http` cannot serve, as the command says it: the error and the token's sentence, apart from
 * http-serve.ts so that a bridge over stdio, which never serves HTTP, does not load the MCP SDK's
 * HTTP serving (@modelcontextprotocol/node and hono, about 4 ms of its start; issue 28) to check
 * its command line. http-serve.ts is loaded when `--http` is given.
 */
export class HttpServeError extends Error {
  override name = 'HttpServeError';
}

/** serve's words for the same refusal (serve-command.ts), for the same sources of the token. */
export function shortTokenMessage(min: number): string {
  return `The token (CODEMODE_EXECUTOR_TOKEN or --token-file) must be a string of at least ${min} characters.`;
}
