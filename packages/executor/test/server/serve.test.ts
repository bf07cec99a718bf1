/**
 * `codemode-executor serve` as a real process, and createServer from code: each refuses a bad
 * setting in the words of the API its caller used (flags and environment for the command,
 * option names for code).
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { createServer } from '../../src/server/server.ts';
import { notLoopbackMessage, notLoopbackServeMessage } from '../../src/server/texts.ts';

const main = new URL('../../src/cli/main.ts', import.meta.url).pathname;

/** The environment with no token in it, whatever the runner's holds. */
function cleanEnv(): NodeJS.ProcessEnv {
  const { CODEMODE_EXECUTOR_TOKEN: _, CODEMODE_EXECUTOR_TOKEN_FILE: __, ...env } = process.env;
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
