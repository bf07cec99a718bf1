/**
 * The server as a hand-driven peer sees it: the upgrade's refusals, the hello and the first-message
 * token, a browser's way in, every message kind crossing as raw codec text, and what malformed,
 * oversized or out-of-place messages get. The connection survives every fault that is not about
 * who it is; a refused one reads nothing more.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import {
  CANCEL_REASON_PROTOCOL_VERSION,
  cancelledMessage,
  encodeMessage,
  errorText,
  handleNotFoundMessage,
  ID_LIMIT,
  MESSAGE_TYPES,
  PAYLOAD_LIMIT,
  PROTOCOL_VERSION,
  REASON_ECHO_LIMIT,
  stringifyForDispatch,
} from '@supolka/codemode-protocol';
import {
  CLOSE_CODES,
  CodemodeError,
  ConnectionClosedError,
  connectRefusedMessage,
  ExecutorClient,
  HELLO_FIRST_MESSAGE,
  HELLO_TOKEN_REFUSED_MESSAGE,
  TOKEN_REFUSED_MESSAGE,
  UNAUTHORIZED_MESSAGE,
  UNAUTHORIZED_REASONS,
  versionMismatchMessage,
} from '@supolka/codemode-protocol/client';
import { afterAll, describe, expect, test } from 'vitest';
import { type WebSocket as PeerSocket, WebSocketServer } from 'ws';
import { GRANTED_HANDLES } from '../../executor/src/sandbox/handles.ts';
import { createServer, MAX_FRAME } from '../src/server.ts';
import {
  ALREADY_OPEN_MESSAGE,
  BINARY_FRAME_MESSAGE,
  CANCEL_REASON_LIMIT,
  duplicateIdMessage,
  foreignInstanceMessage,
  invokeRequestMessage,
  notFromClientMessage,
  notLoopbackMessage,
  originRefusedMessage,
  ROUTE_NOT_FOUND_MESSAGE,
} from '../src/texts.ts';
import {
  executionsEnded,
  getPathAsSent,
  openSocket,
  RawPeer,
  TOKEN,
  upgrade,
  useServer,
  waitUntil,
} from './helpers.ts';

const INSTANCE = 'exec-a';
const setup = useServer({ helloTimeout: 400, allowedOrigins: ['https://app.test'], instance: INSTANCE });

/** Opens a raw peer and checks the server's hello, which names the instance. */
async function open(): Promise<RawPeer> {
  const peer = new RawPeer(setup.server.url, { authorization: `Bearer ${TOKEN}` });
  await peer.opened;
  peer.send({ type: 'hello', protocol: 1 });
  expect(await peer.next()).toStrictEqual({ type: 'hello', protocol: 1, instance: INSTANCE });
  return peer;
}

/** Runs `code` with its handles retained under message id `id`, and answers the executionId. */
async function retain(peer: RawPeer, code: string, id = 'keep'): Promise<string> {
  peer.send({ type: 'execute', id, request: { code, retainHandles: true } });
  const { envelope } = await peer.next();
  return (envelope as { executionId: string }).executionId;
}

describe('the upgrade', () => {
  test('refuses a browser origin not listed with 403 and lets a listed one in', async () => {
    expect(
      await upgrade(setup.server.url, { authorization: `Bearer ${TOKEN}`, origin: 'https://evil.test' }),
    ).toStrictEqual({
      status: 403,
      body: `${originRefusedMessage('https://evil.test')}\n`,
    });
    expect(
      await upgrade(setup.server.url, { authorization: `Bearer ${TOKEN}`, origin: 'https://app.test' }),
    ).toStrictEqual({
      status: 101,
      body: '',
    });
  });

  // A WebSocket never shows its client the HTTP status of a refused upgrade, so a 401 reached the
  // client as a bare close with 1006. The server lets it in only to say why, and closes it.
  test('a wrong bearer token in the upgrade hears so in a fault, then a close with 4401', async () => {
    const peer = new RawPeer(setup.server.url, { authorization: 'Bearer not-the-token-at-all' });
    expect(await peer.opened).toBe(true);
    expect(await peer.next()).toStrictEqual({
      type: 'fault',
      code: 'BAD_REQUEST',
      message: TOKEN_REFUSED_MESSAGE,
    });
    // The hello that follows is not read: the refusal stands.
    peer.send({ type: 'hello', protocol: 1, token: TOKEN });
    expect(await peer.closed).toStrictEqual({
      code: CLOSE_CODES.unauthorized,
      reason: UNAUTHORIZED_REASONS.wrong,
    });
    expect(peer.unread()).toStrictEqual([]);
  });

  test("a client with a wrong token in the upgrade fails to connect with the server's sentence", async () => {
    const socket = openSocket(setup.server.url, { authorization: 'Bearer not-the-token-at-all' });
    const failure = await ExecutorClient.connect(socket, { token: TOKEN }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CodemodeError);
    expect(failure).toMatchObject({ code: 'BAD_REQUEST', message: TOKEN_REFUSED_MESSAGE });
  });
});

