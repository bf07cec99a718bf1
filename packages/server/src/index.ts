/**
 * @supolka/codemode-server: the executor protocol served over WebSocket (docs/server.md), with
 * /healthz and /metrics beside it, for clients in any JavaScript runtime
 * (@supolka/codemode-protocol/client). The command is `codemode-server`, or
 * `codemode-executor serve` when this package is installed beside the executor.
 */
export {
  bearerToken,
  isLoopback,
  MIN_TOKEN_LENGTH,
  readToken,
  TOKEN_ENV,
  TOKEN_FILE_ENV,
  TokenSourceError,
  tokenMatches,
} from '@supolka/codemode-executor/serving';
export { type CallOutcome, type Gauges as ServerStats, ServerMetrics } from './metrics.ts';
export {
  DEFAULT_CONGESTION_TIMEOUT,
  DEFAULT_DRAIN_TIMEOUT,
  DEFAULT_HELLO_TIMEOUT,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_EXECUTIONS_PER_CONNECTION,
  DEFAULT_MAX_MEMORY_LIMIT,
  DEFAULT_MAX_TIMEOUT,
  DEFAULT_MAX_UNAUTHENTICATED_CONNECTIONS,
  DEFAULT_PING_INTERVAL,
  DEFAULT_PORT,
  DEFAULT_SEND_BUFFER_LIMIT,
  ServerOptionError,
  type ServerOptions,
} from './options.ts';
export { createServer, ExecutorServer } from './server.ts';
export * as serverTexts from './texts.ts';
