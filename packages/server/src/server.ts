/**
 * The executor server: one IsolateExecutor behind an HTTP server whose WebSocket upgrades carry
 * the protocol to remote clients (docs/server.md).
 *
 *   const server = await createServer({ port: 0, token: process.env.CODEMODE_EXECUTOR_TOKEN });
 *   console.log(server.url);   // ws://127.0.0.1:PORT
 *   await server.close();      // stop accepting, drain, dispose
 *
 * The upgrade is where a client is let in or refused: a browser Origin not on the list gets 403,
 * a server holding maxConnections (or, for a client whose upgrade did not carry the token,
 * maxUnauthenticatedConnections of those) 503. A client that cannot set headers is let in
 * unauthenticated and must send the token in its hello (opening.ts). A wrong token in the
 * Authorization header is let in as far as an unauthenticated client, only to hear so and be
 * closed with 4401: a WebSocket client never sees an HTTP status, only a close.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, STATUS_CODES } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { IsolateExecutor } from '@supolka/codemode-executor';
import { bearerToken, tokenMatches } from '@supolka/codemode-executor/serving';
import { CLOSE_CODES, PAYLOAD_LIMIT } from '@supolka/codemode-protocol/wire';
import { type WebSocket, WebSocketServer } from 'ws';
import { RequestBudget } from './budget.ts';
import { ServerConnection } from './connection.ts';
import { ConnectionLog, type Logger, logUpgradeRefused, serverLogger, type UpgradeRefusal } from './log.ts';
import { type Gauges, ServerMetrics } from './metrics.ts';
import type { Admission } from './opening.ts';
import { type ResolvedServerOptions, resolveServerOptions, type ServerOptions } from './options.ts';
import { ownEndpoints } from './own-endpoints.ts';
import { serveRoute } from './routes.ts';
import {
  DRAINING_REFUSED_MESSAGE,
  originRefusedMessage,
  SERVER_SHUT_DOWN,
  tooManyConnectionsMessage,
  tooManyUnauthenticatedMessage,
} from './texts.ts';

/**
 * The largest frame ws accepts, in bytes: ws closes the connection with 1009 past it, before
 * buffering the frame. A message a little past PAYLOAD_LIMIT is answered PAYLOAD_TOO_LARGE with
 * the connection kept (a client that measured characters instead of bytes can be that far off);
 * nothing larger is worth receiving. Before the hello, opening.ts allows far less.
 */
export const MAX_FRAME = PAYLOAD_LIMIT + 1024 * 1024;

/**
 * How long a peer has to send a request's headers (an upgrade, /healthz, /metrics) and the whole
 * request, in ms, checked every second. Node's own defaults (60 s and 300 s, checked every 30 s)
 * let peers that never finish their headers hold a socket each for a minute before any check of
 * ours sees them: 9000 held at once, measured, and with them the process's file descriptors. As
 * HAProxy's `timeout http-request` in deploy/. An upgraded socket is the connection's to judge.
 * No count of them is set: Node's `maxConnections` closes every newcomer once full, so a few
 * dozen silent sockets, renewed as they time out, kept every client and /healthz out (a review's
 * probe); the timeout alone makes holding sockets cost a peer a new connection each 10 s.
 */
export const REQUEST_HEAD_TIMEOUT = 10_000;

/** Starts a server listening on `options.host`:`options.port`; resolves once it listens. */
export async function createServer(options: ServerOptions = {}): Promise<ExecutorServer> {
  const server = new ExecutorServer(resolveServerOptions(options));
  await server.listen();
  return server;
}

