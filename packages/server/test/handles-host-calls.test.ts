/**
 * Retained handlers that call tools and fetch, over the server: the granting connection serves the
 * invocations' calls with the functions of its execute, whichever connection invokes, until the
 * handles close; then nothing reaches them. And a client answers every call the server sends:
 * one for a conversation it never started ends the connection as a protocol error.
 */
import { once } from 'node:events';
import { stringifyForDispatch } from '@supolka/codemode-protocol';
import {
  CANCEL_ANSWER_GRACE,
  ExecutorClient,
  REFUSAL_BACKLOG,
  SERVED_CALL_LIMIT,
} from '@supolka/codemode-protocol/client';
import { describe, expect, test } from 'vitest';
import { WebSocketServer } from 'ws';
import { TOOL_AND_FETCH } from '../../executor/test/tool-and-fetch-handler.ts';
import { tooManyServedMessage, unreadAnswersReason } from '../../protocol/src/client/texts.ts';
import { faultEnvelope } from '../../protocol/src/envelope-shape.ts';
import { cancelledMessage } from '../../protocol/src/errors.ts';
import { connect, TOKEN, useServer, waitUntil } from './helpers.ts';

const setup = useServer({ executor: { poolSize: 1 } });

function grant(client: ExecutorClient, calls: string[]) {
  return client.execute({
    code: TOOL_AND_FETCH,
    retainHandles: true,
    providers: [
      {
        name: 'kv',
        fns: {
          get: (key: string) => {
            calls.push(key);
            return `value-of-${key}`;
          },
        },
      },
    ],
    outbound: (request) => new Response(`fetched ${new URL(request.url).pathname}`),
  });
}

describe('a retained handler over the server', () => {
  test('calls the granting client’s tools and proxied fetch on every invocation, until closed', async () => {
    const client = await connect(setup.server);
    const calls: string[] = [];
    const granted = await grant(client, calls);
    const id = granted.executionId as string;
    expect(id).toEqual(expect.any(String));
    for (const key of ['a', 'b']) {
      const response = (await client.invoke(id, new Request(`http://x/${key}`))) as Response;
      expect(await response.text()).toBe(`value-of-${key} fetched /${key}`);
    }
    expect(calls).toStrictEqual(['a', 'b']);
    await client.closeHandles(id);
    await expect(client.invoke(id, new Request('http://x/c'))).rejects.toMatchObject({
      code: 'HANDLES_CLOSED',
    });
    expect(calls).toStrictEqual(['a', 'b']);
  });

  test('invoked from another connection, still calls the granting one’s tools; with it gone, the handles are', async () => {
    const granting = await connect(setup.server);
    const other = await connect(setup.server);
    const calls: string[] = [];
    const id = (await grant(granting, calls)).executionId as string;
    const response = (await other.invoke(id, new Request('http://x/from-other'))) as Response;
    expect(await response.text()).toBe('value-of-from-other fetched /from-other');
    expect(calls).toStrictEqual(['from-other']);
    granting.close();
    await waitUntil(async () => {
      try {
        await other.invoke(id, new Request('http://x/late'));
        return false;
      } catch (error) {
        return (error as { code?: unknown }).code === 'HANDLES_CLOSED';
      }
    }, 'the granting connection’s close closed the handles');
    expect(calls).toStrictEqual(['from-other']);
  });
});

