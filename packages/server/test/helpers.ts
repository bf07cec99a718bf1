/**
 * Builds the real thing for server tests: an ExecutorServer on 127.0.0.1 with an ephemeral port
 * and a small pool, shared by one test file and closed after it, in this process or in one of its
 * own for tests that push its heap; clients over Node's own
 * WebSocket; a raw peer that speaks the protocol by hand, for the messages a well-behaved client
 * never sends; and a TCP relay that can cut a connection the way a network does.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import { connect as connectTcp, createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { parseForDispatch, stringifyForDispatch } from '@supolka/codemode-protocol';
import { type ConnectOptions, ExecutorClient } from '@supolka/codemode-protocol/client';
import { afterAll, beforeAll, expect } from 'vitest';
import type { ServerOptions } from '../src/options.ts';
import { createServer, type ExecutorServer } from '../src/server.ts';

export const TOKEN = 'server-test-token-0123456789';

/** One server for the file: started before its tests, closed (and its pool disposed) after them. */
export function useServer(options: ServerOptions = {}): { readonly server: ExecutorServer } {
  const holder: { server?: ExecutorServer } = {};
  beforeAll(async () => {
    holder.server = await createServer({
      port: 0,
      token: TOKEN,
      ...options,
      executor: { poolSize: 1, heartbeatInterval: 100, ...options.executor },
    });
    await holder.server.executor.engine();
  });
  afterAll(() => holder.server?.close());
  return {
    get server() {
      if (!holder.server) throw new Error('the server starts in beforeAll');
      return holder.server;
    },
  };
}

/**
 * One server for the file in a process of its own (fixtures/budget-server.ts) with a heap of
 * `heapMb`, so a bound that fails kills that process and not the test runner; `heapUsed()` is its
 * heap after a full collection.
 */
