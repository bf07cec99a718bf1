/**
 * How connections and the server end: a client that disconnects mid-execution leaves nothing
 * behind in the pool, an execution in flight when its socket drops (closed, or cut by the network
 * with no closing handshake) resolves with a clear error, and shutdown (the serve command on
 * SIGTERM, or close()) stops taking work, answers its health check 503 while it drains, lets what
 * runs finish up to its bound, and cancels the rest.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readToken } from '@supolka/codemode-executor/serving';
import { CLOSE_CODES, ConnectionClosedError, ExecutorClient } from '@supolka/codemode-protocol/client';
import { describe, expect, onTestFinished, test } from 'vitest';
import { createServer } from '../src/server.ts';
import { DRAINING_REFUSED_MESSAGE, SHUTTING_DOWN_MESSAGE } from '../src/texts.ts';
import {
  connect,
  deferred,
  executionsEnded,
  expectPoolClean,
  openSocket,
  Relay,
  TOKEN,
  upgrade,
  useServer,
  waitUntil,
} from './helpers.ts';

const setup = useServer();
const main = new URL('../../executor/src/cli/main.ts', import.meta.url).pathname;

const LOST = {
  result: undefined,
  error:
    'The worker running this execution was lost: the connection to the executor closed (code 1000: closed by the client).',
  code: 'WORKER_LOST',
  logs: [],
};

describe('a client that disconnects', () => {
  test('mid-execution has its executions ended, its isolates disposed and its handles closed', async () => {
    const client = await connect(setup.server);
    const retained = await client.execute({
      code: 'async () => ({ fetch: () => new Response("kept") })',
      retainHandles: true,
    });
    expect(retained.executionId).toEqual(expect.any(String));
    await waitUntil(
      () => setup.server.stats().pool.children[0]?.retained === 1,
      'the child reports the retained execution',
    );
    const called = deferred();
    const running = client.execute({
      code: 'async () => { await never.answer(); return "finished" }',
      providers: [
        { name: 'never', fns: { answer: () => called.resolve().then(() => new Promise(() => {})) } },
      ],
    });
    await called.promise;
    expect(setup.server.stats()).toMatchObject({ inFlight: 1, connections: 1 });
    client.close();
    // The client's side settles at once, and never hangs on a socket that is gone.
    expect(await running).toStrictEqual(LOST);
    await expect(
      client.invoke(retained.executionId as string, new Request('https://h.test/')),
    ).rejects.toMatchObject({
      name: 'ConnectionClosedError',
      code: 'CONNECTION_CLOSED',
      message: 'The connection to the executor closed (code 1000: closed by the client).',
    });
    expect(await client.execute({ code: 'async () => 1' })).toStrictEqual(LOST);
    await waitUntil(() => setup.server.stats().connections === 0, 'the server drops the connection');
    await expectPoolClean(setup.server);
    // The retained execution went with its connection: another client cannot reach it.
    const other = await connect(setup.server);
    await expect(
      other.invoke(retained.executionId as string, new Request('https://h.test/')),
    ).rejects.toMatchObject({
      code: 'HANDLES_CLOSED',
    });
  });
});

describe('a socket that closes under its client', () => {
  test('settles an execution sent while it closes with that close, whose code the client keeps', async () => {
    const endedBefore = await executionsEnded(setup.server);
    const { connections } = setup.server.stats();
    const socket = openSocket(setup.server.url, { authorization: `Bearer ${TOKEN}` });
    const client = await ExecutorClient.connect(socket);
    // Closed by its owner behind the client's back: the socket is closing, the client not told yet.
    socket.close(4000, 'closed under the client');
    expect(await client.execute({ code: 'async () => 1' })).toStrictEqual({
      result: undefined,
      error:
        'The worker running this execution was lost: the connection to the executor closed (code 4000: closed under the client).',
      code: 'WORKER_LOST',
      logs: [],
    });
    expect(client.closedWith).toStrictEqual({ code: 4000, reason: 'closed under the client' });
    await waitUntil(
      () => setup.server.stats().connections === connections,
      'the server drops the connection',
    );
    // It was never sent: the server ran nothing.
    expect(await executionsEnded(setup.server)).toBe(endedBefore);
  });

  test('rejects invoke and closeHandles sent while it closes with that close, not with 1006', async () => {
    const socket = openSocket(setup.server.url, { authorization: `Bearer ${TOKEN}` });
    const client = await ExecutorClient.connect(socket);
    socket.close(4000, 'closed under the client');
    const closed = {
      name: 'ConnectionClosedError',
      message: new ConnectionClosedError(4000, 'closed under the client').message,
      closeCode: 4000,
    };
    await expect(client.invoke('e1', new Request('https://example.test/'))).rejects.toMatchObject(closed);
    await expect(client.closeHandles('e1')).rejects.toMatchObject(closed);
  });
});

describe('a connection the network cuts', () => {
  test('settles what the client has in flight at once, and the server ends its work too', async () => {
    const connections = setup.server.stats().connections;
    const relay = await Relay.start(setup.server.url);
    const client = await ExecutorClient.connect(openSocket(relay.url, { authorization: `Bearer ${TOKEN}` }));
    const retained = await client.execute({
      code: 'async () => ({ fetch: () => new Promise((resolve) => setTimeout(() => resolve(new Response("late")), 60_000)) })',
      retainHandles: true,
    });
    const invoked = client.invoke(retained.executionId as string, new Request('https://h.test/'));
    const called = deferred();
    const running = client.execute({
      code: 'async () => { await never.answer(); return "finished" }',
      providers: [
        { name: 'never', fns: { answer: () => called.resolve().then(() => new Promise(() => {})) } },
      ],
    });
    await called.promise;
    relay.cut();
    // No closing handshake reached either end: the client learns of it as a close with 1006.
    expect(await running).toStrictEqual({
      result: undefined,
      error: 'The worker running this execution was lost: the connection to the executor closed (code 1006).',
      code: 'WORKER_LOST',
      logs: [],
    });
    await expect(invoked).rejects.toMatchObject({
      name: 'ConnectionClosedError',
      message: 'The connection to the executor closed (code 1006).',
    });
    await waitUntil(
      () => setup.server.stats().connections === connections,
      'the server drops the connection',
    );
    await expectPoolClean(setup.server);
  });
});

describe('shutdown', () => {
  test('close() cancels what is still running after the drain bound and closes connections with 1001', async () => {
    const server = await createServer({
      port: 0,
      token: TOKEN,
      drainTimeout: 100,
      executor: { poolSize: 1 },
    });
    const client = await ExecutorClient.connect(openSocket(server.url), { token: TOKEN });
    const called = deferred();
    const running = client.execute({
      code: 'async () => never.answer()',
      providers: [
        { name: 'never', fns: { answer: () => called.resolve().then(() => new Promise(() => {})) } },
      ],
    });
    await called.promise;
    await server.close();
    expect(await running).toStrictEqual({
      result: undefined,
      error: 'Execution was cancelled: the server shut down',
      code: 'CANCELLED',
      logs: [],
    });
    await waitUntil(() => client.closed, 'the client sees the close');
    expect(client.closedWith).toStrictEqual({ code: CLOSE_CODES.goingAway, reason: 'server shutting down' });
    expect(await client.execute({ code: 'async () => 1' })).toMatchObject({
      code: 'WORKER_LOST',
      error: `The worker running this execution was lost: the connection to the executor closed (code ${CLOSE_CODES.goingAway}: server shutting down).`,
    });
  });

  test('codemode-executor serve on SIGTERM refuses new work, answers /healthz 503 while it drains, lets the execution in flight finish, and exits 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'codemode-serve-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`);
    const child = spawn(
      process.execPath,
      [main, 'serve', '--port', '0', '--pool-size', '1', '--token-file', tokenFile],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, CODEMODE_EXECUTOR_TOKEN: undefined },
      },
    );
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    await waitUntil(() => stdout.includes('serving on'), 'the server listens', 20_000);
    const url = /serving on (ws:\S+)/.exec(stdout)?.[1] as string;
    const client = await ExecutorClient.connect(openSocket(url), { token: TOKEN });
    const called = deferred();
    const release = deferred<string>();
    const running = client.execute({
      code: 'async () => gate.wait()',
      providers: [{ name: 'gate', fns: { wait: () => called.resolve().then(() => release.promise) } }],
    });
    await called.promise;
    child.kill('SIGTERM');
    await waitUntil(() => stdout.includes('SIGTERM, shutting down'), 'the server starts shutting down');
    expect(await client.execute({ code: 'async () => 1' })).toStrictEqual({
      result: undefined,
      error: SHUTTING_DOWN_MESSAGE,
      code: 'OVERLOADED',
      logs: [],
    });
    // A load balancer's health check takes the draining server out of rotation by its answer,
    // and a new upgrade is refused with a status a balancer can retry elsewhere.
    const health = await fetch(new URL('/healthz', url.replace('ws:', 'http:')));
    expect(health.status).toBe(503);
    expect(((await health.json()) as { status: string }).status).toBe('draining');
    expect(await upgrade(url, { authorization: `Bearer ${TOKEN}` })).toStrictEqual({
      status: 503,
      body: `${DRAINING_REFUSED_MESSAGE}\n`,
    });
    release.resolve('finished during the drain');
    expect(await running).toStrictEqual({ result: 'finished during the drain', logs: [] });
    expect(await exited).toBe(0);
    expect(stdout).toBe(
      `codemode-executor serving on ${url}\ncodemode-executor: SIGTERM, shutting down\ncodemode-executor: stopped\n`,
    );
    expect(client.closed).toBe(true);
  });
});

describe('the serve command line', () => {
  function serve(args: string[], env: Record<string, string | undefined> = {}) {
    return new Promise<{ status: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [main, 'serve', ...args], {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, CODEMODE_EXECUTOR_TOKEN: undefined, ...env },
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
      });
      child.on('exit', (status) => resolve({ status, stderr }));
    });
  }

  test('a bound below the executor default is refused by name', async () => {
    const refused = await serve(['--max-timeout', '1000']);
    // Named by the flag the operator wrote, not by createServer's option (serve.test.ts).
    expect(refused).toStrictEqual({
      status: 2,
      stderr:
        "codemode-executor serve: --max-timeout must be at least the executor's timeout, 60000 ms; got 1000.\n",
    });
  });

  test('refuses a public host without a token, a token file it cannot read, and a stray argument', async () => {
    expect(await serve(['--host', '0.0.0.0'])).toStrictEqual({
      status: 2,
      stderr:
        'codemode-executor serve: Refusing to listen on 0.0.0.0 without a token: only a loopback address (127.0.0.1, ::1, localhost) may be served unauthenticated. Set CODEMODE_EXECUTOR_TOKEN or --token-file.\n',
    });
    expect(await serve(['--token-file', '/nonexistent/token'])).toStrictEqual({
      status: 2,
      stderr: 'codemode-executor serve: Cannot read the token file /nonexistent/token: ENOENT.\n',
    });
    const stray = await serve(['secret-token-on-the-command-line']);
    expect(stray.status).toBe(2);
    expect(stray.stderr).toMatch(
      /^codemode-executor serve: serve takes no arguments; got secret-token-on-the-command-line\.\n\nUsage: codemode-executor serve/,
    );
  });

  test('reads the token from the environment or a file, never both', async () => {
    expect(await readToken({ CODEMODE_EXECUTOR_TOKEN: TOKEN }, undefined)).toBe(TOKEN);
    expect(await readToken({}, undefined)).toBeUndefined();
    await expect(
      readToken({ CODEMODE_EXECUTOR_TOKEN: TOKEN, CODEMODE_EXECUTOR_TOKEN_FILE: '/x' }, undefined),
    ).rejects.toThrow('Both CODEMODE_EXECUTOR_TOKEN and a token file are set; keep one of them.');
  });
});
