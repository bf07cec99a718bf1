/**
 * The MCP door of the pool's first child started early (the executor's src/pool/early-child.ts):
 * both bins start it before the bridge loads, and the bridge's pool takes it over, so a bridge that
 * answers an execute spawned one pool child. The executor's test/cli/spawn-log.mjs, preloaded into
 * the bridge's own process, names every process it spawned (its upstreams among them).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, expect, test } from 'vitest';
import { BIN, execute, firstText, misbehaving, removeScratch, scratch, writeConfig } from './mcp-process.ts';

const MCP_BIN = new URL('../bin/codemode-mcp.js', import.meta.url).pathname;
const SPAWN_LOG = new URL('../../executor/test/cli/spawn-log.mjs', import.meta.url).pathname;
afterAll(removeScratch);

test.each([
  ['codemode-executor mcp', [BIN, 'mcp']],
  ['codemode-mcp', [MCP_BIN]],
])('%s spawns one pool child: the one its bin started early', async (_name, command) => {
  const children = await bridgeOnce(command, { CODEMODE_CACHE: process.env.CODEMODE_CACHE ?? '' });
  expect(children).toHaveLength(1);
  expect(children[0]?.early).toBe(true);
});

/**
 * The MCP door with the caches on, as the other suites run them off: a second bridge's child starts
 * from the start the first one's kept (a child that made its own writes a new file over the entry's
 * name; one that read it keeps the file), and each took over the child its bin started early.
 */
test('with the start cache on, a second bridge starts its child from the start the first kept', async () => {
  const cache = join(scratch(), 'cache');
  const start = join(cache, 'start');
  const entries = () =>
    Object.fromEntries(readdirSync(start).map((name) => [name, statSync(join(start, name)).ino]));
  const first = await bridgeOnce([MCP_BIN], { CODEMODE_CACHE_DIR: cache });
  expect(first.map((child) => child.early)).toStrictEqual([true]);
  const kept = entries();
  expect(Object.keys(kept).filter((name) => name.endsWith('.start'))).toHaveLength(1);
  const second = await bridgeOnce([MCP_BIN], { CODEMODE_CACHE_DIR: cache });
  expect(second.map((child) => child.early)).toStrictEqual([true]);
  expect(entries()).toStrictEqual(kept);
});

/**
 * The bridge `command` over one upstream, with `env` and the spawn log: it answers one execute,
 * and its pool children are named.
 */
async function bridgeOnce(command: string[], env: Record<string, string>) {
  const log = join(scratch(), 'spawned.jsonl');
  const config = writeConfig({ mcpServers: { plain: misbehaving() } });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', SPAWN_LOG, ...command, '--config', config],
    stderr: 'pipe',
    env: { ...env, SPAWN_LOG: log },
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'codemode-mcp-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const answer = await execute(client, 'async () => 6 * 7');
    expect(answer.isError, stderr).toBeFalsy();
    expect(firstText(answer)).toContain('42');
  } finally {
    await client.close();
  }
  return poolChildren(log);
}

/** The pool children the command's process spawned, as the spawn log names them. */
function poolChildren(log: string): { readonly early: boolean; readonly pid: number }[] {
  const lines = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
  return lines
    .filter((line) => line.includes('child-start'))
    .map((line) => JSON.parse(line) as { early: boolean; pid: number });
}

test.each([
  ['a config that is not there', ['--config', '/nonexistent/mcp.json'], 1],
  ['login, which runs no program', ['login', 'remote', '--config', '/nonexistent/mcp.json'], 0],
])('codemode-mcp with %s', async (name, args, started) => {
  const log = join(scratch(), 'spawned.jsonl');
  const run = spawnSync(process.execPath, ['--import', SPAWN_LOG, MCP_BIN, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, SPAWN_LOG: log },
  });
  expect(run.status, run.stderr).not.toBe(0);
  const children = poolChildren(log);
  expect(children, name).toHaveLength(started);
  for (const child of children) {
    expect(child.early).toBe(true);
    // Ended as the command exited, which built no pool.
    for (let waited = 0; waited < 10_000 && !gone(child.pid); waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(gone(child.pid)).toBe(true);
  }
});

/** Whether `pid` is gone: no such process, or one that died and waits to be reaped. */
function gone(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') === true;
  } catch {
    return true;
  }
}
