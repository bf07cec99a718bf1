/**
 * The server's options, their defaults and their checks. A bad option fails createServer with a
 * message naming it, the rule and the value.
 */

import { createHash } from 'node:crypto';
import { getHeapStatistics } from 'node:v8';
import type { IsolateExecutorOptions } from '@supolka/codemode-executor';
import { isLoopback, MIN_TOKEN_LENGTH } from '@supolka/codemode-executor/serving';
import {
  BadRequestError,
  DEFAULT_MEMORY_LIMIT,
  DEFAULT_TIMEOUT,
  MAX_DELAY,
  MAX_MEMORY_LIMIT,
  MIN_MEMORY_LIMIT,
  PAYLOAD_LIMIT,
} from '@supolka/codemode-protocol/wire';
import { MIN_REQUEST_BUDGET } from './budget.ts';
import { LOG_LEVELS, type Logger, type LogLevel } from './log.ts';
import { notLoopbackMessage } from './texts.ts';

export interface ServerOptions {
  /** The address to listen on (default 127.0.0.1). Anything but loopback needs a token. */
  readonly host?: string;
  /** The port (default 8790); 0 picks a free one. */
  readonly port?: number;
  /** The bearer token clients must present; without one the server serves loopback only. */
  readonly token?: string;
  /** Origins a browser page may connect from; a request with any other Origin is refused with 403. */
  readonly allowedOrigins?: readonly string[];
  /** Let remote clients ask for outbound 'native' (the server performs their fetches); default false. */
  readonly allowNativeOutbound?: boolean;
  /** Requests one connection may have in flight: executions, invokes and closeHandles (default 64). */
  readonly maxExecutionsPerConnection?: number;
  /** How long a tool call or proxied fetch waits for the client's answer, in ms (default: the execution's timeout). */
  readonly dispatchTimeout?: number;
  /** How long a new connection has to send its hello (and token), in ms (default 5000). */
  readonly helloTimeout?: number;
  /** Open connections, beyond which an upgrade is answered 503 (default 1024). */
  readonly maxConnections?: number;
  /** Connections whose upgrade carried no token and that have not sent it in a hello yet (default 128). */
  readonly maxUnauthenticatedConnections?: number;
  /** The largest `timeout` a request may ask for, in ms (default 300000, or the executor's timeout if larger). */
  readonly maxTimeout?: number;
  /** The largest `memoryLimit` a request may ask for, in MB (default 512, or the executor's if larger). */
  readonly maxMemoryLimit?: number;
  /** Wall-clock time one execution may take, queued and waiting on tools included, in ms (default 2 × maxTimeout). */
  readonly wallClockLimit?: number;
  /** How often the server pings each connection; one that has not answered the last ping is dropped (default 30000 ms). */
  readonly pingInterval?: number;
  /** Bytes sent but not yet read by the client beyond which its connection takes no new work (default 64 MiB). */
  readonly sendBufferLimit?: number;
  /** How long a connection may stay past sendBufferLimit before it is dropped, in ms (default 30000). */
  readonly congestionTimeout?: number;
  /**
   * Heap bytes the requests the server holds (queued or in flight) may take, each counted at its
   * estimated cost before it is decoded (message-cost.ts); past it, and past a connection's fair
   * share of it, a request is refused OVERLOADED (budget.ts). Default: half the server's heap limit,
   * at least MESSAGE_COST_LIMIT.
   */
  readonly requestBudget?: number;
  /** On close, how long executions in flight may run before they are cancelled, in ms (default 30000). */
  readonly drainTimeout?: number;
  /** This server's name behind a load balancer; it prefixes retained execution ids (docs/server.md). */
  readonly instance?: string;
  /** The IsolateExecutor that runs the executions (its own defaults apply). */
  readonly executor?: IsolateExecutorOptions;
  /** A pino logger for the server's events (docs/server.md, "Logs"); default: none, silent. */
  readonly logger?: Logger;
  /** The least level logged: with `logger`, its level here; alone, JSON lines on stderr. */
  readonly logLevel?: LogLevel;
}

