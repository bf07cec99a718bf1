/**
 * The server's structured log, read as an operator reads it: one JSON object a line through a real
 * pino logger, an event for each connection, authentication failure, execution, tool call (by its
 * provider and tool), invoke, closeHandles and drop, and never a program's text, a token, or a
 * tool's arguments or results. createServer from code is silent unless asked; `codemode-executor
 * serve` logs info to stderr (serve.test.ts).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { ECHO_LIMIT, echo } from '@supolka/codemode-protocol';
import { ExecutorClient } from '@supolka/codemode-protocol/client';
import { pino } from 'pino';
import { afterAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { OPENING_BYTE_LIMIT } from '../src/opening.ts';
import { connect, openSocket, RawPeer, TOKEN, useServer, waitUntil } from './helpers.ts';

/** What the program, its tools and its caller hold that no log line may repeat. */
const PROGRAM_MARK = 'program-text-never-logged';
const ARGUMENT_MARK = 'tool-argument-never-logged';
const RESULT_MARK = 'tool-result-never-logged';
const WRONG_TOKEN = 'a-wrong-token-never-logged';

const lines: string[] = [];
const sink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    done();
  },
});
const setup = useServer({
  allowedOrigins: ['https://app.test'],
  logger: pino({ level: 'debug' }, sink),
});

const events = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
const named = (event: string) => events().filter((line) => line.event === event);

describe('a server given a logger', () => {
  test('logs a connection, its execution and its close, each line one JSON object', async () => {
    const client = await connect(setup.server);
    const envelope = await client.execute({
      code: `async () => { const answer = await kv.get('${ARGUMENT_MARK}'); return answer + '${PROGRAM_MARK}'.length }`,
      providers: [{ name: 'kv', fns: { get: () => RESULT_MARK } }],
    });
    expect(envelope.result).toBe(`${RESULT_MARK}${PROGRAM_MARK.length}`);
    const failed = await client.execute({ code: 'async () => { throw new Error("no") }' });
    expect(failed.error).toBe('no');
    client.close();
    await waitUntil(() => named('connection closed').length > 0, 'the close is logged');
    const [opened] = named('connection opened');
    expect(opened).toMatchObject({ level: 30, authenticated: true, connection: expect.any(Number) });
    const connection = opened?.connection;
    expect(named('hello accepted')).toStrictEqual([expect.objectContaining({ connection, level: 20 })]);
    expect(named('execution')).toStrictEqual([
      expect.objectContaining({ connection, id: 'c1', outcome: 'ok', durationMs: expect.any(Number) }),
      expect.objectContaining({ connection, id: 'c2', outcome: 'error' }),
    ]);
    expect(named('connection closed')).toStrictEqual([
      expect.objectContaining({ connection, code: 1000, durationMs: expect.any(Number) }),
    ]);
  });

  test('logs each authentication failure with its cause, and each refused upgrade', async () => {
    const before = lines.length;
    const atUpgrade = openSocket(setup.server.url, { authorization: `Bearer ${WRONG_TOKEN}` });
    await ExecutorClient.connect(atUpgrade).catch(() => {});
    await ExecutorClient.connect(openSocket(setup.server.url), { token: WRONG_TOKEN }).catch(() => {});
    const anonymous = new RawPeer(setup.server.url);
    await anonymous.opened;
    anonymous.send({ type: 'hello', protocol: 1 });
    await anonymous.closed;
    const evil = openSocket(setup.server.url, { origin: 'https://evil.test' });
    await ExecutorClient.connect(evil, { token: TOKEN }).catch(() => {});
    await waitUntil(() => named('upgrade refused').length > 0, 'the refusal is logged');
    const failures = events()
      .slice(before)
      .filter((line) => line.event === 'authentication failed');
    expect(failures.map((line) => [line.level, line.cause])).toStrictEqual([
      [40, 'wrong token in the upgrade'],
      [40, 'wrong token in the hello'],
      [40, 'no token'],
    ]);
    expect(named('upgrade refused')).toStrictEqual([
      expect.objectContaining({ level: 40, cause: 'origin', status: 403, remote: expect.any(String) }),
    ]);
  });

  test('logs a drop with its cause', async () => {
    const socket = new WebSocket(setup.server.url);
    afterAll(() => socket.terminate());
    await once(socket, 'open');
    socket.send('x'.repeat(OPENING_BYTE_LIMIT + 1));
    await once(socket, 'close');
    await waitUntil(() => named('connection dropped').length > 0, 'the drop is logged');
    expect(named('connection dropped')).toStrictEqual([
      expect.objectContaining({ level: 40, cause: 'opening bytes' }),
    ]);
  });

  test('logs each tool call by provider and tool, and each invoke and closeHandles, with how each ended', async () => {
    const before = lines.length;
    const client = await connect(setup.server);
    const longName = 't'.repeat(ECHO_LIMIT + 36);
    const envelope = await client.execute({
      code: `async () => {
        await kv.get('${ARGUMENT_MARK}');
        await kv.fail('${ARGUMENT_MARK}').catch(() => {});
        await kv['${longName}']().catch(() => {});
        return { fetch: () => new Response('${RESULT_MARK}', { status: 202 }) };
      }`,
      providers: [
        {
          name: 'kv',
          fns: {
            get: () => RESULT_MARK,
            fail: () => {
              throw new Error(RESULT_MARK);
            },
          },
        },
      ],
      retainHandles: true,
    });
    const executionId = envelope.executionId as string;
    expect(executionId).toEqual(expect.any(String));
    expect((await client.invoke(executionId, new Request('https://h.test/'))).status).toBe(202);
    await expect(
      client.invoke(executionId, new Request('https://h.test/'), 'scheduled'),
    ).rejects.toMatchObject({ code: 'HANDLE_NOT_FOUND' });
    await client.closeHandles(executionId);
    await expect(client.closeHandles(executionId)).rejects.toMatchObject({ code: 'HANDLES_CLOSED' });
    client.close();
    await waitUntil(() => named('close handles').length === 2, 'both closes are logged');
    const logged = (event: string) =>
      events()
        .slice(before)
        .filter((line) => line.event === event);
    const connection = logged('connection opened')[0]?.connection;
    const durationMs = expect.any(Number);
    expect(logged('tool call')).toStrictEqual([
      expect.objectContaining({
        level: 20,
        connection,
        id: 'c1',
        call: 0,
        provider: 'kv',
        tool: 'get',
        outcome: 'returned',
        durationMs,
      }),
      expect.objectContaining({
        level: 20,
        connection,
        id: 'c1',
        call: 1,
        provider: 'kv',
        tool: 'fail',
        outcome: 'thrown',
        durationMs,
      }),
      // A name the program made up is cut, and a tool that does not exist is a call that failed.
      expect.objectContaining({
        level: 20,
        connection,
        id: 'c1',
        call: 2,
        provider: 'kv',
        tool: echo(longName),
        outcome: 'thrown',
        durationMs,
      }),
    ]);
    expect(logged('invocation')).toStrictEqual([
      expect.objectContaining({
        level: 30,
        connection,
        id: 'c2',
        executionId,
        handle: 'fetch',
        outcome: 'ok',
        status: 202,
        durationMs,
      }),
      expect.objectContaining({
        level: 30,
        connection,
        id: 'c3',
        executionId,
        handle: 'scheduled',
        outcome: 'HANDLE_NOT_FOUND',
        durationMs,
      }),
    ]);
    expect(logged('invocation')[1]).not.toHaveProperty('status');
    expect(logged('close handles')).toStrictEqual([
      expect.objectContaining({ level: 30, connection, id: 'c4', executionId, outcome: 'ok', durationMs }),
      expect.objectContaining({
        level: 30,
        connection,
        id: 'c5',
        executionId,
        outcome: 'HANDLES_CLOSED',
        durationMs,
      }),
    ]);
  });

  test('no line holds a program text, a token, a tool argument or a tool result', () => {
    expect(lines.length).toBeGreaterThan(10);
    for (const mark of [PROGRAM_MARK, ARGUMENT_MARK, RESULT_MARK, TOKEN, WRONG_TOKEN]) {
      expect(lines.filter((line) => line.includes(mark))).toStrictEqual([]);
    }
  });
});

