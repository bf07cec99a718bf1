/**
 * A real non-Node client: Deno (the registry's `deno` package ships its binary) runs
 * deno/client.js, which imports only the client's self-contained ESM file and drives the server
 * through Deno's own WebSocket: the token in the first message, tools and a proxied fetch served in
 * Deno, binary values, a throwing tool, a cancellation, a retained handle.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HELLO_TOKEN_REFUSED_MESSAGE, TOKEN_REFUSED_MESSAGE } from '@supolka/codemode-protocol/client';
import { afterAll, expect, test } from 'vitest';
import { runDenoScript } from '../../executor/test/deno-script.ts';
import { TOKEN, useServer } from './helpers.ts';

const setup = useServer();
const require = createRequire(import.meta.url);
const bundle = require.resolve('@supolka/codemode-protocol/client.bundle.js');
const script = new URL('./deno/client.js', import.meta.url).pathname;

/** Deno's cache, which it fills even for a script that imports only a local file. */
const denoDir = mkdtempSync(join(tmpdir(), 'deno-dir-'));
afterAll(() => rmSync(denoDir, { recursive: true, force: true }));

function runDeno(url: string) {
  return runDenoScript({
    script,
    args: [new URL(`file://${bundle}`).href, url, TOKEN],
    allowNet: new URL(url).host,
    allowRead: [bundle],
    denoDir,
  });
}

test('a Deno program drives the server with the self-contained client, serving the tools in Deno', async () => {
  const run = await runDeno(setup.server.url);
  expect(run.stderr).toBe('');
  const steps = run.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  expect(steps).toStrictEqual([
    ['wrong token', `CodemodeError BAD_REQUEST: ${HELLO_TOKEN_REFUSED_MESSAGE}`],
    ['wrong token in the upgrade', `CodemodeError BAD_REQUEST: ${TOKEN_REFUSED_MESSAGE}`],
    [
      'tools and fetch',
      {
        result: { runtime: 'deno', echoed: [14, 16, 18], page: 'served in deno for https://api.test/page' },
        logs: [],
      },
    ],
    [
      'a tool that throws',
      {
        error: 'failed in deno',
        errorKind: 'tool-failed',
        errorName: 'Error',
        // A client of version 3 is told which call failed, and where (issue 26 item 4).
        errorProvider: 'host',
        errorTool: 'fail',
        errorAt: 'executor.js:1:18',
        logs: [],
      },
    ],
    ['cancelled', { error: 'Execution was cancelled: its client cancelled it', code: 'CANCELLED', logs: [] }],
    ['invoke', [true, 200, 'handled deno']],
    [
      'after close',
      {
        error:
          'The worker running this execution was lost: the connection to the executor closed (code 1000: closed by the client).',
        code: 'WORKER_LOST',
        logs: [],
      },
    ],
  ]);
  expect(run.status).toBe(0);
});
