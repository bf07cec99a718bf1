/**
 * `--http PORT`: the served MCP server over Streamable HTTP at /mcp, one session per client
 * `initialize`, under the rules `serve` keeps (docs/server.md): a bearer token of at least
 * MIN_TOKEN_LENGTH characters compared in constant time when one is configured, browser origins
 * refused unless allowed, no token only on a loopback address, and connections that have not
 * authenticated yet held under serve's numbers (unauthenticated-peers.ts).
 */
import { randomUUID } from 'node:crypto';
import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import {
  bearerToken,
  DEFAULT_HELLO_TIMEOUT,
  DEFAULT_MAX_UNAUTHENTICATED_CONNECTIONS,
  isLoopback,
  MIN_TOKEN_LENGTH,
  notLoopbackServeMessage,
  originRefusedMessage,
  tokenMatches,
  tooManyUnauthenticatedMessage,
} from '@supolka/codemode-executor/serving';
import { UnauthenticatedPeers } from './unauthenticated-peers.ts';

interface Session {
  readonly transport: StreamableHTTPServerTransport;
  readonly server: Server;
  /** POST requests whose responses are still open. */
  inFlight: number;
}

/**
 * Sessions held at once, every served server this process made counted from the moment it is
 * made: each holds its streams in this process. Past it, the idle session used least recently is
 * ended; when every session has a request in flight, the new one is refused.
 */
export const SESSION_LIMIT = 64;
export const MCP_PATH = '/mcp';

export const UNAUTHORIZED_MESSAGE = 'This MCP server needs the bearer token in the Authorization header.';
export const UNKNOWN_SESSION_MESSAGE =
  'No such session: send initialize without an Mcp-Session-Id to start one.';
/** serve's words for the same refusal (serve-command.ts), for the same sources of the token. */
export function shortTokenMessage(min: number): string {
  return `The token (CODEMODE_EXECUTOR_TOKEN or --token-file) must be a string of at least ${min} characters.`;
}
export function sessionsBusyMessage(limit: number): string {
  return `This MCP server already holds ${limit} sessions (SESSION_LIMIT), each with a request in flight; retry once one finishes.`;
}
export function foreignHostMessage(host: string): string {
  return `Host ${JSON.stringify(host)} is not a loopback name; without a token this MCP server answers only requests addressed to loopback.`;
}

export interface HttpServeOptions {
  readonly host: string;
  readonly port: number;
  readonly token: string | undefined;
  readonly allowedOrigins: readonly string[];
  readonly createServer: () => Server;
}

export interface ServedHttp {
  readonly url: string;
  /** Every server in a session, to tell each of a change of tools. */
  readonly servers: () => Server[];
  close(): Promise<void>;
}

export class HttpServeError extends Error {
  override name = 'HttpServeError';
}

