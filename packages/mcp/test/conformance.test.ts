/**
 * `@modelcontextprotocol/conformance`'s server scenarios against `mcp --http`. A scenario that
 * applies to a server offering tools only (and one tool, execute, at that) must pass every check;
 * docs/mcp.md lists the others with the reason each does not apply.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { BIN, misbehaving, removeScratch, scratch, writeConfig } from './mcp-process.ts';

const CONFORMANCE = new URL(
  '../node_modules/@modelcontextprotocol/conformance/dist/index.js',
  import.meta.url,
).pathname;

/** The scenarios that apply: the session, ping, the tool list, streams and DNS-rebinding protection. */
export const APPLICABLE = [
  'server-initialize',
  'ping',
  'tools-list',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
];

let command: ChildProcess;
let url: string;

beforeAll(async () => {
  command = spawn(
    process.execPath,
    [BIN, 'mcp', '--config', writeConfig({ mcpServers: { bad: misbehaving() } }), '--http', '0'],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  url = await new Promise((resolve, reject) => {
    let stderr = '';
    command.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const found = /serving MCP on (http:\/\/\S+)/.exec(stderr);
      if (found) resolve(found[1] as string);
    });
    command.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
}, 60_000);

afterAll(async () => {
  command?.kill('SIGTERM');
  if (command && command.exitCode === null) await new Promise((resolve) => command.once('exit', resolve));
  removeScratch();
});

test.each(APPLICABLE)('the conformance scenario %s passes every check', (scenario) => {
  const output = scratch();
  const run = spawnSync(
    process.execPath,
    [CONFORMANCE, 'server', '--url', url, '--scenario', scenario, '-o', output],
    {
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  const [results] = readdirSync(output);
  expect(results, run.stdout + run.stderr).toBeDefined();
  const checks = JSON.parse(readFileSync(join(output, results as string, 'checks.json'), 'utf8')) as {
    id: string;
    status: string;
    errorMessage?: string;
  }[];
  expect(checks.length).toBeGreaterThan(0);
  expect(checks.filter((check) => check.status !== 'SUCCESS')).toEqual([]);
});
