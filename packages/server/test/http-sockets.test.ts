/**
 * Sockets no upgrade has reached yet. A peer that opens a socket and never finishes its request's
 * headers is answered 408 and closed after REQUEST_HEAD_TIMEOUT (Node's own defaults held such a
 * socket for a minute, 9000 of them at once, measured, and with them the process's file
 * descriptors); past maxConnections + SOCKET_HEADROOM sockets, the HTTP server closes what it
 * accepts at once. An upgraded socket is not the HTTP server's to time out.
 */
import { connect as connectTcp, type Socket } from 'node:net';
import { afterAll, expect, test } from 'vitest';
import { REQUEST_HEAD_TIMEOUT, SOCKET_HEADROOM } from '../src/server.ts';
import { connect, useServer, waitUntil } from './helpers.ts';

const MAX_CONNECTIONS = 2;
/** Past what the HTTP server accepts with one client connected. */
const PAST = 5;

const setup = useServer({ maxConnections: MAX_CONNECTIONS });

test('silent sockets are closed at REQUEST_HEAD_TIMEOUT, those past the cap at once, and an upgraded client outlives both', async () => {
  const client = await connect(setup.server);
  const accepted = MAX_CONNECTIONS + SOCKET_HEADROOM - 1;
  const sockets: Socket[] = [];
  const ends: string[] = [];
  afterAll(() => {
    for (const socket of sockets) socket.destroy();
  });
  for (let index = 0; index < accepted + PAST; index++) {
    const socket = connectTcp(setup.server.port, '127.0.0.1');
    let answer = '';
    socket.on('data', (data) => {
      answer += String(data);
    });
    socket.on('error', () => {});
    socket.on('close', () => ends.push(answer.split('\r\n')[0] ?? ''));
    sockets.push(socket);
  }
  await waitUntil(() => ends.length === PAST, 'the sockets past the cap are closed');
  expect(ends).toStrictEqual(Array(PAST).fill(''));

  await waitUntil(
    () => ends.length === accepted + PAST,
    'the silent sockets are answered and closed',
    REQUEST_HEAD_TIMEOUT + 5_000,
  );
  expect(ends.slice(PAST)).toStrictEqual(Array(accepted).fill('HTTP/1.1 408 Request Timeout'));

  expect(await client.execute({ code: 'async () => "still served"' })).toStrictEqual({
    logs: [],
    result: 'still served',
  });
}, 30_000);
