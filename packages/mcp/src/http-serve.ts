/**
 * `--http PORT`: the served MCP server over Streamable HTTP at /mcp, for clients of both protocol
 * eras at once. A request carrying the current revision's `_meta` claim (2026-07-28) is served
 * statelessly by the SDK's per-request handler (`server/discover`, `_meta` negotiation, the
 * `Mcp-Method` header, cache hints); anything else is the handshake era's, where an `initialize`
 * opens a session and the session's id routes its later requests (2025-06-18, 2025-11-25). The
 * SDK's own classification (`isLegacyRequest`) decides which. Both answer under the rules `serve`
 * keeps (docs/server.md): a bearer token of at least MIN_TOKEN_LENGTH characters compared in
 * constant time when one is configured, browser origins refused unless allowed, no token only on a
 * loopback address, and connections that have not authenticated yet held under serve's numbers
 * (unauthenticated-peers.ts).
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  type NodeIncomingMessageLike,
  NodeStreamableHTTPServerTransport,
  toNodeHandler,
  toWebRequest,
} from '@modelcontextprotocol/node';
import {
  type AuthInfo,
  createMcpHandler,
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  isInitializeRequest,
  isLegacyRequest,
  type Server,
} from '@modelcontextprotocol/server';
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
import { HttpServeError, shortTokenMessage } from './http-serve-error.ts';
import { type Era, newCallerId, UNAUTHENTICATED_IDENTITY } from './served.ts';
import { UnauthenticatedPeers } from './unauthenticated-peers.ts';

export { HttpServeError, shortTokenMessage } from './http-serve-error.ts';

interface Session {
  readonly transport: NodeStreamableHTTPServerTransport;
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
  /**
   * Makes the server of one handshake-era session (`legacy`), or of one request on the current
   * revision (`modern`), given the caller id of the connection it came on and the client's
   * identity its approvals are bound to (bearerIdentity).
   */
  readonly createServer: (era: Era, callerId?: string, identity?: string) => Server;
}