describe('a socket closed before connect', () => {
  test('fails to connect saying so, without the causes of a refused upgrade', async () => {
    const socket = openSocket(setup.server.url, { authorization: `Bearer ${TOKEN}` });
    await once(socket, 'open');
    socket.close();
    await once(socket, 'close');
    const failure = await ExecutorClient.connect(socket).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConnectionClosedError);
    expect(failure).toMatchObject({
      closeCode: 1006,
      message: 'The connection to the executor closed (code 1006: the socket was closed before connect).',
    });
  });
});

describe('a browser', () => {
  // Node's WebSocket sends what a browser's does here: an Origin, and no Authorization header.
  test('on an allowed origin connects with the token in its hello and runs an execution', async () => {
    const socket = openSocket(setup.server.url, { origin: 'https://app.test' });
    const client = await ExecutorClient.connect(socket, { token: TOKEN });
    afterAll(() => client.close());
    expect(client.instance).toBe(INSTANCE);
    const envelope = await client.execute({
      code: 'async () => page.title()',
      providers: [{ name: 'page', fns: { title: () => 'served by the page' } }],
    });
    expect(envelope).toStrictEqual({ result: 'served by the page', logs: [] });
  });

  test('on an origin not allowed is refused at the upgrade, and connect names the likely causes', async () => {
    const socket = openSocket(setup.server.url, { origin: 'https://evil.test' });
    const failure = await ExecutorClient.connect(socket, { token: TOKEN }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConnectionClosedError);
    expect(failure).toMatchObject({ closeCode: 1006, message: connectRefusedMessage(1006, '') });
  });
});

