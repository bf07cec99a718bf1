/**
 * What a bridge over stdio loads: not the MCP SDK's HTTP serving (@modelcontextprotocol/node and
 * hono), which only `--http` needs (src/http-serve-error.ts; docs/mcp.md). The built bridge, started
 * by a client over stdio with the recorder the executor's entry-point tests use, serves a real
 * upstream's tools; the recorder lists every module the bridge's process resolved.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, expect, test } from 'vitest';
import { BIN, npmServer, removeScratch, scratch, writeConfig } from './mcp-process.ts';

const recorder = new URL('../../executor/test/executor/fixtures/record-addons.mjs', import.meta.url).pathname;

afterAll(removeScratch);

test('a bridge over stdio lists its upstream tools without loading the SDK’s HTTP serving', async () => {
  const report = join(scratch(), 'report.json');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      '--import',
      recorder,
      BIN,
      'mcp',
      '--config',
      writeConfig({ mcpServers: { memory: npmServer('server-memory') } }),
    ],
    stderr: 'ignore',
    env: { CODEMODE_CACHE: process.env.CODEMODE_CACHE ?? '', ADDON_REPORT: report },
  });
  const client = new Client({ name: 'codemode-entry-points-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('execute');
  } finally {
    await client.close();
  }
  const { resolved } = JSON.parse(readFileSync(report, 'utf8')) as { resolved: string[] };
  // The bridge's own bundle was loaded: the run went through the built command.
  expect(resolved.some((url) => url.includes('/packages/mcp/dist/bundle/'))).toBe(true);
  expect(
    resolved.filter((url) => /\/(@modelcontextprotocol\/node|hono|@hono\/node-server)\//.test(url)),
  ).toStrictEqual([]);
}, 60_000);