export interface ServedHttp {
  readonly url: string;
  /** Every server in a session, to tell each of a change of tools. */
  readonly servers: () => Server[];
  /** Tells every client on the current revision listening for it (subscriptions/listen) of a change of tools. */
  readonly toolsChanged: () => void;
  close(): Promise<void>;
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
  // The current revision's requests, each served by a server of its own; a handshake-era request
  // reaching it would be refused, but the routing below never sends one.
  const identity = bearerIdentity(options.token);
  const modern = createMcpHandler(
    ({ authInfo }) => options.createServer('modern', callerOf(authInfo), identity),
    { legacy: 'reject' },
  );
  const serveModern = toNodeHandler(modern);
  /**
   * A request on the current revision has no session to be a caller of the executor by; the
   * connection it came on stands in, so clients on connections of their own take turns.
   */
  const connectionCallers = new WeakMap<Socket, string>();

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
        // Read here, under BODIES_READ_LIMIT as every other body: the transport would read it whole
        // on its own count (120 stalled 4 MiB bodies held half a gigabyte, a review's probe).
        const read = await readJson(request, response);
        if (read === undefined) return;
        return existing.transport.handleRequest(request, response, read.body);
      }
      return existing.transport.handleRequest(request, response);
    }
    if (id !== undefined) return refuse(response, 404, UNKNOWN_SESSION_MESSAGE);
    if (request.method !== 'POST') return refuse(response, 400, UNKNOWN_SESSION_MESSAGE);
    const read = await readJson(request, response);
    if (read === undefined) return;
    const { body, size } = read;
    // The SDK's own classification: a request with the current revision's _meta claim is served
    // without a session; anything else (an initialize first of all) is the handshake era's.
    // The SDK's type for a Node request marks `method` present, which Node's leaves optional.
    const nodeRequest = request as NodeIncomingMessageLike;
    if (!(await isLegacyRequest(await toWebRequest(nodeRequest, body), body))) {
      // What passed the checks above reaches the request's server as the SDK's pass-through
      // authInfo (toNodeHandler forwards `req.auth`): the caller id the request runs as. The
      // token itself stays here.
      (request as IncomingMessage & { auth?: AuthInfo }).auth = {
        token: '',
        clientId: 'codemode-mcp',
        scopes: [],
        extra: { callerId: connectionCaller(connectionCallers, request.socket) },
      };
      return serveModern(nodeRequest, response, body);
    }
    if (size > INITIALIZE_BODY_LIMIT)
      return refuse(response, 413, bodyTooLargeMessage(INITIALIZE_BODY_LIMIT));
    if (!isInitializeRequest(body)) return refuse(response, 400, UNKNOWN_SESSION_MESSAGE);
    // A client that vanished never says so over HTTP: the idle session used least recently makes
    // room; one with a request in flight is never ended for another client.
    if (live >= SESSION_LIMIT) {
      const idle = [...sessions.entries()].find(([, session]) => session.inFlight === 0);
      if (idle === undefined) return refuse(response, 503, sessionsBusyMessage(SESSION_LIMIT));
      sessions.delete(idle[0]);
      await idle[1].transport.close().catch(() => {});
    }
    const server = options.createServer('legacy');
    live++;
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
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

  const http: HttpServer = createServer(
    {
      headersTimeout: REQUEST_TIMEOUT,
      requestTimeout: REQUEST_TIMEOUT,
      connectionsCheckingInterval: 1_000,
    },
    (request, response) => {
      handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) refuse(response, 500, `The request failed: ${String(error)}`);
        else response.end();
      });
    },
  );
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
    toolsChanged: () => modern.notify.toolsChanged(),
    close: async () => {
      await modern.close().catch(() => {});
      await Promise.all([...sessions.values()].map((session) => session.transport.close().catch(() => {})));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/**
 * Who a client over HTTP is, for the approvals it answers: whoever holds the bearer token (its
 * SHA-256: the token itself never leaves this module), so every holder of the one token is one
 * client; without a token, everyone who reaches the loopback port (docs/mcp.md, "Approvals").
 */
export function bearerIdentity(token: string | undefined): string {
  if (token === undefined) return UNAUTHENTICATED_IDENTITY;
  return `bearer ${createHash('sha256').update(token).digest('base64url')}`;
}

/**
 * How long a request may take to arrive, its headers and its body, in ms, checked every second:
 * Node's defaults gave a peer that sent 4 MiB less a byte and stopped 300 s to hold it (300 such
 * peers held a gigabyte of buffers, measured). A program's answer may take as long as it runs; its
 * request arrives at once.
 */
export const REQUEST_TIMEOUT = 10_000;

/**
 * Bytes of request bodies the bridge reads at once, across every request: each is held whole until
 * it parses, outside the heap's limit, so past this a request is answered 503 at once rather than
 * read.
 */
export const BODIES_READ_LIMIT = 64 * 2 ** 20;

/** The first request of a session: the transport bounds the later ones by DEFAULT_MAX_REQUEST_BODY_SIZE. */
const INITIALIZE_BODY_LIMIT = 1024 * 1024;

/** Bytes of the bodies readJson holds now, across every request (BODIES_READ_LIMIT). */
let bodiesRead = 0;

export const BODIES_BUSY_MESSAGE = `The bridge is reading ${BODIES_READ_LIMIT} bytes of other requests' bodies; send it again shortly.`;

function bodyTooLargeMessage(limit: number): string {
  return `The request body is larger than ${limit} bytes.`;
}

/**
 * A request's body, read whole under the SDK's bound for a request (4 MiB), which a request on the
 * current revision and a session's keep; an initialize is held to INITIALIZE_BODY_LIMIT after.
 */
async function readJson(
  request: IncomingMessage,
  response: ServerResponse,
): Promise<{ body: unknown; size: number } | undefined> {
  // A body declared past the bound is refused before a byte of it is read, as the SDK refuses it.
  if (Number(request.headers['content-length'] ?? 0) > DEFAULT_MAX_REQUEST_BODY_SIZE) {
    refuse(response, 413, bodyTooLargeMessage(DEFAULT_MAX_REQUEST_BODY_SIZE));
    request.destroy();
    return undefined;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of request as AsyncIterable<Buffer>) {
      size += chunk.length;
      bodiesRead += chunk.length;
      if (size > DEFAULT_MAX_REQUEST_BODY_SIZE) {
        refuse(response, 413, bodyTooLargeMessage(DEFAULT_MAX_REQUEST_BODY_SIZE));
        request.destroy();
        return undefined;
      }
      if (bodiesRead > BODIES_READ_LIMIT) {
        refuse(response, 503, BODIES_BUSY_MESSAGE);
        request.destroy();
        return undefined;
      }
      chunks.push(chunk);
    }
  } catch {
    // The peer went away, or its request timed out (REQUEST_TIMEOUT): Node has answered it.
    return undefined;
  } finally {
    bodiesRead -= size;
  }
  try {
    // Decoded as the SDK decodes a body (TextDecoder drops a byte order mark, which JSON.parse refuses).
    return { body: JSON.parse(new TextDecoder().decode(Buffer.concat(chunks))), size };
  } catch {
    refuse(response, 400, 'The request body is not JSON.', PARSE_ERROR);
    return undefined;
  }
}

/** The caller id of a connection's requests on the current revision, made on its first. */
function connectionCaller(callers: WeakMap<Socket, string>, socket: Socket): string {
  let caller = callers.get(socket);
  if (caller === undefined) {
    caller = newCallerId('connection');
    callers.set(socket, caller);
  }
  return caller;
}

function callerOf(authInfo: AuthInfo | undefined): string | undefined {
  const caller = authInfo?.extra?.callerId;
  return typeof caller === 'string' ? caller : undefined;
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

/** JSON-RPC's code for a body that does not parse, which the SDK's transport answers with too. */
const PARSE_ERROR = -32700;

function refuse(response: ServerResponse, status: number, message: string, code = -32000): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
