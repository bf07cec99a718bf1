/**
 * The mcp command as an MCP client meets it: the committed bin over the build (run `npx tsc -p
 * tsconfig.build.json` first), spawned by the official SDK's Client over stdio, with a config
 * written to a scratch directory. Upstreams are real servers from npm and the test's own
 * misbehaving one, each spawned by the command.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export const BIN = new URL('../../executor/bin/codemode-executor.js', import.meta.url).pathname;
const MODULES = new URL('../node_modules/@modelcontextprotocol/', import.meta.url).pathname;
export const MISBEHAVING = new URL('./fixtures/misbehaving-server.mjs', import.meta.url).pathname;

/** A stdio entry of mcpServers starting the npm package's server with this Node. */
export function npmServer(
  name: 'server-everything' | 'server-filesystem' | 'server-memory',
  args: string[] = [],
  env?: Record<string, string>,
) {
  return {
    command: process.execPath,
    args: [join(MODULES, name, 'dist/index.js'), ...args],
    ...(env ? { env } : {}),
  };
}

export function misbehaving(mode = 'normal') {
  return { command: process.execPath, args: [MISBEHAVING], env: { MODE: mode } };
}

const made: string[] = [];

export function scratch(): string {
  const directory = mkdtempSync(join(tmpdir(), 'codemode-mcp-'));
  made.push(directory);
  return directory;
}

export function removeScratch(): void {
  for (const directory of made.splice(0)) rmSync(directory, { recursive: true, force: true });
}

export function writeConfig(config: unknown): string {
  const path = join(scratch(), 'mcp.json');
  writeFileSync(path, JSON.stringify(config));
  return path;
}

export interface Connected {
  readonly client: Client;
  /** What the command wrote to stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

/**
 * The command serving `config` over stdio, connected, with the client's capabilities as given;
 * `config` is written to a scratch file, or is the path of one already written.
 */
export async function connect(
  config: unknown,
  options: ClientOptions = {},
  args: string[] = [],
): Promise<Connected> {
  const file = typeof config === 'string' ? config : writeConfig(config);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--config', file, ...args],
    stderr: 'pipe',
    // The transport passes on only a few variables (HOME, PATH, ...): the start cache's switch the
    // suite runs under (vitest.config.ts) goes too, or the bridge would keep its start in HOME.
    env: { CODEMODE_CACHE: process.env.CODEMODE_CACHE ?? '' },
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'codemode-mcp-test', version: '1.0.0' }, options);
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** Calls execute and returns the answer. */
export async function execute(client: Client, code: string, timeout = 60_000): Promise<CallToolResult> {
  return (await client.callTool({ name: 'execute', arguments: { code } }, undefined, {
    timeout,
  })) as CallToolResult;
}

/** The text of the answer's first block (the result or the error). */
export function firstText(result: CallToolResult): string {
  const block = result.content[0];
  return block?.type === 'text' ? block.text : '';
}

export const HOSTILE_SERVER = new URL('./fixtures/hostile-server.mjs', import.meta.url).pathname;

/** A stdio entry of mcpServers starting the hostile-text server (fixtures/hostile-server.mjs). */
export function hostile() {
  return { command: process.execPath, args: [HOSTILE_SERVER] };
}

/** Starts the command with --http 0 and resolves to the URL it says it serves. */
/** Ends a bridge `startHttp` started, waiting for its exit, and removes the scratch folders. */
export async function stopHttp(command: ChildProcess | undefined): Promise<void> {
  command?.kill('SIGTERM');
  if (command && command.exitCode === null) await new Promise((resolve) => command.once('exit', resolve));
  removeScratch();
}

export function startHttp(
  config: string,
  env: Record<string, string>,
  args: string[] = [],
): Promise<{ process: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [BIN, 'mcp', '--config', config, '--http', '0', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const found = /serving MCP on (http:\/\/\S+)/.exec(stderr);
      if (found) resolve({ process: child, url: found[1] as string });
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
}