/** The fixture server in a process of its own, its output piped, for what it writes unasked. */
async function serverProcess(
  options: object,
): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = fork(new URL('./fixtures/budget-server.ts', import.meta.url), [JSON.stringify(options)], {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  const [message] = (await once(child, 'message')) as [{ url: string }];
  return { child, url: message.url, output: () => output };
}

async function oneConnection(url: string): Promise<void> {
  const client = await ExecutorClient.connect(openSocket(url, { authorization: `Bearer ${TOKEN}` }));
  await client.execute({ code: 'async () => 1' });
  client.close();
  await ExecutorClient.connect(openSocket(url, { authorization: `Bearer ${WRONG_TOKEN}` })).catch(() => {});
}

async function stop(child: ChildProcess): Promise<void> {
  child.send('close');
  await once(child, 'exit');
}

describe('createServer from code', () => {
  test('writes nothing without a logger or a level', async () => {
    const { child, url, output } = await serverProcess({ token: TOKEN, executor: { poolSize: 1 } });
    await oneConnection(url);
    await stop(child);
    expect(output()).toBe('');
  }, 60_000);

  test('with a level alone writes JSON lines to stderr, from that level up', async () => {
    const { child, url, output } = await serverProcess({
      token: TOKEN,
      logLevel: 'warn',
      executor: { poolSize: 1 },
    });
    await oneConnection(url);
    await stop(child);
    const logged = output()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(logged).toStrictEqual([
      expect.objectContaining({
        level: 'warn',
        name: 'codemode-executor',
        event: 'authentication failed',
        cause: 'wrong token in the upgrade',
      }),
    ]);
  }, 60_000);
});
