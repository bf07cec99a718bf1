/**
 * The serve door with the caches on, as every other suite runs them off (vitest.config.ts): the
 * server's command twice over one cache folder, each answering an execution, and the second
 * server's child starting from the start the first one's child kept (docs/pool.md, "The start cache
 * on disk"): a child that made its own start writes a new file over the entry's name, one that read
 * it marks it used and keeps the file.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExecutorClient } from '@supolka/codemode-protocol/client';
import { afterAll, expect, test } from 'vitest';
import { openSocket, servingUrl, TOKEN } from './helpers.ts';

const SERVER_BIN = new URL('../bin/codemode-server.js', import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), 'codemode-serve-cache-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** One server process over `cache`: it serves one execution, then ends by SIGTERM. */
async function serveOnce(cache: string): Promise<unknown> {
  const { CODEMODE_CACHE: _, CODEMODE_EXECUTOR_TOKEN_FILE: __, ...env } = process.env;
  const child = spawn(
    process.execPath,
    [SERVER_BIN, '--port', '0', '--pool-size', '1', '--log-level', 'silent'],
    {
      env: { ...env, CODEMODE_CACHE_DIR: cache, CODEMODE_EXECUTOR_TOKEN: TOKEN },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  try {
    const url = await servingUrl(child);
    const client = await ExecutorClient.connect(openSocket(url, { authorization: `Bearer ${TOKEN}` }));
    try {
      return await client.execute({ code: 'async () => 6 * 7' });
    } finally {
      client.close();
    }
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
  }
}

test('a second server starts its child from the start the first one kept', async () => {
  const cache = join(scratch, 'cache');
  const start = join(cache, 'start');
  const entries = () =>
    Object.fromEntries(readdirSync(start).map((name) => [name, statSync(join(start, name)).ino]));
  expect(await serveOnce(cache)).toStrictEqual({ result: 42, logs: [] });
  const kept = entries();
  expect(Object.keys(kept).filter((name) => name.endsWith('.start'))).toHaveLength(1);
  expect(await serveOnce(cache)).toStrictEqual({ result: 42, logs: [] });
  expect(entries()).toStrictEqual(kept);
});
