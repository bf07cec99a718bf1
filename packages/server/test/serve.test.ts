/**
 * `codemode-executor serve` as a real process, and createServer from code: each refuses a bad
 * setting in the words of the API its caller used (flags and environment for the command,
 * option names for code).
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { ExecutorClient } from '@supolka/codemode-protocol/client';
import { describe, expect, test } from 'vitest';
import { createServer } from '../src/server.ts';
import { notLoopbackServeMessage } from '../src/texts.ts';
import { openSocket, TOKEN } from './helpers.ts';

const main = new URL('../../executor/src/cli/main.ts', import.meta.url).pathname;

/** The environment with no token in it, whatever the runner's holds. */
function cleanEnv(): NodeJS.ProcessEnv {
  const {
    CODEMODE_EXECUTOR_TOKEN: _,
    CODEMODE_EXECUTOR_TOKEN_FILE: __,
    CODEMODE_DURABLE_KEYS: ___,
    CODEMODE_DURABLE_KEYS_FILE: ____,
    ...env
  } = process.env;
  return env;
}

function serve(...args: string[]) {
  const run = spawnSync(process.execPath, [main, 'serve', ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    env: cleanEnv(),
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('a setting that cannot run', () => {
  test('createServer names its token option; the serve command names its environment and flag', async () => {
    await expect(createServer({ host: '0.0.0.0', port: 0 })).rejects.toMatchObject({
      name: 'ServerOptionError',
      option: 'host',
      message:
        'Refusing to listen on 0.0.0.0 without a token: only a loopback address (127.0.0.1, ::1, localhost) may be served unauthenticated. Pass createServer a token option of at least 16 characters.',
    });
    expect(serve('--host', '0.0.0.0', '--port', '0')).toStrictEqual({
      status: 2,
      stdout: '',
      stderr: `codemode-executor serve: ${notLoopbackServeMessage('0.0.0.0')}\n`,
    });
    expect(notLoopbackServeMessage('0.0.0.0')).toBe(
      'Refusing to listen on 0.0.0.0 without a token: only a loopback address (127.0.0.1, ::1, localhost) may be served unauthenticated. Set CODEMODE_EXECUTOR_TOKEN or --token-file.',
    );
  });

  test('a bound createServer refuses is named by its option from code and by its flag from the command', async () => {
    await expect(
      createServer({ port: 0, maxTimeout: 10, executor: { timeout: 1000 } }),
    ).rejects.toMatchObject({
      message: "Server option maxTimeout must be at least the executor's timeout, 1000 ms; got 10.",
    });
    expect(serve('--port', '0', '--max-timeout', '10', '--timeout', '1000')).toStrictEqual({
      status: 2,
      stdout: '',
      stderr:
        "codemode-executor serve: --max-timeout must be at least the executor's timeout, 1000 ms; got 10.\n",
    });
    const budget = serve('--port', '0', '--request-budget', '1');
    expect(budget.status).toBe(2);
    expect(budget.stderr).toMatch(
      /^codemode-executor serve: --request-budget must be at least 128 MiB; got 1\.\n\nUsage:/,
    );
  });
});

describe('a durable key ring that cannot run', () => {
  test('is named by its source, never repeating a key, and --durable-ttl needs a ring', () => {
    const durable = (env: Record<string, string>, ...args: string[]) => {
      const run = spawnSync(process.execPath, [main, 'serve', '--port', '0', ...args], {
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...cleanEnv(), ...env },
      });
      return { status: run.status, stdout: run.stdout, stderr: run.stderr };
    };
    const short = Buffer.alloc(16, 7).toString('base64');
    const refused = durable({ CODEMODE_DURABLE_KEYS: `k1=${short}` });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(
      /^codemode-executor serve: CODEMODE_DURABLE_KEYS: A durable key ring's keys\[0\]\.key has 16 bytes/,
    );
    expect(refused.stderr).not.toContain(short);
    expect(durable({}, '--durable-ttl', '1000')).toStrictEqual({
      status: 2,
      stdout: '',
      stderr: expect.stringContaining(
        '--durable-ttl needs a durable key ring (CODEMODE_DURABLE_KEYS or --durable-keys-file).',
      ),
    });
  });
});

describe('an executor setting out of range', () => {
  test.each([
    ['--timeout', '0', "--timeout must be from 1 to 2147483647 ms; got '0'."],
    ['--memory', '0', "--memory must be from 8 to 4096 MB; got '0'."],
    ['--pool-size', '0', "--pool-size must be from 1 to 1024; got '0'."],
  ])(
    '%s %s is a flag error, exit 2: it ended the process with an OptionError before',
    (flag, value, message) => {
      const run = serve('--port', '0', flag, value);
      expect(run.status).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^codemode-executor serve: .*\n\nUsage: codemode-executor serve/);
      expect(run.stderr.split('\n')[0]).toBe(`codemode-executor serve: ${message}`);
    },
  );

  test('createServer rejects with the option the executor refuses, where it threw past the caller', async () => {
    await expect(createServer({ port: 0, executor: { poolSize: 0 } })).rejects.toMatchObject({
      name: 'OptionError',
      code: 'BAD_REQUEST',
      message: 'IsolateExecutor option poolSize must be a whole number from 1 to 1024; got 0.',
    });
  });
});

/** Runs `serve` until it listens, lets `drive` use it, then stops it with SIGTERM. */
async function served(args: string[], drive: (url: string) => Promise<void>) {
  const child = spawn(process.execPath, [main, 'serve', '--port', '0', '--pool-size', '1', ...args], {
    env: { ...cleanEnv(), CODEMODE_EXECUTOR_TOKEN: TOKEN },
  });
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const url = await new Promise<string>((resolve) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = /serving on (\S+)/.exec(stdout);
      if (match?.[1]) resolve(match[1]);
    });
  });
  await drive(url);
  child.kill('SIGTERM');
  const [status] = await once(child, 'exit');
  return {
    status,
    stdout,
    log: stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line)),
  };
}