export function useServerProcess(options: ServerOptions, heapMb: number) {
  const holder: { process?: ChildProcess; url?: string } = {};
  beforeAll(async () => {
    const child = fork(new URL('./fixtures/budget-server.ts', import.meta.url), [JSON.stringify(options)], {
      execArgv: [`--max-old-space-size=${heapMb}`, '--expose-gc'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    holder.process = child;
    const [message] = (await once(child, 'message')) as [{ url: string }];
    holder.url = message.url;
  }, 60_000);
  afterAll(async () => {
    const child = holder.process;
    if (child === undefined || child.exitCode !== null) return;
    child.send('close');
    await once(child, 'exit');
  });
  const started = () => {
    if (!holder.process || holder.url === undefined) throw new Error('the server starts in beforeAll');
    return { process: holder.process, url: holder.url };
  };
  return {
    get process(): ChildProcess {
      return started().process;
    },
    get url(): string {
      return started().url;
    },
    async heapUsed(): Promise<number> {
      const child = started().process;
      child.send('heap');
      const [message] = (await once(child, 'message')) as [{ heapUsed: number }];
      return message.heapUsed;
    },
    /** Its heap and its memory outside the heap (buffers), after a full collection, in bytes. */
    async memoryUsed(): Promise<number> {
      const child = started().process;
      child.send('memory');
      const [message] = (await once(child, 'message')) as [{ heapUsed: number; external: number }];
      return message.heapUsed + message.external;
    },
  };
}

/** Node's WebSocket takes headers in its second argument (undici's extension of the standard). */
export function openSocket(url: string, headers: Record<string, string> = {}): WebSocket {
  return new WebSocket(url, { headers } as unknown as string[]);
}

/** A client authenticated through the upgrade's Authorization header, closed after the file. */
export async function connect(server: ExecutorServer, options: ConnectOptions = {}): Promise<ExecutorClient> {
  const client = await ExecutorClient.connect(
    openSocket(server.url, { authorization: `Bearer ${TOKEN}` }),
    options,
  );
  afterAll(() => client.close());
  return client;
}

/** The HTTP answer to a WebSocket upgrade request with these headers; a 101 is hung up at once. */
export function upgrade(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const request = httpRequest({
      host: hostname,
      port,
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        ...headers,
      },
    });
    request.on('upgrade', (response, socket) => {
      socket.destroy();
      resolve({ status: response.statusCode ?? 0, body: '' });
    });
    request.on('response', (response) => {
      let body = '';
      response.on('data', (chunk) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

/** How many executions the server has counted as ended (GET /metrics), refusals included. */
export async function executionsEnded(server: ExecutorServer): Promise<number> {
  const text = await (await fetch(new URL('/metrics', server.url.replace('ws:', 'http:')))).text();
  return Number(/^codemode_execution_duration_seconds_count (\d+)$/m.exec(text)?.[1]);
}

/** Waits until `check` holds, polling; fails naming `what` after `ms`. */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  what: string,
  ms = 10_000,
): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`Timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Nothing is left of a client's work: no execution in flight, no queue, every child idle and holding nothing. */
export async function expectPoolClean(server: ExecutorServer): Promise<void> {
  await waitUntil(() => {
    const { pool, inFlight } = server.stats();
    return (
      inFlight === 0 &&
      pool.queued === 0 &&
      pool.children.length > 0 &&
      pool.children.every((child) => child.state === 'idle' && child.retained === 0)
    );
  }, 'the pool is clean');
  expect(server.stats().inFlight).toBe(0);
}

/**
 * A deferred value, for tools a test answers when it chooses. `resolve` returns a resolved
 * promise, so a tool can signal that it was reached and go on: `() => called.resolve().then(...)`.
 */
export function deferred<Value = void>() {
  let settle!: (value: Value) => void;
  const promise = new Promise<Value>((done) => {
    settle = done;
  });
  const resolve = (value: Value): Promise<void> => {
    settle(value);
    return Promise.resolve();
  };
  return { promise, resolve };
}

type Received = Record<string, unknown> & { type: string };

/** A hand-driven peer: sends raw text, receives parsed messages in order, sees the close. */
export class RawPeer {
  readonly socket: WebSocket;
  readonly closed: Promise<{ code: number; reason: string }>;
  readonly opened: Promise<boolean>;
  readonly #queue: Received[] = [];
  readonly #waiting: ((message: Received) => void)[] = [];

  constructor(url: string, headers: Record<string, string> = {}) {
    this.socket = openSocket(url, headers);
    this.opened = new Promise((resolve) => {
      this.socket.addEventListener('open', () => resolve(true));
      this.socket.addEventListener('close', () => resolve(false));
    });
    this.closed = new Promise((resolve) => {
      this.socket.addEventListener('close', (event) => resolve({ code: event.code, reason: event.reason }));
    });
    this.socket.addEventListener('message', (event) => {
      const message = parseForDispatch(String(event.data)) as Received;
      const waiter = this.#waiting.shift();
      if (waiter) waiter(message);
      else this.#queue.push(message);
    });
    afterAll(() => this.socket.close());
  }

  /** A peer that has said hello, authenticated by header. */
  static async open(url: string): Promise<RawPeer> {
    const peer = new RawPeer(url, { authorization: `Bearer ${TOKEN}` });
    await peer.opened;
    peer.send({ type: 'hello', protocol: 1 });
    expect(await peer.next()).toStrictEqual({ type: 'hello', protocol: 1 });
    return peer;
  }

  send(message: unknown): void {
    this.socket.send(typeof message === 'string' ? message : stringifyForDispatch(message));
  }

  next(): Promise<Received> {
    const queued = this.#queue.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Messages received and not yet taken by next(). */
  unread(): Received[] {
    return [...this.#queue];
  }
}

/**
 * A TCP relay in front of a server: clients connect to `url` and reach the server through it.
 * `cut()` resets every relayed connection at once, as a network that drops them would: neither
 * end gets a closing handshake.
 */
export class Relay {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(target: string): Promise<Relay> {
    const { hostname, port } = new URL(target);
    const relay = new Relay(
      createTcpServer((client) => {
        const upstream = connectTcp(Number(port), hostname);
        for (const socket of [client, upstream]) {
          relay.#sockets.add(socket);
          socket.on('error', () => {});
          socket.on('close', () => relay.#sockets.delete(socket));
        }
        client.pipe(upstream).pipe(client);
      }),
    );
    await new Promise<void>((resolve) => relay.#server.listen(0, '127.0.0.1', resolve));
    afterAll(() => {
      relay.cut();
      relay.#server.close();
    });
    return relay;
  }

  get url(): string {
    const address = this.#server.address() as { port: number };
    return `ws://127.0.0.1:${address.port}/`;
  }

  cut(): void {
    for (const socket of this.#sockets) socket.resetAndDestroy();
  }
}

/**
 * GET `path` from the HTTP server at `base` (an http: or ws: URL) with the path exactly as given:
 * fetch would resolve its dot segments first.
 */
export function getPathAsSent(
  base: string,
  path: string,
): Promise<{ status: number | undefined; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: hostname, port, path }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

/**
 * The URL a `serve` process says it serves on, once it says so; rejects with what it wrote to
 * stderr should it exit first.
 */
export function servingUrl(child: ChildProcess): Promise<string> {
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    let stdout = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = /serving on (\S+)/.exec(stdout);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`serve exited (${code}) before it listened: ${stderr}`)));
  });
}