export interface ResolvedServerOptions {
  readonly host: string;
  readonly port: number;
  readonly token: string | undefined;
  readonly allowedOrigins: ReadonlySet<string>;
  readonly allowNativeOutbound: boolean;
  readonly maxExecutionsPerConnection: number;
  /** A fixed deadline, or undefined for each execution's own timeout. */
  readonly dispatchTimeout: number | undefined;
  /** The executor's run bound, the deadline of requests that name none. */
  readonly defaultTimeout: number;
  readonly helloTimeout: number;
  readonly drainTimeout: number;
  readonly maxConnections: number;
  readonly maxUnauthenticatedConnections: number;
  readonly maxTimeout: number;
  readonly maxMemoryLimit: number;
  readonly wallClockLimit: number;
  readonly pingInterval: number;
  readonly sendBufferLimit: number;
  readonly congestionTimeout: number;
  readonly requestBudget: number;
  readonly instance: string | undefined;
  readonly executor: IsolateExecutorOptions;
  /** Whether the executor has a durable key ring: without one, durable requests are refused at the door. */
  readonly durable: boolean;
  /**
   * Whom every durable run of this server is for: the authenticated bearer identity. One bearer
   * token is one audience (docs/durable.md, "The principal"), so this is derived from the token
   * alone, and servers that share a token (behind one balancer) share the principal too.
   */
  readonly principal: string;
  readonly logger: Logger | undefined;
  readonly logLevel: LogLevel | undefined;
}

// Shared with the MCP bridge's HTTP serving (the executor's serving entry): one value for both.
import {
  DEFAULT_HELLO_TIMEOUT,
  DEFAULT_MAX_UNAUTHENTICATED_CONNECTIONS,
} from '@supolka/codemode-executor/serving';

export { DEFAULT_HELLO_TIMEOUT, DEFAULT_MAX_UNAUTHENTICATED_CONNECTIONS };

export const DEFAULT_PORT = 8790;
export const DEFAULT_MAX_EXECUTIONS_PER_CONNECTION = 64;
export const DEFAULT_DRAIN_TIMEOUT = 30_000;
export const DEFAULT_MAX_CONNECTIONS = 1024;
/** Five times the default run bound: room for real work, not for a run that parks a child for days. */
export const DEFAULT_MAX_TIMEOUT = 300_000;
/** Four times the default heap: a child holds several isolates, each up to its limit. */
export const DEFAULT_MAX_MEMORY_LIMIT = 512;
export const DEFAULT_PING_INTERVAL = 30_000;
/** Two full messages: a client reading at all never reaches it; one that stopped soon does. */
export const DEFAULT_SEND_BUFFER_LIMIT = 2 * PAYLOAD_LIMIT;
export const DEFAULT_CONGESTION_TIMEOUT = 30_000;

/**
 * Half this process's V8 heap limit, and never less than one full message: the rest stays for
 * the connections, the pool's bookkeeping and the answers on their way out. The estimate
 * (message-cost.ts) already counts what a held request costs the heap, so the budget is in heap bytes.
 */
export function defaultRequestBudget(): number {
  return Math.max(MIN_REQUEST_BUDGET, Math.floor(getHeapStatistics().heap_size_limit / 2));
}

const KNOWN = new Set([
  'host',
  'port',
  'token',
  'allowedOrigins',
  'allowNativeOutbound',
  'maxExecutionsPerConnection',
  'dispatchTimeout',
  'helloTimeout',
  'drainTimeout',
  'maxConnections',
  'maxUnauthenticatedConnections',
  'maxTimeout',
  'maxMemoryLimit',
  'wallClockLimit',
  'pingInterval',
  'sendBufferLimit',
  'congestionTimeout',
  'requestBudget',
  'instance',
  'executor',
  'logger',
  'logLevel',
]);

export class ServerOptionError extends BadRequestError {
  override name = 'ServerOptionError';
  readonly option: string;
  /**
   * What is wrong, without the option's name (`must be ...; got 70000`), so that the serve
   * command can say it of its own flag; undefined when the message is not of that form.
   */
  readonly rule: string | undefined;
  constructor(option: string, message: string, rule?: string) {
    super(message);
    this.option = option;
    this.rule = rule;
  }
}

/** `Server option port must be ...; got 70000.` */
function broken(option: string, rule: string, value?: unknown): ServerOptionError {
  const got = value === undefined ? '' : `; got ${JSON.stringify(value)}`;
  return new ServerOptionError(option, `Server option ${option} ${rule}${got}.`, `${rule}${got}`);
}