describe('the opening', () => {
  test('a client without headers authenticates with the token in its hello', async () => {
    const peer = new RawPeer(setup.server.url);
    await peer.opened;
    peer.send({ type: 'hello', protocol: 1, token: TOKEN });
    expect(await peer.next()).toStrictEqual({ type: 'hello', protocol: 1, instance: INSTANCE });
    peer.send({ type: 'execute', id: 'x', request: { code: 'async () => "in"' } });
    expect(await peer.next()).toStrictEqual({
      type: 'result',
      id: 'x',
      envelope: { logs: [], result: 'in' },
    });
  });

  test('a client without headers whose hello holds a wrong token hears so, then a close with 4401', async () => {
    const peer = new RawPeer(setup.server.url);
    await peer.opened;
    peer.send({ type: 'hello', protocol: 1, token: 'not-the-token-at-all' });
    expect(await peer.next()).toStrictEqual({
      type: 'fault',
      code: 'BAD_REQUEST',
      message: HELLO_TOKEN_REFUSED_MESSAGE,
    });
    expect(await peer.closed).toStrictEqual({
      code: CLOSE_CODES.unauthorized,
      reason: UNAUTHORIZED_REASONS.wrong,
    });
  });

  test.each([
    ['no token', { type: 'hello', protocol: 1 }],
    ['another message first', { type: 'cancel', id: 'x' }],
  ])('a client without headers that sends %s is closed with 4401', async (_, first) => {
    const peer = new RawPeer(setup.server.url);
    await peer.opened;
    peer.send(first);
    expect(await peer.next()).toStrictEqual({
      type: 'fault',
      code: 'BAD_REQUEST',
      message: UNAUTHORIZED_MESSAGE,
    });
    expect(await peer.closed).toStrictEqual({ code: CLOSE_CODES.unauthorized, reason: 'unauthorized' });
  });

  test('a client that sends nothing is closed once the hello timeout passes', async () => {
    const silent = new RawPeer(setup.server.url);
    expect(await silent.next()).toStrictEqual({
      type: 'fault',
      code: 'BAD_REQUEST',
      message: UNAUTHORIZED_MESSAGE,
    });
    expect((await silent.closed).code).toBe(CLOSE_CODES.unauthorized);
    const authenticated = new RawPeer(setup.server.url, { authorization: `Bearer ${TOKEN}` });
    expect(await authenticated.next()).toStrictEqual({
      type: 'fault',
      code: 'BAD_REQUEST',
      message: HELLO_FIRST_MESSAGE,
    });
    expect((await authenticated.closed).code).toBe(CLOSE_CODES.protocol);
  });

  test.each([
    [1, 1],
    [2, 2],
    [3, 3],
    [4, 3],
  ])(
    'a hello stating version %i is answered with version %i, the newest both speak',
    async (stated, agreed) => {
      const peer = new RawPeer(setup.server.url, { authorization: `Bearer ${TOKEN}` });
      await peer.opened;
      peer.send({ type: 'hello', protocol: stated });
      expect(await peer.next()).toStrictEqual({ type: 'hello', protocol: agreed, instance: INSTANCE });
      peer.socket.close();
    },
  );

  test('a version older than any the server speaks is refused naming them, and the client says so', async () => {
    const peer = new RawPeer(setup.server.url, { authorization: `Bearer ${TOKEN}` });
    await peer.opened;
    peer.send({ type: 'hello', protocol: 0 });
    expect(await peer.next()).toStrictEqual({
      type: 'fault',
      code: 'BAD_REQUEST',
      message: versionMismatchMessage(1, 3, 0),
    });
    expect(versionMismatchMessage(1, 3, 0)).toBe(
      'The executor speaks protocol versions 1 to 3; the client speaks version 0. Use a client of one of those versions.',
    );
    expect(await peer.closed).toStrictEqual({
      code: CLOSE_CODES.protocol,
      reason: 'protocol version mismatch',
    });
  });

  test('a client meeting an executor of another version rejects connect with what the executor said', async () => {
    const refusing = await handDrivenExecutor((socket) => {
      socket.send(
        stringifyForDispatch({
          type: 'fault',
          code: 'BAD_REQUEST',
          message: versionMismatchMessage(3, 4, 2),
        }),
      );
      socket.close(CLOSE_CODES.protocol, 'protocol version mismatch');
    });
    const refused = await ExecutorClient.connect(new WebSocket(refusing)).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      name: 'CodemodeError',
      code: 'BAD_REQUEST',
      message: versionMismatchMessage(3, 4, 2),
    });
    const newer = await handDrivenExecutor((socket) =>
      socket.send(stringifyForDispatch({ type: 'hello', protocol: 4 })),
    );
    const mismatched = await ExecutorClient.connect(new WebSocket(newer)).catch((error: unknown) => error);
    expect(mismatched).toMatchObject({
      name: 'BadRequestError',
      code: 'BAD_REQUEST',
      message: 'The executor speaks protocol version 4; this client speaks versions 1 to 3.',
    });
  });

  test('a server without a token refuses to listen anywhere but loopback', async () => {
    await expect(createServer({ host: '0.0.0.0', port: 0 })).rejects.toMatchObject({
      name: 'ServerOptionError',
      code: 'BAD_REQUEST',
      message: notLoopbackMessage('0.0.0.0'),
    });
    await expect(createServer({ port: 0, token: 'short' })).rejects.toMatchObject({
      message: 'Server option token must be a string of at least 16 characters.',
    });
  });
});

describe('a refused connection reads nothing more', () => {
  test.each([
    [
      'a hello of another version, then one of this version',
      { authorization: `Bearer ${TOKEN}` },
      [
        { type: 'hello', protocol: 0 },
        { type: 'hello', protocol: 1 },
      ],
      versionMismatchMessage(1, 3, 0),
      { code: CLOSE_CODES.protocol, reason: 'protocol version mismatch' },
    ],
    [
      'a wrong token, then the right one',
      {},
      [
        { type: 'hello', protocol: 1, token: 'not-the-token-at-all' },
        { type: 'hello', protocol: 1, token: TOKEN },
      ],
      HELLO_TOKEN_REFUSED_MESSAGE,
      { code: CLOSE_CODES.unauthorized, reason: UNAUTHORIZED_REASONS.wrong },
    ],
    [
      'a wrong token in the upgrade, then the right one in a hello',
      { authorization: 'Bearer not-the-token-at-all' },
      [{ type: 'hello', protocol: 1, token: TOKEN }],
      TOKEN_REFUSED_MESSAGE,
      { code: CLOSE_CODES.unauthorized, reason: UNAUTHORIZED_REASONS.wrong },
    ],
  ])('after %s, not even an execute', async (_, headers, hellos, fault, close) => {
    const ended = await executionsEnded(setup.server);
    const peer = new RawPeer(setup.server.url, headers);
    await peer.opened;
    for (const hello of hellos) peer.send(hello);
    peer.send({ type: 'execute', id: 'sneaked', request: { code: 'async () => "ran"' } });
    expect(await peer.next()).toStrictEqual({ type: 'fault', code: 'BAD_REQUEST', message: fault });
    expect(await peer.closed).toStrictEqual(close);
    expect(peer.unread()).toStrictEqual([]);
    // With a pool of one, an execution of another connection ends after any the refused one started.
    const other = await open();
    other.send({ type: 'execute', id: 'counted', request: { code: 'async () => 1' } });
    expect(await other.next()).toMatchObject({ type: 'result', id: 'counted' });
    expect(await executionsEnded(setup.server)).toBe(ended + 1);
  });
});