export class ExecutorServer {
  /** Created once the server listens: its children are told the server's own addresses. */
  executor!: IsolateExecutor;
  readonly #options: ResolvedServerOptions;
  readonly #http: Server;
  readonly #sockets = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_FRAME,
    perMessageDeflate: false,
  });
  readonly #connections = new Set<ServerConnection>();
  readonly #runs = new Set<Promise<unknown>>();
  readonly #metrics = new ServerMetrics(() => this.#gauges());
  readonly #budget: RequestBudget;
  readonly #log: Logger;
  /** Connections accepted so far: each one's number in the log. */
  #accepted = 0;
  #draining = false;
  #closing: Promise<void> | undefined;

  /** Use createServer, which also listens. */
  constructor(options: ResolvedServerOptions) {
    this.#options = options;
    this.#log = serverLogger(options.logger, options.logLevel);
    this.#budget = new RequestBudget(
      options.requestBudget,
      () => this.#connections.size - this.#unauthenticated(),
    );
    this.#http = createHttpServer(
      {
        headersTimeout: REQUEST_HEAD_TIMEOUT,
        requestTimeout: REQUEST_HEAD_TIMEOUT,
        connectionsCheckingInterval: 1_000,
      },
      (request, response) => {
        serveRoute(request, response, {
          executor: this.executor,
          metrics: this.#metrics,
          gauges: () => this.#gauges(),
          draining: () => this.#draining,
          instance: options.instance,
        }).catch(() => response.destroy());
      },
    );
    this.#http.on('upgrade', (request, socket, head) => this.#upgrade(request, socket, head));
  }

  listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#http.once('error', reject);
      this.#http.listen(this.#options.port, this.#options.host, () => {
        this.#http.off('error', reject);
        try {
          this.executor = this.#createExecutor();
          // Loaded while the pool's first child starts, not on the way to it (metrics.ts).
          this.#metrics.collectProcessMetrics();
        } catch (error) {
          // An executor option the executor refuses (OptionError): createServer rejects with it,
          // where a throw in this callback would have ended the process.
          this.#http.close();
          reject(error);
          return;
        }
        this.#log.info({ event: 'server listening', url: this.url }, 'server listening');
        resolve();
      });
    });
  }

  /** The server's executor, told the address the server listens on. */
  #createExecutor(): IsolateExecutor {
    const { executor } = this.#options;
    const own = executor.onExecution;
    return new IsolateExecutor({
      ...executor,
      // The server's bound, so invocations meet it too. An execution's own timer here starts
      // first and fires first, so its client reads this server's text (connection.ts).
      wallClockLimit: this.#options.wallClockLimit,
      // The queue wait of every run is the metrics'; the caller's own observer still sees each
      // (one that is no function is passed on as it is, for the executor to refuse by name).
      onExecution:
        own !== undefined && typeof own !== 'function'
          ? own
          : (report) => {
              if (report.queueWait !== undefined) this.#metrics.queueWait(report.queueWait / 1000);
              own?.(report);
            },
      ownEndpoints: [...(executor.ownEndpoints ?? []), ...ownEndpoints(this.#http.address() as AddressInfo)],
    });
  }

  get port(): number {
    return (this.#http.address() as AddressInfo).port;
  }

  get host(): string {
    return this.#options.host;
  }

  /** The address clients connect to. */
  get url(): string {
    const host = this.#options.host.includes(':') ? `[${this.#options.host}]` : this.#options.host;
    return `ws://${host}:${this.port}/`;
  }

  /**
   * Graceful shutdown: stop accepting connections and executions, let the ones in flight finish
   * for up to drainTimeout, cancel the rest, close every connection with 1001, dispose the
   * executor. Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= this.#shutDown();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #shutDown(): Promise<void> {
    this.#draining = true;
    // The port stays open while the server drains: /healthz answers 503 there, which takes it out
    // of a load balancer's rotation (HAProxy, a Kubernetes readiness probe) with a cause the
    // operator can read, /metrics shows the drain, and a new upgrade hears 503 (which a balancer
    // may retry on another server) where a closed port would only be refused.
    await Promise.race([Promise.allSettled([...this.#runs]), pause(this.#options.drainTimeout)]);
    const stopped = new Promise<void>((resolve) => this.#http.close(() => resolve()));
    this.#http.closeIdleConnections();
    for (const connection of this.#connections) connection.cancelAll(SERVER_SHUT_DOWN);
    // Cancelled runs settle at once; their CANCELLED envelopes go out before the sockets close.
    await Promise.allSettled([...this.#runs]);
    const connections = [...this.#connections];
    // Each connection drops its socket when the peer does not answer the close (channel.ts).
    for (const connection of connections) connection.close(CLOSE_CODES.goingAway, 'server shutting down');
    await Promise.all(connections.map((connection) => connection.ended));
    // A server that never listened has no executor.
    await this.executor?.dispose();
    this.#http.closeAllConnections();
    await stopped;
    this.#log.info({ event: 'server stopped' }, 'server stopped');
  }

  #upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    // A peer that resets mid-handshake must not take the process down.
    socket.on('error', () => socket.destroy());
    const { token, allowedOrigins, maxConnections, maxUnauthenticatedConnections } = this.#options;
    const remote = request.socket.remoteAddress;
    const refuse = (cause: UpgradeRefusal, status: number, text: string) => {
      logUpgradeRefused(this.#log, cause, status, remote);
      answerStatus(socket, status, text);
    };
    if (this.#draining) {
      refuse('draining', 503, DRAINING_REFUSED_MESSAGE);
      return;
    }
    // Browsers always send Origin; other clients need not. A page on an origin not listed is refused.
    const origin = request.headers.origin;
    if (origin !== undefined && !allowedOrigins.has(origin)) {
      refuse('origin', 403, originRefusedMessage(origin));
      return;
    }
    const header = request.headers.authorization;
    let admission: Admission = token === undefined ? 'authenticated' : 'anonymous';
    if (token !== undefined && header !== undefined) {
      admission = tokenMatches(token, bearerToken(header)) ? 'authenticated' : 'wrong token';
    }
    if (this.#connections.size >= maxConnections) {
      refuse('maxConnections', 503, tooManyConnectionsMessage(maxConnections));
      return;
    }
    // Only clients that have not shown the token are capped here, so a flood of them cannot keep
    // out a client whose upgrade carries it.
    if (admission !== 'authenticated' && this.#unauthenticated() >= maxUnauthenticatedConnections) {
      refuse(
        'maxUnauthenticatedConnections',
        503,
        tooManyUnauthenticatedMessage(maxUnauthenticatedConnections),
      );
      return;
    }
    this.#sockets.handleUpgrade(request, socket, head, (webSocket: WebSocket) => {
      const connection = new ServerConnection(
        webSocket,
        socket,
        {
          executor: this.executor,
          options: this.#options,
          metrics: this.#metrics,
          budget: this.#budget,
          draining: () => this.#draining,
          track: (run) => {
            this.#runs.add(run);
            void run.finally(() => this.#runs.delete(run));
          },
        },
        admission,
        new ConnectionLog(this.#log, ++this.#accepted, remote),
      );
      this.#connections.add(connection);
      void connection.ended.then(() => this.#connections.delete(connection));
    });
  }

  #unauthenticated(): number {
    let count = 0;
    for (const connection of this.#connections) if (connection.unauthenticated) count += 1;
    return count;
  }

  /** Open connections, executions of remote clients in flight, and the pool as its heartbeats saw it. */
  stats(): Gauges {
    return this.#gauges();
  }

  #gauges(): Gauges {
    let inFlight = 0;
    for (const connection of this.#connections) inFlight += connection.inFlight;
    return { pool: this.executor.stats(), connections: this.#connections.size, inFlight };
  }
}

/** Answers an upgrade with a plain HTTP status: a WebSocket client sees only a close with 1006. */
function answerStatus(socket: Duplex, status: number, text: string): void {
  const body = `${text}\n`;
  socket.end(
    [
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
      'Connection: close',
      'Content-Type: text/plain; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      '',
      body,
    ].join('\r\n'),
  );
}

/** Resolves to 'timeout' after `ms`, without holding the process open. */
function pause(ms: number): Promise<'timeout'> {
  return new Promise((resolve) => setTimeout(resolve, ms, 'timeout').unref());
}