describe('a client', () => {
  /** A server of the test's own: says hello, then sends what `then` sends. */
  async function fakeServer(then: (send: (message: unknown) => void, received: unknown[]) => void) {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await once(server, 'listening');
    const received: unknown[] = [];
    server.on('connection', (socket) => {
      socket.on('message', (data) => {
        const message = JSON.parse(String(data)) as { type: string };
        received.push(message);
        if (message.type === 'hello') {
          socket.send(JSON.stringify({ type: 'hello', protocol: 1 }));
          then((value) => socket.send(stringifyForDispatch(value)), received);
        }
      });
    });
    const { port } = server.address() as { port: number };
    return { url: `ws://127.0.0.1:${port}`, received, close: () => server.close() };
  }

  /** Until the fake server has received the client's execute. */
  const executeArrived = (fake: { received: unknown[] }) =>
    waitUntil(
      () => fake.received.some((message) => (message as { type: string }).type === 'execute'),
      'the execute arrived',
    );

  test('answers a call for a conversation that ended with the thrown frame a settled run’s call gets', async () => {
    let sendLater: ((message: unknown) => void) | undefined;
    const fake = await fakeServer((send) => {
      sendLater = send;
    });
    try {
      const client = await ExecutorClient.connect(new WebSocket(fake.url), { token: TOKEN });
      const run = client.execute({ code: 'async () => 1' });
      await executeArrived(fake);
      sendLater?.({ type: 'result', id: 'c1', envelope: { result: 1, logs: [] } });
      expect((await run).result).toBe(1);
      sendLater?.({ type: 'dispatch', id: 'c1', call: 0, provider: 'kv', tool: 'get', args: '[]' });
      await waitUntil(
        () => fake.received.some((message) => (message as { type: string }).type === 'dispatchReply'),
        'the client answered',
      );
      expect(
        fake.received.find((message) => (message as { type: string }).type === 'dispatchReply'),
      ).toStrictEqual({
        type: 'dispatchReply',
        id: 'c1',
        call: 0,
        frame: ['thrown', 'Execution has already completed.'],
      });
      expect(client.closed).toBe(false);
      client.close();
    } finally {
      fake.close();
    }
  });

  test('ends the connection as a protocol error when a call names a conversation it never started', async () => {
    for (const id of ['c7', 'x0', 'c0', 'c01']) {
      const fake = await fakeServer((send) =>
        send({ type: 'dispatch', id, call: 0, provider: 'kv', tool: 'get', args: '[]' }),
      );
      try {
        const socket = new WebSocket(fake.url);
        const closed = new Promise<CloseEvent>((resolve) => socket.addEventListener('close', resolve));
        const client = await ExecutorClient.connect(socket, { token: TOKEN });
        await closed;
        expect(client.closedWith).toStrictEqual({
          code: 4400,
          reason: 'the executor sent a tool call for an execution this client never started',
        });
        expect(fake.received.some((message) => (message as { type: string }).type === 'dispatchReply')).toBe(
          false,
        );
      } finally {
        fake.close();
      }
    }
  });

  test('ends the connection when the server keeps sending calls it refuses and reads none of the answers', async () => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await once(server, 'listening');
    server.on('connection', (socket) => {
      socket.on('message', (data) => {
        const message = JSON.parse(String(data)) as { type: string };
        if (message.type === 'hello') socket.send(JSON.stringify({ type: 'hello', protocol: 1 }));
        if (message.type !== 'execute') return;
        socket.send(stringifyForDispatch({ type: 'result', id: 'c1', envelope: { result: 1, logs: [] } }));
        // Calls for the run that ended, each answered "already completed", none of it read.
        socket.pause();
        const call = (index: number) =>
          stringifyForDispatch({
            type: 'dispatch',
            id: 'c1',
            call: index,
            provider: 'kv',
            tool: 'get',
            args: '[]',
          });
        for (let index = 0; index < 150_000; index++) socket.send(call(index));
      });
    });
    try {
      const { port } = server.address() as { port: number };
      const client = await ExecutorClient.connect(new WebSocket(`ws://127.0.0.1:${port}`), { token: TOKEN });
      expect((await client.execute({ code: 'async () => 1' })).result).toBe(1);
      // Ended at once on the client's side; the closing handshake waits on a server that reads nothing.
      await waitUntil(() => client.closed, 'the client ends the connection', 30_000);
      expect(client.closedWith).toStrictEqual({ code: 4400, reason: unreadAnswersReason(REFUSAL_BACKLOG) });
    } finally {
      for (const peer of server.clients) peer.terminate();
      server.close();
    }
  }, 60_000);

  test('runs at most SERVED_CALL_LIMIT calls of one execution at once and answers the rest thrown, uncalled', async () => {
    let sendLater: ((message: unknown) => void) | undefined;
    const fake = await fakeServer((send) => {
      sendLater = send;
    });
    try {
      const client = await ExecutorClient.connect(new WebSocket(fake.url), { token: TOKEN });
      let called = 0;
      const run = client.execute({
        code: 'async () => 1',
        providers: [{ name: 'kv', fns: { get: () => new Promise(() => called++) } }],
      });
      await executeArrived(fake);
      // A server not running the sandbox: calls it never lets the client answer, without end.
      const past = 100;
      for (let call = 0; call < SERVED_CALL_LIMIT + past; call++)
        sendLater?.({ type: 'dispatch', id: 'c1', call, provider: 'kv', tool: 'get', args: '[]' });
      const replies = () =>
        fake.received.filter((message) => (message as { type: string }).type === 'dispatchReply');
      await waitUntil(() => replies().length === past, 'the calls past the limit are answered');
      expect(called).toBe(SERVED_CALL_LIMIT);
      expect(replies()[0]).toStrictEqual({
        type: 'dispatchReply',
        id: 'c1',
        call: SERVED_CALL_LIMIT,
        frame: ['thrown', tooManyServedMessage(SERVED_CALL_LIMIT)],
      });
      expect(client.closed).toBe(false);
      sendLater?.({ type: 'result', id: 'c1', envelope: { result: 1, logs: [] } });
      expect((await run).result).toBe(1);
      client.close();
    } finally {
      fake.close();
    }
  });

  test(
    'settles an aborted execution CANCELLED after CANCEL_ANSWER_GRACE when the server never answers its cancel',
    async () => {
      const fake = await fakeServer(() => {});
      try {
        const client = await ExecutorClient.connect(new WebSocket(fake.url), { token: TOKEN });
        const controller = new AbortController();
        const run = client.execute({ code: 'async () => 1' }, { signal: controller.signal });
        await executeArrived(fake);
        controller.abort();
        const envelope = await run;
        expect(envelope).toStrictEqual(faultEnvelope('CANCELLED', cancelledMessage(undefined)));
        expect(fake.received.some((message) => (message as { type: string }).type === 'cancel')).toBe(true);
        expect(client.closed).toBe(false);
        client.close();
      } finally {
        fake.close();
      }
    },
    CANCEL_ANSWER_GRACE + 10_000,
  );
});