export function resolveServerOptions(options: ServerOptions): ResolvedServerOptions {
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key)) throw broken(key, 'is not a known option');
  }
  const whole = (name: keyof ServerOptions, min: number, max: number, fallback: number): number => {
    const value: unknown = options[name];
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      throw broken(name, `must be a whole number from ${min} to ${max}`, value);
    }
    return value;
  };
  const host = options.host ?? '127.0.0.1';
  const token = options.token;
  if (token !== undefined && (typeof token !== 'string' || token.length < MIN_TOKEN_LENGTH)) {
    throw broken('token', `must be a string of at least ${MIN_TOKEN_LENGTH} characters`);
  }
  if (token === undefined && !isLoopback(host)) throw new ServerOptionError('host', notLoopbackMessage(host));
  const origins = options.allowedOrigins ?? [];
  if (!Array.isArray(origins) || !origins.every((origin) => typeof origin === 'string')) {
    throw broken('allowedOrigins', 'must be a list of origins', origins);
  }
  const instance = options.instance;
  if (instance !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(instance)) {
    throw broken('instance', 'must be 1 to 64 letters, digits, _ or -', instance);
  }
  const { logger, logLevel } = options;
  if (logLevel !== undefined && !LOG_LEVELS.includes(logLevel)) {
    throw broken('logLevel', `must be one of ${LOG_LEVELS.join(', ')}`, logLevel);
  }
  if (logger !== undefined && typeof (logger as Partial<Logger> | null)?.child !== 'function') {
    throw broken('logger', 'must be a pino logger');
  }
  const defaultTimeout = options.executor?.timeout ?? DEFAULT_TIMEOUT;
  const maxTimeout = whole('maxTimeout', 1, MAX_DELAY, Math.max(DEFAULT_MAX_TIMEOUT, defaultTimeout));
  if (maxTimeout < defaultTimeout) {
    throw broken('maxTimeout', `must be at least the executor's timeout, ${defaultTimeout} ms`, maxTimeout);
  }
  const defaultMemoryLimit = options.executor?.memoryLimit ?? DEFAULT_MEMORY_LIMIT;
  const maxMemoryLimit = whole(
    'maxMemoryLimit',
    MIN_MEMORY_LIMIT,
    MAX_MEMORY_LIMIT,
    Math.max(DEFAULT_MAX_MEMORY_LIMIT, defaultMemoryLimit),
  );
  if (maxMemoryLimit < defaultMemoryLimit) {
    throw broken(
      'maxMemoryLimit',
      `must be at least the executor's memoryLimit, ${defaultMemoryLimit} MB`,
      maxMemoryLimit,
    );
  }
  return {
    host,
    port: whole('port', 0, 65535, DEFAULT_PORT),
    token,
    allowedOrigins: new Set(origins),
    allowNativeOutbound: options.allowNativeOutbound === true,
    maxExecutionsPerConnection: whole(
      'maxExecutionsPerConnection',
      1,
      1_000_000,
      DEFAULT_MAX_EXECUTIONS_PER_CONNECTION,
    ),
    dispatchTimeout:
      options.dispatchTimeout === undefined ? undefined : whole('dispatchTimeout', 1, MAX_DELAY, 0),
    defaultTimeout,
    helloTimeout: whole('helloTimeout', 1, MAX_DELAY, DEFAULT_HELLO_TIMEOUT),
    drainTimeout: whole('drainTimeout', 0, MAX_DELAY, DEFAULT_DRAIN_TIMEOUT),
    maxConnections: whole('maxConnections', 1, 1_000_000, DEFAULT_MAX_CONNECTIONS),
    maxUnauthenticatedConnections: whole(
      'maxUnauthenticatedConnections',
      1,
      1_000_000,
      DEFAULT_MAX_UNAUTHENTICATED_CONNECTIONS,
    ),
    maxTimeout,
    maxMemoryLimit,
    // Host waits do not count on the run clock, so a run may spend as long waiting on its tools as
    // computing; past twice its largest bound it is parked, not working.
    wallClockLimit: whole('wallClockLimit', 1, MAX_DELAY, Math.min(2 * maxTimeout, MAX_DELAY)),
    pingInterval: whole('pingInterval', 1, MAX_DELAY, DEFAULT_PING_INTERVAL),
    sendBufferLimit: whole('sendBufferLimit', 1, Number.MAX_SAFE_INTEGER, DEFAULT_SEND_BUFFER_LIMIT),
    congestionTimeout: whole('congestionTimeout', 1, MAX_DELAY, DEFAULT_CONGESTION_TIMEOUT),
    requestBudget: whole(
      'requestBudget',
      MIN_REQUEST_BUDGET,
      Number.MAX_SAFE_INTEGER,
      defaultRequestBudget(),
    ),
    instance,
    executor: options.executor ?? {},
    durable: options.executor?.durable !== undefined,
    principal: bearerPrincipal(token),
    logger,
    logLevel,
  };
}

/**
 * The principal of a server's durable runs: a hash of its bearer token (so the token itself is kept
 * nowhere else), or empty for a loopback server without one, whose every client is one audience.
 * A new bearer token is a new principal: tokens sealed under the old one no longer resume.
 */
export function bearerPrincipal(token: string | undefined): string {
  if (token === undefined) return '';
  return `bearer:${createHash('sha256').update(token, 'utf8').digest('base64url')}`;
}
