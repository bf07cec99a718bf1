/**
 * The Python client in examples/python, written from docs/protocol.md alone, against a real
 * server: it says hello with the token, runs a program whose tools are Python functions (one
 * answering bytes, one raising), and prints the envelope, which must be exactly what a JavaScript
 * client gets. Never skipped: the client needs Debian's python3-websockets, which this test installs
 * when it is missing, and fails naming what to do when it cannot.
 */
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createServer, type ExecutorServer } from '@supolka/codemode-server';
import { afterAll, beforeAll, expect, test } from 'vitest';

const run = promisify(execFile);
const CLIENT = fileURLToPath(new URL('../../../../examples/python/codemode_client.py', import.meta.url));
/**
 * Debian's python, not the first python3 on PATH: python3-websockets installs into
 * /usr/lib/python3/dist-packages, which only the system interpreter reads (a pyenv or venv python
 * found first on PATH would not see it).
 */
const PYTHON = '/usr/bin/python3';
/** apt-get may wait for another install's lock, and fetches from the mirror: minutes at worst. */
const INSTALL = 300_000;

const token = randomBytes(24).toString('hex');
let server: ExecutorServer;

function hasWebsockets(): boolean {
  return spawnSync(PYTHON, ['-c', 'import websockets'], { stdio: 'ignore' }).status === 0;
}

/** Installs python3-websockets from Debian's packages unless the system python imports it already. */
function ensureWebsockets(): void {
  if (hasWebsockets()) return;
  const apt = (...args: string[]) =>
    spawnSync('apt-get', ['-o', 'DPkg::Lock::Timeout=120', ...args], {
      encoding: 'utf8',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  let install = apt('install', '-y', '--no-install-recommends', 'python3-websockets');
  // A machine whose package lists were never fetched knows no such package yet.
  if (install.status !== 0) {
    apt('update');
    install = apt('install', '-y', '--no-install-recommends', 'python3-websockets');
  }
  if (!hasWebsockets()) {
    throw new Error(
      `The Python client needs ${PYTHON} with the websockets package, and installing Debian's python3-websockets did not provide it (apt-get exited ${install.status}: ${`${install.stderr ?? ''}${install.error?.message ?? ''}`.trim().slice(-2000)}). Install python3-websockets (apt-get install python3-websockets) and run the test again.`,
    );
  }
}

beforeAll(async () => {
  ensureWebsockets();
  server = await createServer({ port: 0, token, executor: { poolSize: 1 } });
}, INSTALL);

afterAll(async () => {
  await server?.close();
});

test('the Python client runs a program whose tools are Python functions, and reads its envelope', async () => {
  const { stdout } = await run(PYTHON, [CLIENT, server.url], {
    env: { ...process.env, CODEMODE_EXECUTOR_TOKEN: token },
  });
  expect(JSON.parse(stdout)).toStrictEqual({
    result: {
      order: { id: 41, dish: 'soup', total: 15 },
      receiptBytes: [41, 0, 255],
      refused: 'moon cheese is not on the menu',
    },
    logs: [{ level: 'log', text: 'ordered soup' }],
  });
});

test('the Python client with a wrong token gets the fault the server answers, and exits 1', async () => {
  const failed = await run(PYTHON, [CLIENT, server.url], {
    env: { ...process.env, CODEMODE_EXECUTOR_TOKEN: 'not-the-token-of-this-server' },
  }).then(
    () => ({ code: 0, stderr: '' }),
    (error: { code: number; stderr: string }) => error,
  );
  expect(failed.code).toBe(1);
  expect(failed.stderr).toContain(
    "ExecutorError: BAD_REQUEST: The token in the hello is not this server's bearer token.",
  );
});
