/**
 * A client that sends without end and never reads what it is answered. Every message is answered
 * (here a second hello, answered with a fault), so a server that went on reading such a client
 * queued its answers in memory for as long as it kept sending: 865 MB from one connection in 50 s,
 * measured, before congestionTimeout dropped it. Now the server stops reading a client past
 * sendBufferLimit, so what it holds stays near that limit, and it reads on, in order and losing
 * nothing, once the client reads. The server runs in a process of its own (fixtures/budget-server.ts)
 * with a heap a server that read on would outgrow.
 */
import { once } from 'node:events';
import { afterAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import { ALREADY_OPEN_MESSAGE } from '../src/texts.ts';
import { TOKEN, useServerProcess, waitUntil } from './helpers.ts';

const MiB = 2 ** 20;
const SEND_BUFFER_LIMIT = MiB;
/** About 24 MB of answers: far past what the kernels' buffers on loopback take, and the limit. */
const FLOOD = 200_000;
/** What the server may hold more than at rest while the flood waits unread. */
const HELD_BOUND = 32 * MiB;

const server = useServerProcess(
  { token: TOKEN, sendBufferLimit: SEND_BUFFER_LIMIT, congestionTimeout: 120_000, executor: { poolSize: 1 } },
  192,
);

test('a client that floods and never reads is not read: the server holds about its sendBufferLimit, and serves every message once the client reads', async () => {
  const atRest = await server.memoryUsed();
  const socket = new WebSocket(server.url, { headers: { authorization: `Bearer ${TOKEN}` } });
  afterAll(() => socket.terminate());
  let received = 0;
  let last: Record<string, unknown> | undefined;
  socket.on('message', (data) => {
    received += 1;
    last = JSON.parse(String(data));
  });
  await once(socket, 'open');
  socket.send(JSON.stringify({ type: 'hello', protocol: 3 }));
  await waitUntil(() => received === 1, 'the hello is answered');
  socket.pause();
  const again = JSON.stringify({ type: 'hello', protocol: 3 });
  for (let sent = 0; sent < FLOOD; sent++) socket.send(again);

  // Watched for as long as the flood takes to arrive: a server that read on grows all along.
  let most = 0;
  for (let sample = 0; sample < 15; sample++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    most = Math.max(most, (await server.memoryUsed()) - atRest);
  }
  expect(most).toBeLessThan(HELD_BOUND);

  socket.resume();
  await waitUntil(() => received === FLOOD + 1, 'every message is answered', 60_000);
  expect(last).toStrictEqual({ type: 'fault', code: 'BAD_REQUEST', message: ALREADY_OPEN_MESSAGE });
  socket.send(
    JSON.stringify({ type: 'execute', id: 'after', request: { code: 'async () => "served after"' } }),
  );
  await waitUntil(() => received === FLOOD + 2, 'the execute after the flood is answered');
  expect(last).toStrictEqual({ type: 'result', id: 'after', envelope: { logs: [], result: 'served after' } });
}, 120_000);
