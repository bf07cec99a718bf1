/**
 * A native request's connection ends with its fetch. A server that answers a body the decoder
 * refuses and then holds the connection kept it open after the fetch rejected, with nothing left to
 * abort it at the run's end: one socket (a file descriptor of the child) per fetch, for as long as
 * the server liked. A server that switches protocols (101, or a CONNECT tunnel) got the socket
 * destroyed by Node with no answer, so the fetch never settled, not even when it was aborted.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { nativeFetch, PROTOCOL_SWITCH_MESSAGE } from '../../src/sandbox/fetch.ts';

/** The head and first bytes each path answers with; none of them ever ends its connection. */
const ANSWERS: Record<string, string> = {
  '/not-gzip':
    'HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n9\r\nnot gzip!\r\n',
  '/not-br':
    'HTTP/1.1 200 OK\r\nContent-Encoding: br\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n\xff\xff\xff\xff\r\n',
  '/switch': 'HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\nhello',
  '/unasked-switch': 'HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n',
  tunnel: 'HTTP/1.1 200 Connection Established\r\n\r\nhello',
};

let server: Server;
let base: string;
/** The server's side of each connection, by the path its request asked for. */
const sockets = new Map<string, Socket>();
beforeAll(async () => {
  // A raw server, so a response can be any bytes and the connection is never closed from this side.
  server = createServer((socket) => {
    socket.on('error', () => {});
    socket.once('data', (head) => {
      const [method = '', target = ''] = head.toString('latin1').split(' ');
      const path = method === 'CONNECT' ? 'tunnel' : target;
      sockets.set(path, socket);
      socket.write(Buffer.from(ANSWERS[path] ?? 'HTTP/1.1 404 Not Found\r\n\r\n', 'latin1'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  for (const socket of sockets.values()) socket.destroy();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

const get = (path: string, init: { method?: string; headers?: [string, string][] } = {}) =>
  nativeFetch(
    { method: init.method ?? 'GET', url: `${base}${path}`, headers: init.headers ?? [], body: null },
    new AbortController().signal,
    { allowLoopback: true },
  );

/** Resolves once the server's side of `path`'s connection has closed: the client ended it. */
const closed = (path: string) => {
  const socket = sockets.get(path) as Socket;
  return socket.closed ? Promise.resolve() : once(socket, 'close').then(() => undefined);
};

describe("a native request's connection", () => {
  test.each([
    ['/not-gzip', 'incorrect header check'],
    ['/not-br', 'Decompression failed'],
  ])('a body at %s that does not decode rejects the fetch and ends the connection', async (path, message) => {
    await expect(get(path)).rejects.toThrow(message);
    await closed(path);
  });

  const upgrade: [string, string][] = [
    ['connection', 'upgrade'],
    ['upgrade', 'websocket'],
  ];
  test.each<[string, string, { method?: string; headers?: [string, string][] }]>([
    ['an Upgrade request answered 101', '/switch', { headers: upgrade }],
    ['a 101 nobody asked for', '/unasked-switch', {}],
    ['a CONNECT answered 200', 'tunnel', { method: 'CONNECT' }],
  ])('%s rejects the fetch and ends the connection', async (_, path, init) => {
    await expect(get(path === 'tunnel' ? '/' : path, init)).rejects.toThrow(
      new TypeError(PROTOCOL_SWITCH_MESSAGE),
    );
    await closed(path);
  });
});
