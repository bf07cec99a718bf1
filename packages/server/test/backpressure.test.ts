/**
 * Clients that stop reading their socket. Once one leaves more than sendBufferLimit unread the
 * server stops reading it (what it sends waits unread until it reads); once it has stayed past the
 * limit for congestionTimeout its socket is dropped, and its executions and handles with it. A refused client that does not answer the close is dropped
 * after a short grace. These clients use the ws package's client, which can stop reading (pause);
 * a standard WebSocket cannot.
 */
import { once } from 'node:events';
import { stringifyForDispatch } from '@supolka/codemode-protocol';
import { afterAll, beforeEach, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { executionsEnded, expectPoolClean, TOKEN, useServer, waitUntil } from './helpers.ts';

const SEND_BUFFER_LIMIT = 64 * 1024;
/** Long enough for the first test to read again before it passes, short for the second to wait out. */
const CONGESTION_TIMEOUT = 2_000;
/** Three of these are far more than the kernel buffers of a client that stopped reading hold. */
const LARGE = `async () => 'x'.repeat(${4 * 1024 * 1024})`;

const setup = useServer({ sendBufferLimit: SEND_BUFFER_LIMIT, congestionTimeout: CONGESTION_TIMEOUT });

/** Each test starts with the connections of the one before gone, so it can watch its own end. */
beforeEach(() => waitUntil(() => setup.server.stats().connections === 0, 'earlier connections end'));

/** A client over the ws package that has said hello (its token in the upgrade) and can stop reading. */
class SlowReader {
  readonly socket: WebSocket;
  readonly closed: Promise<number>;
  readonly #messages: Record<string, unknown>[] = [];

  private constructor(socket: WebSocket) {
    this.socket = socket;
    this.closed = once(socket, 'close').then(([code]) => code as number);
    socket.on('message', (data) => this.#messages.push(JSON.parse(String(data))));
    afterAll(() => socket.terminate());
  }

  static async open(url: string): Promise<SlowReader> {
    const reader = new SlowReader(new WebSocket(url, { headers: { authorization: `Bearer ${TOKEN}` } }));
    await once(reader.socket, 'open');
    reader.send({ type: 'hello', protocol: 1 });
    await reader.received(1);
    return reader;
  }

  send(message: unknown): void {
    this.socket.send(stringifyForDispatch(message));
  }

  /** Waits until `count` messages have arrived in all, and answers them. */
  async received(count: number): Promise<Record<string, unknown>[]> {
    await waitUntil(() => this.#messages.length >= count, `${count} messages arrive`);
    return this.#messages;
  }
}

describe('a client that stops reading', () => {
  test('is not read while it leaves more than sendBufferLimit unread, and is served once it reads', async () => {
    const reader = await SlowReader.open(setup.server.url);
    const ended = await executionsEnded(setup.server);
    reader.socket.pause();
    for (const id of ['a', 'b', 'c']) reader.send({ type: 'execute', id, request: { code: LARGE } });
    await waitUntil(
      async () => (await executionsEnded(setup.server)) === ended + 3,
      'the three results are sent',
    );
    // Sent while the server holds the connection: it waits unread, where the server used to read
    // it and answer OVERLOADED (and would answer a client that kept sending for as long as it sent).
    reader.send({ type: 'execute', id: 'later', request: { code: 'async () => "read later"' } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await executionsEnded(setup.server)).toBe(ended + 3);
    reader.socket.resume();
    const messages = await reader.received(5);
    expect(messages.slice(1, 4).map((message) => message.id)).toStrictEqual(['a', 'b', 'c']);
    expect(messages[4]).toStrictEqual({
      type: 'result',
      id: 'later',
      envelope: { logs: [], result: 'read later' },
    });
    reader.socket.close();
  });

  test('loses its socket once it has stayed past the limit for congestionTimeout, and its handles with it', async () => {
    const reader = await SlowReader.open(setup.server.url);
    expect(setup.server.stats().connections).toBe(1);
    reader.send({
      type: 'execute',
      id: 'kept',
      request: { code: 'async () => ({ fetch: () => new Response("kept") })', retainHandles: true },
    });
    await reader.received(2);
    reader.socket.pause();
    for (const id of ['a', 'b', 'c']) reader.send({ type: 'execute', id, request: { code: LARGE } });
    await waitUntil(
      () => setup.server.stats().connections === 0,
      'the server drops the socket',
      4 * CONGESTION_TIMEOUT,
    );
    await expectPoolClean(setup.server);
    reader.socket.resume();
    expect(await reader.closed).toBe(1006);
  });
});

describe('a refused client', () => {
  test('that does not answer the close loses its socket after a short grace', async () => {
    const socket = new WebSocket(setup.server.url);
    afterAll(() => socket.terminate());
    await once(socket, 'open');
    expect(setup.server.stats().connections).toBe(1);
    socket.send(stringifyForDispatch({ type: 'hello', protocol: 1, token: 'not-the-token-at-all' }));
    // Unread, the server's close is never answered; ws alone would wait 30 s for the answer.
    socket.pause();
    await waitUntil(() => setup.server.stats().connections === 0, 'the server drops the socket');
  });
});
