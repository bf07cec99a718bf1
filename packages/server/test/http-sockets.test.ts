/**
 * Sockets no upgrade has reached yet. A peer that opens a socket and never finishes its request's
 * headers is answered 408 and closed after REQUEST_HEAD_TIMEOUT (Node's own defaults held such a
 * socket for a minute, 9000 of them at once, measured), and such sockets take no place from
 * anyone: a cap on sockets let a few dozen of them, renewed as they timed out, keep every client
 * and /healthz out. An upgraded socket is not the HTTP server's to time out.
 */
import { connect as connectTcp, type Socket } from 'node:net';
import { afterAll, expect, test } from 'vitest';
import { REQUEST_HEAD_TIMEOUT } from '../src/server.ts';
import { connect, useServer, waitUntil } from './helpers.ts';

const MAX_CONNECTIONS = 2;
/** Far past maxConnections: silent sockets are not connections, and count against nothing. */
const SILENT = 200;

const setup = useServer({ maxConnections: MAX_CONNECTIONS });

test('silent sockets are closed at REQUEST_HEAD_TIMEOUT, keep nobody out meanwhile, and an upgraded client outlives them', async () => {
  const client = await connect(setup.server);
  const sockets: Socket[] = [];
  const ends: string[] = [];
  afterAll(() => {
    for (const socket of sockets) socket.destroy();
  });
  for (let index = 0; index < SILENT; index++) {
    const socket = connectTcp(setup.server.port, '127.0.0.1');
    let answer = '';
    socket.on('data', (data) => {
      answer += String(data);
    });
    socket.on('error', () => {});
    socket.on('close', () => ends.push(answer.split('\r\n')[0] ?? ''));
    sockets.push(socket);
  }
  await waitUntil(() => sockets.every((socket) => !socket.connecting), 'the silent sockets are connected');
  const health = await fetch(`http://127.0.0.1:${setup.server.port}/healthz`);
  expect(health.status).toBe(200);
  const second = await connect(setup.server);
  expect(await second.execute({ code: 'async () => "let in"' })).toStrictEqual({
    logs: [],
    result: 'let in',
  });
  expect(ends).toStrictEqual([]);

  await waitUntil(
    () => ends.length === SILENT,
    'the silent sockets are answered and closed',
    REQUEST_HEAD_TIMEOUT + 5_000,
  );
  expect(ends).toStrictEqual(Array(SILENT).fill('HTTP/1.1 408 Request Timeout'));
  expect(await client.execute({ code: 'async () => "still served"' })).toStrictEqual({
    logs: [],
    result: 'still served',
  });
}, 30_000);
