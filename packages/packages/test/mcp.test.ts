/**
 * The MCP bridge's `packages` key: names found from the config file's folder (and directories
 * relative to it), listed with their versions in the execute tool's description, imported by the
 * programs the client sends; a key that cannot be served stops the command. The command is the
 * executor's committed bin, spawned by the MCP SDK's client over stdio.
 */
import { spawn } from 'node:child_process';
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { manifest, useFolder, writeTree } from './fixtures.ts';

const BIN = join(import.meta.dirname, '../../executor/bin/codemode-executor.js');
const folder = useFolder();
// The config's folder finds packages as Node would: its node_modules is this package's own.
symlinkSync(join(import.meta.dirname, '../node_modules'), join(folder, 'node_modules'));
writeTree(folder, {
  'vendor/greeter/package.json': manifest({
    name: 'greeter',
    version: '0.3.0',
    exports: './index.js',
    type: 'module',
  }),
  'vendor/greeter/index.js': "export const greet = (name) => 'hello, ' + name;",
});

/** A config with no upstream running: the bridge's key under test, and one disabled server. */
function config(extra: Record<string, unknown>): string {
  const file = join(folder, `mcp-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(
    file,
    JSON.stringify({ mcpServers: { idle: { command: 'true', disabled: true } }, ...extra }),
  );
  return file;
}

let client: Client;
beforeAll(async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      BIN,
      'mcp',
      '--config',
      config({ packages: { zod: './node_modules/zod', greeter: './vendor/greeter' } }),
    ],
    stderr: 'pipe',
    // The transport passes on only a few variables (HOME, PATH, ...): the start cache's switch the
    // suite runs under (vitest.config.ts) goes too, or the bridge would keep its start in HOME.
    env: { CODEMODE_CACHE: process.env.CODEMODE_CACHE ?? '' },
  });
  client = new Client({ name: 'codemode-packages-test', version: '1.0.0' });
  await client.connect(transport);
});
afterAll(() => client.close());

test('the execute tool names the allowed packages and their versions', async () => {
  const { tools } = await client.listTools();
  const execute = tools.find((tool) => tool.name === 'execute');
  expect(execute?.description).toContain(
    "The program may import these npm packages, by name and by the subpaths their exports offer, and no others: zod@4.6.7, greeter@0.3.0. Import them at the top (import ... from 'zod') or with await import('zod').",
  );
});

test('a program the client sends imports them', async () => {
  const result = (await client.callTool({
    name: 'execute',
    arguments: {
      code: `import { z } from 'zod'\nimport { greet } from 'greeter'\nasync () => greet(z.string().parse('bridge'))`,
    },
  })) as CallToolResult;
  expect(result.isError).not.toBe(true);
  expect(result.content[0]).toStrictEqual({ type: 'text', text: '"hello, bridge"' });
});

test('a package the config cannot serve stops the command, naming why', async () => {
  const child = spawn(process.execPath, [BIN, 'mcp', '--config', config({ packages: ['graceful-fs'] })], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const status = await new Promise((resolve) => child.on('close', resolve));
  expect(status).toBe(2);
  expect(stderr).toMatch(
    /codemode-executor mcp: IsolateExecutor option packages cannot be served: The package graceful-fs cannot be bundled: The package graceful-fs needs the Node built-in 'fs'/,
  );
});

test('a packages key that is no list or record is refused with the config file named', async () => {
  const file = config({ packages: 'zod' });
  const child = spawn(process.execPath, [BIN, 'mcp', '--config', file], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  expect(await new Promise((resolve) => child.on('close', resolve))).toBe(2);
  expect(stderr).toContain('packages');
  expect(stderr).toContain(file);
});