describe('every message kind, by hand', () => {
  test('execute, dispatch and dispatchReply in any order, outbound and outboundReply, result', async () => {
    const peer = await open();
    peer.send({
      type: 'execute',
      id: 'run',
      request: {
        code: `async () => {
          const [a, b] = await Promise.all([math.add(1, 2), math.add(3, 4)]);
          const response = await fetch('https://api.test/');
          return [a, b, await response.text()];
        }`,
        providers: [{ name: 'math' }],
        outbound: 'proxied',
      },
    });
    const first = await peer.next();
    const second = await peer.next();
    expect([first, second]).toStrictEqual([
      { type: 'dispatch', id: 'run', call: 0, provider: 'math', tool: 'add', args: '[1,2]' },
      { type: 'dispatch', id: 'run', call: 1, provider: 'math', tool: 'add', args: '[3,4]' },
    ]);
    // Answered out of order, and one answer for a call nobody waits on, which is dropped.
    peer.send({ type: 'dispatchReply', id: 'run', call: 1, frame: ['returned', '{"result":7}'] });
    peer.send({ type: 'dispatchReply', id: 'run', call: 99, frame: ['returned', '{"result":0}'] });
    peer.send({ type: 'dispatchReply', id: 'run', call: 0, frame: ['returned', '{"result":3}'] });
    expect(await peer.next()).toStrictEqual({
      type: 'outbound',
      id: 'run',
      call: 2,
      request: { method: 'GET', url: 'https://api.test/', headers: [], body: null, redirect: 'follow' },
    });
    peer.send({
      type: 'outboundReply',
      id: 'run',
      call: 2,
      frame: [
        'returned',
        { status: 200, statusText: 'OK', headers: [], body: new TextEncoder().encode('ok') },
      ],
    });
    expect(await peer.next()).toStrictEqual({
      type: 'result',
      id: 'run',
      envelope: { logs: [], result: [3, 7, 'ok'] },
    });
  });

  test('invoke, invokeResult, closeHandles and ack, with retained ids prefixed by the instance', async () => {
    const peer = await open();
    const executionId = await retain(
      peer,
      'async () => ({ fetch: (request) => new Response(request.method + " " + request.url) })',
    );
    expect(executionId).toMatch(new RegExp(`^${INSTANCE}\\.[0-9a-f-]{36}$`));
    const request = { method: 'PUT', url: 'https://h.test/x', headers: [], body: new Uint8Array([104, 105]) };
    peer.send({ type: 'invoke', id: 'i1', executionId, handle: 'fetch', request });
    expect(await peer.next()).toStrictEqual({
      type: 'invokeResult',
      id: 'i1',
      response: {
        status: 200,
        statusText: '',
        headers: [['content-type', 'text/plain;charset=UTF-8']],
        body: new TextEncoder().encode('PUT https://h.test/x'),
      },
    });
    const foreign = `exec-b.${executionId.slice(INSTANCE.length + 1)}`;
    peer.send({ type: 'invoke', id: 'i2', executionId: foreign, handle: 'fetch', request });
    expect(await peer.next()).toStrictEqual({
      type: 'fault',
      id: 'i2',
      code: 'HANDLES_CLOSED',
      message: foreignInstanceMessage(foreign, INSTANCE),
    });
    peer.send({
      type: 'invoke',
      id: 'i3',
      executionId,
      handle: 'fetch',
      request: { ...request, method: 'GET' },
    });
    expect(await peer.next()).toMatchObject({
      type: 'fault',
      id: 'i3',
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/^Invalid invoke message: request .*body/),
    });
    peer.send({ type: 'closeHandles', id: 'c1', executionId });
    expect(await peer.next()).toStrictEqual({ type: 'ack', id: 'c1' });
  });

  test('cancel ends the execution it names; a cancel for none is ignored', async () => {
    const peer = await open();
    peer.send({ type: 'cancel', id: 'nothing' });
    peer.send({
      type: 'execute',
      id: 'slow',
      request: { code: 'async () => wait.long()', providers: [{ name: 'wait' }] },
    });
    expect(await peer.next()).toMatchObject({ type: 'dispatch', id: 'slow', call: 0 });
    peer.send({ type: 'cancel', id: 'slow' });
    expect(await peer.next()).toStrictEqual({
      type: 'result',
      id: 'slow',
      envelope: { logs: [], error: 'Execution was cancelled: its client cancelled it', code: 'CANCELLED' },
    });
  });

  test("a cancel carrying the client's reason ends the execution with it, cut as a repeated reason is", async () => {
    const peer = new RawPeer(setup.server.url, { authorization: `Bearer ${TOKEN}` });
    await peer.opened;
    peer.send({ type: 'hello', protocol: CANCEL_REASON_PROTOCOL_VERSION });
    expect(await peer.next()).toMatchObject({ type: 'hello', protocol: CANCEL_REASON_PROTOCOL_VERSION });
    const long = 'r'.repeat(CANCEL_REASON_LIMIT + 1);
    expect(CANCEL_REASON_LIMIT).toBeGreaterThan(REASON_ECHO_LIMIT);
    for (const [id, reason, error] of [
      ['stopped', 'user pressed stop', 'Execution was cancelled: user pressed stop'],
      // What ExecutorClient cuts is a little past REASON_ECHO_LIMIT, and kept whole.
      [
        'kept',
        'k'.repeat(CANCEL_REASON_LIMIT),
        `Execution was cancelled: ${'k'.repeat(CANCEL_REASON_LIMIT)}`,
      ],
      [
        'long',
        long,
        `Execution was cancelled: ${'r'.repeat(REASON_ECHO_LIMIT)}… (${CANCEL_REASON_LIMIT + 1} characters)`,
      ],
      ['empty', '', 'Execution was cancelled: its client cancelled it'],
    ]) {
      peer.send({
        type: 'execute',
        id,
        request: { code: 'async () => wait.long()', providers: [{ name: 'wait' }] },
      });
      expect(await peer.next()).toMatchObject({ type: 'dispatch', id, call: 0 });
      peer.send({ type: 'cancel', id, reason });
      expect(await peer.next()).toStrictEqual({
        type: 'result',
        id,
        envelope: { logs: [], error, code: 'CANCELLED' },
      });
    }
  });

  test('a client sends its reason only to a server of version 3 or later: one of version 2 refuses the key', async () => {
    const cancels: unknown[] = [];
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await once(server, 'listening');
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
    server.on('connection', (socket) => {
      socket.on('message', (data) => {
        const message = JSON.parse(String(data)) as { type: string; id: string };
        if (message.type === 'hello') socket.send(stringifyForDispatch({ type: 'hello', protocol: 2 }));
        if (message.type === 'execute')
          socket.send(
            stringifyForDispatch({
              type: 'dispatch',
              id: message.id,
              call: 0,
              provider: 'wait',
              tool: 'long',
              args: '[]',
            }),
          );
        if (message.type === 'cancel') {
          cancels.push(message);
          const envelope = {
            logs: [],
            error: cancelledMessage('its client cancelled it'),
            code: 'CANCELLED',
          };
          socket.send(stringifyForDispatch({ type: 'result', id: message.id, envelope }));
        }
      });
    });
    const client = await ExecutorClient.connect(
      new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/`),
    );
    expect(client.protocol).toBe(2);
    const controller = new AbortController();
    const called = Promise.withResolvers<void>();
    const pending = client.execute(
      {
        code: 'async () => wait.long()',
        providers: [
          {
            name: 'wait',
            fns: {
              long: () => {
                called.resolve();
                return new Promise(() => {});
              },
            },
          },
        ],
      },
      { signal: controller.signal },
    );
    await called.promise;
    controller.abort(new Error('user pressed stop'));
    expect((await pending).code).toBe('CANCELLED');
    expect(cancels).toStrictEqual([{ type: 'cancel', id: 'c1' }]);
    client.close();
  });
});

describe('a message the server cannot accept gets a fault, and the connection serves on', () => {
  async function expectStillServing(peer: RawPeer): Promise<void> {
    peer.send({ type: 'execute', id: 'after', request: { code: 'async () => "alive"' } });
    expect(await peer.next()).toStrictEqual({
      type: 'result',
      id: 'after',
      envelope: { logs: [], result: 'alive' },
    });
  }

  test.each([
    [
      'text that is not JSON',
      '{"type":',
      { code: 'BAD_REQUEST', message: expect.stringMatching(/^The message is not codec JSON: /) },
    ],
    [
      'a message failing validation, naming the field',
      { type: 'execute', id: 'bad', request: { code: 1 } },
      {
        id: 'bad',
        code: 'BAD_REQUEST',
        message: 'Invalid execute message: request.code must be a string of source code.',
      },
    ],
    [
      'an unknown type',
      { type: 'shout' },
      {
        code: 'BAD_REQUEST',
        message: expect.stringMatching(/^Unknown message type "shout"; expected one of hello, /),
      },
    ],
    [
      'a message only the executor sends',
      { type: 'ack', id: 'a' },
      { code: 'BAD_REQUEST', message: notFromClientMessage('ack') },
    ],
    [
      'a second hello',
      { type: 'hello', protocol: 1 },
      { code: 'BAD_REQUEST', message: ALREADY_OPEN_MESSAGE },
    ],
  ])('%s', async (_, message, fault) => {
    const peer = await open();
    peer.send(message);
    expect(await peer.next()).toStrictEqual({ type: 'fault', ...fault });
    await expectStillServing(peer);
  });

  // The pool's own messages (src/pool/messages/table.ts) are no part of the protocol: the server
  // knows them no more than any other type it does not know, so it never reads their bodies.
  const unknownType = (type: string) =>
    `Unknown message type "${type}"; expected one of ${MESSAGE_TYPES.join(', ')}.`;

  test.each([
    ['heartbeat', { type: 'heartbeat', id: 'h1' }],
    ['wedged', { type: 'wedged', settle: 'a body no schema reads' }],
    ['handlesClosed', { type: 'handlesClosed', executionId: 'x'.repeat(10 * 1024 * 1024), message: 7 }],
  ] as const)(
    "the pool's %s message is refused as an unknown type, its body unread, as any unknown type is",
    async (type, message) => {
      const peer = await open();
      peer.send(message);
      expect(await peer.next()).toStrictEqual({
        type: 'fault',
        ...('id' in message ? { id: message.id } : {}),
        code: 'BAD_REQUEST',
        message: unknownType(type),
      });
      peer.send({ ...message, type: 'shout' });
      expect(await peer.next()).toStrictEqual({
        type: 'fault',
        ...('id' in message ? { id: message.id } : {}),
        code: 'BAD_REQUEST',
        message: unknownType('shout'),
      });
      await expectStillServing(peer);
    },
  );

  test("the pool's heartbeat naming a running execution ends it, as any unknown type naming it does", async () => {
    const peer = await open();
    for (const type of ['heartbeat', 'shout']) {
      const id = `slow-${type}`;
      peer.send({
        type: 'execute',
        id,
        request: { code: 'async () => wait.long()', providers: [{ name: 'wait' }] },
      });
      expect(await peer.next()).toMatchObject({ type: 'dispatch', id, call: 0 });
      peer.send({ type, id });
      expect(await peer.next()).toStrictEqual({
        type: 'fault',
        id,
        code: 'BAD_REQUEST',
        message: unknownType(type),
      });
      expect(await peer.next()).toStrictEqual({
        type: 'result',
        id,
        envelope: { logs: [], error: cancelledMessage(unknownType(type)), code: 'CANCELLED' },
      });
    }
    await expectStillServing(peer);
  });

  test('an invoke or closeHandles naming an executionId of 10 MB, refused naming the field, never echoing it', async () => {
    const peer = await open();
    const request = { method: 'GET', url: 'https://h.test/', headers: [], body: null };
    // Prefixed by this server's instance, so only the id's length is wrong.
    const executionId = `${INSTANCE}.${'x'.repeat(10 * 1024 * 1024)}`;
    const rule = `executionId must be at most ${ID_LIMIT} characters.`;
    peer.send({ type: 'invoke', id: 'i1', executionId, handle: 'fetch', request });
    expect(await peer.next()).toStrictEqual({
      type: 'fault',
      id: 'i1',
      code: 'BAD_REQUEST',
      message: `Invalid invoke message: ${rule}`,
    });
    peer.send({ type: 'closeHandles', id: 'c1', executionId });
    expect(await peer.next()).toStrictEqual({
      type: 'fault',
      id: 'c1',
      code: 'BAD_REQUEST',
      message: `Invalid closeHandles message: ${rule}`,
    });
    await expectStillServing(peer);
  });

  test('an invoke naming a handle, URL, method or header name of megabytes, refused repeating only its start', async () => {
    const peer = await open();
    const executionId = await retain(peer, 'async () => ({ fetch: () => new Response("kept") })');
    const request = { method: 'GET', url: 'https://h.test/', headers: [], body: null };
    const handle = 'h'.repeat(10 * 1024 * 1024);
    peer.send({ type: 'invoke', id: 'i1', executionId, handle, request });
    const refused = await peer.next();
    expect(refused).toStrictEqual({
      type: 'fault',
      id: 'i1',
      code: 'HANDLE_NOT_FOUND',
      message: handleNotFoundMessage(handle, GRANTED_HANDLES),
    });
    // Before, each fault held the whole name: 10 MB for the handle and the URL, 3 MB for the others.
    expect((refused.message as string).length).toBeLessThan(200);
    /** The Request constructor's own words for what the client sent, as the server reads them. */
    const reasonOf = (make: () => Request) => {
      try {
        make();
      } catch (error) {
        return errorText(error);
      }
      throw new Error('the Request was made');
    };
    const url = 'u'.repeat(10 * 1024 * 1024);
    const method = 'M E'.repeat(1024 * 1024);
    const header = 'b a'.repeat(1024 * 1024);
    const cases = [
      { request: { ...request, url }, reason: reasonOf(() => new Request(url)) },
      { request: { ...request, method }, reason: reasonOf(() => new Request(request.url, { method })) },
      {
        request: { ...request, headers: [[header, 'v']] },
        reason: reasonOf(() => new Request(request.url, { headers: [[header, 'v']] })),
      },
    ];
    for (const [index, { request: sent, reason }] of cases.entries()) {
      peer.send({ type: 'invoke', id: `r${index}`, executionId, handle: 'fetch', request: sent });
      const fault = await peer.next();
      expect(fault).toStrictEqual({
        type: 'fault',
        id: `r${index}`,
        code: 'BAD_REQUEST',
        message: invokeRequestMessage(reason),
      });
      expect((fault.message as string).length).toBeLessThan(200);
    }
    // The execution those refusals named still serves.
    peer.send({ type: 'invoke', id: 'ok', executionId, handle: 'fetch', request });
    expect(await peer.next()).toMatchObject({ type: 'invokeResult', id: 'ok', response: { status: 200 } });
    await expectStillServing(peer);
  });

  test('a binary frame', async () => {
    const peer = await open();
    peer.socket.send(new Uint8Array([1, 2, 3]));
    expect(await peer.next()).toStrictEqual({
      type: 'fault',
      code: 'BAD_REQUEST',
      message: BINARY_FRAME_MESSAGE,
    });
    await expectStillServing(peer);
  });

  test('an execute whose id is already in flight', async () => {
    const peer = await open();
    peer.send({
      type: 'execute',
      id: 'twice',
      request: { code: 'async () => wait.long()', providers: [{ name: 'wait' }] },
    });
    expect(await peer.next()).toMatchObject({ type: 'dispatch', id: 'twice' });
    peer.send({ type: 'execute', id: 'twice', request: { code: 'async () => 2' } });
    expect(await peer.next()).toStrictEqual({
      type: 'fault',
      id: 'twice',
      code: 'BAD_REQUEST',
      message: duplicateIdMessage('twice'),
    });
    peer.send({ type: 'dispatchReply', id: 'twice', call: 0, frame: ['thrown', 'stopped'] });
    expect(await peer.next()).toStrictEqual({
      type: 'result',
      id: 'twice',
      envelope: { logs: [], error: 'stopped', errorKind: 'tool-failed', errorName: 'Error' },
    });
  });

  test('a message past PAYLOAD_LIMIT, measured in bytes', async () => {
    const peer = await open();
    // Two bytes of UTF-8 per character: within the limit in characters, past it in bytes.
    const text = JSON.stringify({
      type: 'execute',
      id: 'big',
      request: { code: 'é'.repeat(PAYLOAD_LIMIT / 2) },
    });
    expect(text.length).toBeLessThan(PAYLOAD_LIMIT);
    peer.send(text);
    expect(await peer.next()).toStrictEqual({
      type: 'fault',
      code: 'PAYLOAD_TOO_LARGE',
      message: `The message is ${Buffer.byteLength(text)} bytes, past the ${PAYLOAD_LIMIT}-byte payload limit.`,
    });
    await expectStillServing(peer);
  });

  test('an invoke whose answer would pass PAYLOAD_LIMIT gets a PAYLOAD_TOO_LARGE fault', async () => {
    const peer = await open();
    const id = 'i'.repeat(128);
    const empty = { status: 200, statusText: '', headers: [], body: new Uint8Array(0) };
    const bare = encodeMessage({ type: 'invokeResult', id, response: empty }).length;
    // Base64 takes 4 characters for 3 bytes: the smallest body whose answer passes the limit. The
    // child's own answer, under a short id, stays within it.
    const size = 3 * (Math.floor((PAYLOAD_LIMIT - bare) / 4) + 1);
    const executionId = await retain(
      peer,
      `async () => ({ fetch: () => new Response(new Uint8Array(${size})) })`,
      'large',
    );
    const request = { method: 'GET', url: 'https://h.test/', headers: [], body: null };
    peer.send({ type: 'invoke', id, executionId, handle: 'fetch', request });
    expect(await peer.next()).toStrictEqual({
      type: 'fault',
      id,
      code: 'PAYLOAD_TOO_LARGE',
      message: `The invokeResult message is ${bare + (size / 3) * 4} bytes, past the ${PAYLOAD_LIMIT}-byte payload limit.`,
    });
    peer.send({ type: 'closeHandles', id: 'closed', executionId });
    expect(await peer.next()).toStrictEqual({ type: 'ack', id: 'closed' });
    await expectStillServing(peer);
  });

  test('a frame past the largest the server reads closes the connection with 1009', async () => {
    const peer = await open();
    peer.send('x'.repeat(MAX_FRAME + 1));
    expect((await peer.closed).code).toBe(1009);
  });
});

describe('plain HTTP', () => {
  test('GET /healthz answers the engine report and the pool; GET /metrics the Prometheus text', async () => {
    // An execution with a tool call of its own, so the counters below hold whatever ran before.
    const peer = await open();
    peer.send({
      type: 'execute',
      id: 'counted',
      request: { code: 'async () => tally.add(1, 2)', providers: [{ name: 'tally' }] },
    });
    expect(await peer.next()).toMatchObject({ type: 'dispatch', id: 'counted', call: 0 });
    peer.send({ type: 'dispatchReply', id: 'counted', call: 0, frame: ['returned', '{"result":3}'] });
    expect(await peer.next()).toStrictEqual({
      type: 'result',
      id: 'counted',
      envelope: { logs: [], result: 3 },
    });
    await waitUntil(
      () => setup.server.stats().pool.children.every((child) => child.state === 'idle'),
      'the child reports itself idle',
    );
    const base = setup.server.url.replace('ws:', 'http:');
    const health = await fetch(new URL('/healthz', base));
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({
      status: 'ok',
      protocol: PROTOCOL_VERSION,
      instance: INSTANCE,
      engine: { isolatedVm: expect.any(String), behaviours: expect.any(Object) },
      pool: { queued: 0, children: [expect.objectContaining({ pid: expect.any(Number) })] },
    });
    const metrics = await fetch(new URL('/metrics', base));
    expect(metrics.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await metrics.text();
    expect(text).toContain('# TYPE codemode_executions_total counter\n');
    expect(text).toMatch(/^codemode_executions_total\{outcome="ok"\} [1-9]\d*$/m);
    expect(text).toMatch(/^codemode_tool_calls_total\{outcome="returned"\} [1-9]\d*$/m);
    expect(text).toMatch(/^codemode_execution_duration_seconds_count [1-9]\d*$/m);
    expect(text).toMatch(/^codemode_pool_children\{state="idle"\} 1$/m);
    expect(text).toContain('codemode_pool_queue_depth 0\n');
    // Every outcome is listed from the start, so a rate over one needs no first occurrence.
    expect(text).toContain('codemode_executions_total{outcome="MEMORY_LIMIT"} 0\n');
    expect(text).toMatch(/^codemode_pool_resident_memory_bytes [1-9]\d*$/m);
    // This process's CPU and memory, under prom-client's standard names.
    expect(text).toMatch(/^process_cpu_seconds_total \d/m);
    expect(text).toMatch(/^process_resident_memory_bytes [1-9]\d*$/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes [1-9]\d*$/m);
    expect((await fetch(new URL('/elsewhere', base))).status).toBe(404);
  });

  test('a route is the path as the request names it: dot segments and their encodings reach no route', async () => {
    // A balancer matches the path as sent (HAProxy's `path /metrics`, deploy/haproxy/haproxy.cfg):
    // had the server resolved `/./metrics` to /metrics, the balancer's refusal would be passed by.
    const get = (path: string) => getPathAsSent(setup.server.url, path);
    for (const path of ['/./metrics', '/x/../metrics', '/%2e/metrics', '/x/%2E%2E/healthz', '/./healthz']) {
      expect({ path, ...(await get(path)) }).toStrictEqual({
        path,
        status: 404,
        body: ROUTE_NOT_FOUND_MESSAGE,
      });
    }
    expect((await get('/metrics?instance=x')).status).toBe(200);
    expect((await get('/healthz?instance=..')).status).toBe(200);
  });
});

/**
 * A hand-driven executor for what a server of this version never says: answers a client's first
 * message with `answer`. Closed after the file.
 */
async function handDrivenExecutor(answer: (socket: PeerSocket) => void): Promise<string> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(server, 'listening');
  server.on('connection', (socket) => socket.once('message', () => answer(socket)));
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `ws://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}