async function oneExecution(url: string): Promise<void> {
  const client = await ExecutorClient.connect(openSocket(url, { authorization: `Bearer ${TOKEN}` }));
  await client.execute({ code: 'async () => "logged"' });
  client.close();
  await ExecutorClient.connect(openSocket(url, { authorization: 'Bearer not-the-token-at-all' })).catch(
    () => {},
  );
}

describe("the serve command's console format", () => {
  test("--console-format inspect is the default of every request; a request's own field wins", async () => {
    const code = `async () => { console.log('m', new Map([[1, 2]])) }`;
    const lines: string[][] = [];
    await served(['--console-format', 'inspect'], async (url) => {
      const client = await ExecutorClient.connect(openSocket(url, { authorization: `Bearer ${TOKEN}` }));
      for (const request of [{ code }, { code, consoleFormat: 'string' as const }]) {
        lines.push((await client.execute(request)).logs.map((line) => line.text));
      }
      client.close();
    });
    expect(lines).toStrictEqual([['m Map(1) { 1 => 2 }'], ['m [object Map]']]);
    const refused = serve('--port', '0', '--console-format', 'pretty');
    expect(refused.status).toBe(2);
    expect(refused.stderr.split('\n')[0]).toBe(
      "codemode-executor serve: --console-format must be string or inspect; got 'pretty'.",
    );
  }, 60_000);
});

describe("the serve command's log", () => {
  test('is info and up, one JSON object a line on stderr, by default', async () => {
    const run = await served([], oneExecution);
    expect(run.status).toBe(0);
    const of = (connection?: number) =>
      run.log.filter((line) => line.connection === connection).map((line) => [line.level, line.event]);
    expect(of(undefined)).toStrictEqual([
      ['info', 'server listening'],
      ['info', 'server stopped'],
    ]);
    expect(of(1)).toStrictEqual([
      ['info', 'connection opened'],
      ['info', 'execution'],
      ['info', 'connection closed'],
    ]);
    expect(of(2)).toStrictEqual([
      ['info', 'connection opened'],
      ['warn', 'authentication failed'],
      ['info', 'connection closed'],
    ]);
    expect(run.log.find((line) => line.event === 'execution')).toMatchObject({
      id: 'c1',
      outcome: 'ok',
      name: 'codemode-executor',
    });
  }, 60_000);

  test('--log-level sets the least level logged, and a bad one is named by its flag', async () => {
    const run = await served(['--log-level', 'warn'], oneExecution);
    expect(run.log.map((line) => line.event)).toStrictEqual(['authentication failed']);
    expect(serve('--port', '0', '--log-level', 'loud')).toStrictEqual({
      status: 2,
      stdout: '',
      stderr:
        'codemode-executor serve: --log-level must be one of fatal, error, warn, info, debug, trace, silent; got "loud".\n',
    });
  }, 60_000);
});
