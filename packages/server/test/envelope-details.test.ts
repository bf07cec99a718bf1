/**
 * The envelope's version 3 fields through the server (issue 26 items 4, 5 and 9): a client of
 * version 3 gets which tool call failed and where, a thrown object's JSON, the hint and the notes;
 * one that agreed on version 2 (or 1) gets the envelope it knows, without them, since its own
 * schema is strict. And consoleFormat, which only a server of version 3 takes.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import {
  DETAILS_FIELDS,
  NOT_A_FUNCTION_HINT,
  ResultEnvelopeSchema,
  STATEMENTS_HINT,
  stringifyForDispatch,
} from '@supolka/codemode-protocol';
import { consoleFormatVersionMessage, ExecutorClient } from '@supolka/codemode-protocol/client';
import { afterAll, describe, expect, test } from 'vitest';
import { WebSocketServer } from 'ws';
import { LOST_VALUE_TEXTS } from '../../executor/src/sandbox/lost-values.ts';
import { connect, RawPeer, TOKEN, useServer } from './helpers.ts';

const setup = useServer();

/** A raw peer that said hello at `version`, answering tool calls with a failure. */
async function peerAt(version: number): Promise<RawPeer> {
  const peer = new RawPeer(setup.server.url, { authorization: `Bearer ${TOKEN}` });
  await peer.opened;
  peer.send({ type: 'hello', protocol: version });
  expect(await peer.next()).toMatchObject({ type: 'hello', protocol: version });
  return peer;
}

/** Runs `code` from `peer`, failing every tool call it makes, and answers the result's envelope. */
async function run(peer: RawPeer, id: string, code: string): Promise<Record<string, unknown>> {
  peer.send({
    type: 'execute',
    id,
    request: { code, providers: [{ name: 'github', positionalArgs: false }] },
  });
  for (;;) {
    const message = await peer.next();
    if (message.type === 'dispatch') {
      peer.send({
        type: 'dispatchReply',
        id,
        call: message.call,
        frame: ['returned', '{"error":"not found"}'],
      });
      continue;
    }
    expect(message.type).toBe('result');
    return message.envelope as Record<string, unknown>;
  }
}

const FAILED_CALL = `async () => { await github.search({ since: undefined }); return Promise.all([github.getIssue({ n: 1 })]) }`;

describe('a client of version 3 gets every field', () => {
  test('through ExecutorClient: the failed call, its position, the notes', async () => {
    const client = await connect(setup.server);
    expect(client.protocol).toBe(3);
    const envelope = await client.execute({
      code: FAILED_CALL,
      providers: [
        {
          name: 'github',
          positionalArgs: false,
          fns: {
            search: () => [],
            getIssue: () => {
              throw new Error('not found');
            },
          },
        },
      ],
    });
    expect(envelope).toStrictEqual({
      result: undefined,
      error: 'not found',
      logs: [],
      errorKind: 'tool-failed',
      errorName: 'Error',
      errorProvider: 'github',
      errorTool: 'getIssue',
      errorAt: 'executor.js:1:85',
      notes: [`github.search args.since: ${LOST_VALUE_TEXTS.undefinedDropped}`],
    });
    const hinted = await client.execute({ code: 'const x = 1; return x' });
    expect(hinted.hint).toBe(STATEMENTS_HINT);
    const thrown = await client.execute({ code: 'async () => { throw { status: 404 } }' });
    expect(thrown.errorJson).toBe('{"status":404}');
  });

  test('a raw peer of version 3 receives them as the schema has them', async () => {
    const peer = await peerAt(3);
    const envelope = await run(peer, 'v3', FAILED_CALL);
    expect(envelope).toMatchObject({
      errorProvider: 'github',
      errorTool: 'search',
      errorAt: 'executor.js:1:28',
    });
    expect(ResultEnvelopeSchema.parse(envelope)).toStrictEqual(envelope);
    expect((await run(peer, 'v3-hint', '1 + 1')).hint).toBe(NOT_A_FUNCTION_HINT);
  });
});

describe('a client of an older version never receives a field it does not know', () => {
  for (const version of [2, 1]) {
    test(`version ${version}: the same runs, without version 3's fields`, async () => {
      const peer = await peerAt(version);
      const failed = await run(peer, `failed-${version}`, FAILED_CALL);
      expect(failed).toStrictEqual({
        error: 'not found',
        logs: [],
        errorKind: 'tool-failed',
        errorName: 'Error',
      });
      for (const code of [
        '1 + 1',
        'const x = 1; return x',
        'async () => { throw { status: 404 } }',
        'async () => ({ m: new Map() })',
      ]) {
        const envelope = await run(peer, `${code.length}-${version}`, code);
        for (const key of DETAILS_FIELDS) expect(envelope).not.toHaveProperty(key);
      }
    });
  }
});

describe('consoleFormat, which a server of version 2 would refuse as an unknown field', () => {
  test('ExecutorClient refuses it on a connection that agreed on version 2, naming the versions', async () => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await once(server, 'listening');
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const sent: string[] = [];
    server.on('connection', (socket) => {
      socket.on('message', (data) => {
        const message = JSON.parse(String(data)) as { type: string };
        sent.push(message.type);
        if (message.type === 'hello') socket.send(stringifyForDispatch({ type: 'hello', protocol: 2 }));
      });
    });
    const client = await ExecutorClient.connect(
      new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/`),
    );
    afterAll(() => client.close());
    expect(await client.execute({ code: 'async () => 1', consoleFormat: 'inspect' })).toStrictEqual({
      result: undefined,
      error: consoleFormatVersionMessage(2),
      code: 'BAD_REQUEST',
      logs: [],
    });
    expect(sent).toStrictEqual(['hello']);
  });
});
