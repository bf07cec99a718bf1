/**
 * Builds the real thing for server tests: an ExecutorServer on 127.0.0.1 with an ephemeral port
 * and a small pool, shared by one test file and closed after it; clients over Node's own
 * WebSocket; and a raw peer that speaks the protocol by hand, for the messages a well-behaved
 * client never sends.
 */
import { parseForDispatch, stringifyForDispatch } from '@supolka/codemode-protocol';
import { type ConnectOptions, ExecutorClient } from '@supolka/codemode-protocol/client';
import { afterAll, beforeAll, expect } from 'vitest';
import type { ServerOptions } from '../../src/server/options.ts';
import { createServer, type ExecutorServer } from '../../src/server/server.ts';

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

/** Waits until `check` holds, polling; fails naming `what` after `ms`. */
export async function waitUntil(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
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
}
