/**
 * The bounds a server sets on its clients, whatever they ask for: connections in all and before
 * authentication, the bytes a client may send before its hello, the largest timeout and memory
 * limit a request may name, the wall-clock time of an execution that keeps waiting on its tools,
 * requests in flight per connection (invokes and closeHandles among them), and a ping that a
 * client, or the network under it, must keep answering.
 */
import { once } from 'node:events';
import { invocationPastWallClockMessage } from '@supolka/codemode-executor';
import { stringifyForDispatch } from '@supolka/codemode-protocol';
import { afterAll, beforeEach, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { OPENING_BYTE_LIMIT } from '../src/opening.ts';
import {
  connectionCapMessage,
  memoryLimitPastMaxMessage,
  timeoutPastMaxMessage,
  tooManyConnectionsMessage,
  tooManyUnauthenticatedMessage,
  wallClockMessage,
} from '../src/texts.ts';
import { connect, expectPoolClean, RawPeer, TOKEN, upgrade, useServer, waitUntil } from './helpers.ts';

const LIMITS = {
  maxConnections: 5,
  maxUnauthenticatedConnections: 2,
  maxExecutionsPerConnection: 2,
  maxTimeout: 2_000,
  maxMemoryLimit: 128,
  wallClockLimit: 1_500,
  pingInterval: 200,
};
const setup = useServer({ ...LIMITS, executor: { timeout: 1_000 } });

/** Each test starts with the connections of the one before gone: the caps count them. */
beforeEach(() => waitUntil(() => setup.server.stats().connections === 0, 'earlier connections end'));

describe('connections', () => {
  test('past maxUnauthenticatedConnections or maxConnections, an upgrade is answered 503', async () => {
    const { url } = setup.server;
    const waiting = [new RawPeer(url), new RawPeer(url)];
    await Promise.all(waiting.map((peer) => peer.opened));
    expect(await upgrade(url, {})).toStrictEqual({
      status: 503,
      body: `${tooManyUnauthenticatedMessage(2)}\n`,
    });
    // Clients with the token in the upgrade are not held back by those without.
    const authenticated = [await RawPeer.open(url), await RawPeer.open(url)];
    // One of the waiting clients sends its token, which frees its place for another.
    waiting[0]?.send({ type: 'hello', protocol: 1, token: TOKEN });
    expect(await waiting[0]?.next()).toStrictEqual({ type: 'hello', protocol: 1 });
    const fifth = new RawPeer(url);
    expect(await fifth.opened).toBe(true);
    expect(await upgrade(url, { authorization: `Bearer ${TOKEN}` })).toStrictEqual({
      status: 503,
      body: `${tooManyConnectionsMessage(5)}\n`,
    });
    for (const peer of [...waiting, ...authenticated, fifth]) peer.socket.close();
  });

  test('a wrong token in the upgrade is held to maxUnauthenticatedConnections, as no token is', async () => {
    const { url } = setup.server;
    const waiting = [new RawPeer(url), new RawPeer(url)];
    await Promise.all(waiting.map((peer) => peer.opened));
    // Let in, a wrong token would only hear that it is wrong; at the cap it is not let in at all.
    expect(await upgrade(url, { authorization: 'Bearer not-the-token-at-all' })).toStrictEqual({
      status: 503,
      body: `${tooManyUnauthenticatedMessage(2)}\n`,
    });
    for (const peer of waiting) peer.socket.close();
  });

  test.each([
    ['without a token, in one message', {}, true],
    ['with the token in the upgrade, in one message', { authorization: `Bearer ${TOKEN}` }, true],
    // The server counts bytes as they arrive, so it need not wait for a message that never ends.
    ['without a token, in fragments whose end never comes', {}, false],
  ])('a client %s sending more than 64 KiB before its hello is dropped unread', async (_, headers, fin) => {
    const socket = new WebSocket(setup.server.url, { headers });
    afterAll(() => socket.terminate());
    const received: unknown[] = [];
    socket.on('message', (data) => received.push(String(data)));
    await once(socket, 'open');
    socket.send(`{"type":"hello","protocol":1,"token":"${'x'.repeat(OPENING_BYTE_LIMIT)}"}`, { fin });
    const [code] = await once(socket, 'close');
    expect(code).toBe(1006);
    // No fault: the server read nothing of it, so it has nothing to say about it.
    expect(received).toStrictEqual([]);
  });

  test('a client that stops answering pings loses its socket; one that answers keeps it', async () => {
    const silent = new WebSocket(setup.server.url, {
      headers: { authorization: `Bearer ${TOKEN}` },
      autoPong: false,
    });
    afterAll(() => silent.terminate());
    await once(silent, 'open');
    silent.send(stringifyForDispatch({ type: 'hello', protocol: 1 }));
    const answering = await RawPeer.open(setup.server.url);
    const [code] = await once(silent, 'close');
    expect(code).toBe(1006);
    // Pinged all along, and answering: still served.
    answering.send({ type: 'execute', id: 'alive', request: { code: 'async () => "alive"' } });
    expect(await answering.next()).toStrictEqual({
      type: 'result',
      id: 'alive',
      envelope: { logs: [], result: 'alive' },
    });
    answering.socket.close();
  });
});

describe('requests', () => {
  test('one naming a timeout or memoryLimit past the server maximum is refused, naming both', async () => {
    const client = await connect(setup.server);
    const code = 'async () => "ran"';
    expect(await client.execute({ code, timeout: 2_001 })).toStrictEqual({
      result: undefined,
      error: timeoutPastMaxMessage(2_001, 2_000),
      code: 'BAD_REQUEST',
      logs: [],
    });
    expect(timeoutPastMaxMessage(2_001, 2_000)).toBe(
      "Invalid execute request: timeout 2001 ms is past this server's maxTimeout of 2000 ms.",
    );
    expect(await client.execute({ code, memoryLimit: 129 })).toStrictEqual({
      result: undefined,
      error: memoryLimitPastMaxMessage(129, 128),
      code: 'BAD_REQUEST',
      logs: [],
    });
    expect(await client.execute({ code, timeout: 2_000, memoryLimit: 128 })).toStrictEqual({
      result: 'ran',
      logs: [],
    });
    client.close();
  });

  test('an execution that keeps waiting on its tools is ended at wallClockLimit with TIMEOUT', async () => {
    const client = await connect(setup.server);
    // Each call fails at the dispatch deadline (the 1000 ms timeout) and the program calls again;
    // waits do not count on the run clock, so only the wall clock ends it. The bound leaves the
    // run's own time between calls room on a loaded machine.
    const envelope = await client.execute({
      code: 'async () => { for (;;) { try { await stall.wait() } catch {} } }',
      timeout: 1000,
      providers: [{ name: 'stall', fns: { wait: () => new Promise(() => {}) } }],
    });
    expect(envelope).toStrictEqual({
      result: undefined,
      error: wallClockMessage(1_500),
      code: 'TIMEOUT',
      logs: [],
    });
    await expectPoolClean(setup.server);
    client.close();
  });

  test('an invocation that keeps waiting on the client’s tools is ended at wallClockLimit with TIMEOUT', async () => {
    const client = await connect(setup.server);
    // As the execution above, in a handler: each call fails at the dispatch deadline and the
    // handler calls again, so only the wall clock, which the server's executor holds too, ends it.
    const granted = await client.execute({
      code: 'async () => ({ fetch: async () => { for (;;) { try { await stall.wait() } catch {} } } })',
      timeout: 1000,
      retainHandles: true,
      providers: [{ name: 'stall', fns: { wait: () => new Promise(() => {}) } }],
    });
    const id = granted.executionId as string;
    expect(id).toEqual(expect.any(String));
    const error = await client.invoke(id, new Request('http://x/')).then(
      () => undefined,
      (thrown: unknown) => thrown as { code: string; message: string },
    );
    expect(error?.code).toBe('TIMEOUT');
    // Between two calls nothing is pending, for a moment; the bound almost always finds one waiting.
    expect([
      invocationPastWallClockMessage(1_500, 'tool call stall.wait', 0),
      invocationPastWallClockMessage(1_500, undefined, 0),
    ]).toContain(error?.message);
    await expect(client.invoke(id, new Request('http://x/'))).rejects.toMatchObject({
      code: 'HANDLES_CLOSED',
    });
    await expectPoolClean(setup.server);
    client.close();
  });

  test('invokes and closeHandles count toward maxExecutionsPerConnection', async () => {
    // By hand: the order in which the requests reach the server is the point.
    const peer = await RawPeer.open(setup.server.url);
    const handler = 'new Promise((resolve) => setTimeout(() => resolve(new Response("late")), 100))';
    peer.send({
      type: 'execute',
      id: 'kept',
      request: { code: `async () => ({ fetch: () => ${handler} })`, retainHandles: true },
    });
    const { envelope } = await peer.next();
    const executionId = (envelope as { executionId: string }).executionId;
    // The longest timeout the server allows, so the dispatch deadline does not end them first.
    const hold = { code: 'async () => gate.wait()', providers: [{ name: 'gate' }], timeout: 2_000 };
    const request = { method: 'GET', url: 'https://h.test/', headers: [], body: null };
    const overloaded = { code: 'OVERLOADED', message: connectionCapMessage(2) };
    // One execution and one invoke in flight fill the cap of two.
    peer.send({ type: 'execute', id: 'held', request: hold });
    expect(await peer.next()).toMatchObject({ type: 'dispatch', id: 'held', call: 0 });
    peer.send({ type: 'invoke', id: 'slow', executionId, handle: 'fetch', request });
    peer.send({ type: 'execute', id: 'over', request: { code: 'async () => 1' } });
    expect(await peer.next()).toStrictEqual({
      type: 'result',
      id: 'over',
      envelope: { logs: [], error: connectionCapMessage(2), code: 'OVERLOADED' },
    });
    expect(await peer.next()).toMatchObject({ type: 'invokeResult', id: 'slow' });
    // Two executions fill it, one running and one queued behind it (a pool of one): an invoke
    // and a closeHandles wait their turn.
    peer.send({ type: 'execute', id: 'queued', request: hold });
    peer.send({ type: 'invoke', id: 'refused', executionId, handle: 'fetch', request });
    expect(await peer.next()).toStrictEqual({ type: 'fault', id: 'refused', ...overloaded });
    peer.send({ type: 'closeHandles', id: 'early', executionId });
    expect(await peer.next()).toStrictEqual({ type: 'fault', id: 'early', ...overloaded });
    const released = ['returned', '{"result":"released"}'];
    peer.send({ type: 'dispatchReply', id: 'held', call: 0, frame: released });
    expect(await peer.next()).toStrictEqual({
      type: 'result',
      id: 'held',
      envelope: { logs: [], result: 'released' },
    });
    expect(await peer.next()).toMatchObject({ type: 'dispatch', id: 'queued', call: 0 });
    peer.send({ type: 'dispatchReply', id: 'queued', call: 0, frame: released });
    expect(await peer.next()).toStrictEqual({
      type: 'result',
      id: 'queued',
      envelope: { logs: [], result: 'released' },
    });
    peer.send({ type: 'closeHandles', id: 'done', executionId });
    expect(await peer.next()).toStrictEqual({ type: 'ack', id: 'done' });
    peer.socket.close();
  });
});