export async function serveHttp(options: HttpServeOptions): Promise<ServedHttp> {
  if (options.token === undefined && !isLoopback(options.host)) {
    throw new HttpServeError(notLoopbackServeMessage(options.host));
  }
  if (options.token !== undefined && options.token.length < MIN_TOKEN_LENGTH) {
    throw new HttpServeError(shortTokenMessage(MIN_TOKEN_LENGTH));
  }
  /** Initialized sessions, least recently used first. */
  const sessions = new Map<string, Session>();
  /** Served servers made and not yet closed, initialized or not. */
  let live = 0;
  const peers = new UnauthenticatedPeers(DEFAULT_MAX_UNAUTHENTICATED_CONNECTIONS, DEFAULT_HELLO_TIMEOUT);
  const allowed = new Set(options.allowedOrigins);
  let ownOrigin = '';

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    if (path !== MCP_PATH) return refuse(response, 404, `Not found; the MCP endpoint is ${MCP_PATH}.`);
    const origin = request.headers.origin;
    // Our own origin is allowed: no page is served from it, so none there can be another's.
    if (origin !== undefined && !allowed.has(origin) && origin !== ownOrigin) {
      return refuse(response, 403, originRefusedMessage(origin));
    }
    // Without a token, loopback is the only guard: a Host that names another machine is a page
    // whose name was rebound to this one (DNS rebinding), which an Origin check alone misses on GET.
    const hostName = hostnameOf(request.headers.host);
    if (options.token === undefined && (hostName === undefined || !isLoopback(hostName))) {
      return refuse(response, 403, foreignHostMessage(request.headers.host ?? ''));
    }
    if (options.token !== undefined) {
      const given = bearerToken(request.headers.authorization ?? '');
      if (!tokenMatches(options.token, given)) return refuse(response, 401, UNAUTHORIZED_MESSAGE);
    }
    peers.authenticated(request.socket);
    const id = request.headers['mcp-session-id'];
    const existing = typeof id === 'string' ? sessions.get(id) : undefined;
    if (existing !== undefined) {
      // Most recently used last: when the sessions are full, the first idle one is the one to end.
      sessions.delete(id as string);
      sessions.set(id as string, existing);
      // A POST is work the client waits on (an execute answers on its response): in flight until it closes.
      if (request.method === 'POST') {
        existing.inFlight++;
        response.once('close', () => existing.inFlight--);
      }
      return existing.transport.handleRequest(request, response);
    }
    if (id !== undefined) return refuse(response, 404, UNKNOWN_SESSION_MESSAGE);
    if (request.method !== 'POST') return refuse(response, 400, UNKNOWN_SESSION_MESSAGE);
    const body = await readJson(request, response);
    if (body === undefined) return;
    if (!isInitializeRequest(body)) return refuse(response, 400, UNKNOWN_SESSION_MESSAGE);
    // A client that vanished never says so over HTTP: the idle session used least recently makes
    // room; one with a request in flight is never ended for another client.
    if (live >= SESSION_LIMIT) {
      const idle = [...sessions.entries()].find(([, session]) => session.inFlight === 0);
      if (idle === undefined) return refuse(response, 503, sessionsBusyMessage(SESSION_LIMIT));
      sessions.delete(idle[0]);
      await idle[1].transport.close().catch(() => {});
    }
    const server = options.createServer();
    live++;
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        sessions.set(sessionId, { transport, server, inFlight: 0 });
      },
    });
    let closed = false;
    transport.onclose = () => {
      if (closed) return;
      closed = true;
      live--;
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
    // The transport refused the initialize (a wrong Accept or Content-Type): no session began, so
    // nothing would ever close this server.
    if (transport.sessionId === undefined) await server.close().catch(() => {});
  };

  const http: HttpServer = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) refuse(response, 500, `The request failed: ${String(error)}`);
      else response.end();
    });
  });
  http.on('connection', (socket: Socket) => {
    if (!peers.admit(socket)) {
      socket.end(rawRefusal(503, tooManyUnauthenticatedMessage(DEFAULT_MAX_UNAUTHENTICATED_CONNECTIONS)));
      socket.destroySoon();
    }
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const { port } = http.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  ownOrigin = `http://${host}:${port}`;
  return {
    url: `http://${host}:${port}${MCP_PATH}`,
    servers: () => [...sessions.values()].map((session) => session.server),
    close: async () => {
      await Promise.all([...sessions.values()].map((session) => session.transport.close().catch(() => {})));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** The first request of a session, read under the same bound the transport keeps for the others. */
const INITIALIZE_BODY_LIMIT = 1024 * 1024;

async function readJson(request: IncomingMessage, response: ServerResponse): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > INITIALIZE_BODY_LIMIT) {
      refuse(response, 413, `The request body is larger than ${INITIALIZE_BODY_LIMIT} bytes.`);
      request.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    refuse(response, 400, 'The request body is not JSON.');
    return undefined;
  }
}

/** The name in a Host header (`[::1]:8080` → `[::1]`), or undefined when there is none. */
function hostnameOf(header: string | undefined): string | undefined {
  if (header === undefined || header === '') return undefined;
  try {
    return new URL(`http://${header}`).hostname;
  } catch {
    return undefined;
  }
}

/** A whole HTTP response written straight to a socket whose request is not read. */
function rawRefusal(status: number, message: string): string {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}

function refuse(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}
