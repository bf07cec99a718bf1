/**
 * The MCP door of the pool's first child started early (the executor's src/pool/early-child.ts):
 * both bins start it before the bridge loads, and the bridge's pool takes it over, so a bridge that
 * answers an execute spawned one pool child. The executor's test/cli/spawn-log.mjs, preloaded into
 * the bridge's own process, names every process it spawned (its upstreams among them).
 */
import { existsSync, readFileSync } from 'node:fs';
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
  const log = join(scratch(), 'spawned.jsonl');
  const config = writeConfig({ mcpServers: { plain: misbehaving() } });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', SPAWN_LOG, ...command, '--config', config],
    stderr: 'pipe',
    env: { CODEMODE_CACHE: process.env.CODEMODE_CACHE ?? '', SPAWN_LOG: log },
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
  const spawned = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
  const children = spawned.filter((line) => line.includes('child-start'));
  expect(children, stderr).toHaveLength(1);
});
