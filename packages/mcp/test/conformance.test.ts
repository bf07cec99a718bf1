/**
 * `@modelcontextprotocol/conformance`'s server scenarios against `mcp --http`, for both protocol
 * eras the endpoint serves: 0.1.16 for the handshake revisions (2025-06-18, 2025-11-25), and
 * 0.2.0-alpha.12 (installed as mcp-conformance-2026-07-28) for the current revision. A scenario
 * that applies to a server offering tools only (and one tool, execute, at that) must pass every
 * check but the ones named here as not applying; docs/mcp.md lists the other scenarios and every
 * exception with the reason. The tool drives a server by URL only, so stdio is not among its
 * transports; eras.test.ts drives stdio in both eras with the SDK's clients.
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
const CONFORMANCE_CURRENT = new URL(
  '../node_modules/mcp-conformance-2026-07-28/dist/index.js',
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

/**
 * The current revision's scenarios that apply, each with the checks in it that do not: they call
 * the reference server's diagnostic tools (test_missing_capability, test_trigger_tool_change) or
 * ask of prompts and resources this server does not offer.
 */
export const APPLICABLE_CURRENT: Readonly<Record<string, readonly string[]>> = {
  'server-stateless': [
    'sep-2575-server-rejects-undeclared-capability',
    'sep-2575-missing-capability-http-400',
    'sep-2575-server-sends-tools-list-changed-on-subscription',
    'sep-2575-server-sends-prompts-list-changed-on-subscription',
  ],
  'tools-list': [],
  'server-sse-multiple-streams': [],
  'dns-rebinding-protection': [],
  caching: [
    'sep-2549-prompts-list-caching-hints',
    'sep-2549-resources-list-caching-hints',
    'sep-2549-resources-templates-list-caching-hints',
    'sep-2549-resources-read-caching-hints',
  ],
  'http-header-validation': [],
};

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

interface Check {
  readonly id: string;
  readonly status: string;
  readonly errorMessage?: string;
}

/** Runs one scenario with the given build of the suite and answers its checks. */
function checksOf(suite: string, scenario: string, extra: readonly string[] = []): Check[] {
  const output = scratch();
  const run = spawnSync(
    process.execPath,
    [suite, 'server', '--url', url, '--scenario', scenario, ...extra, '-o', output],
    { encoding: 'utf8', timeout: 60_000 },
  );
  const [results] = readdirSync(output);
  expect(results, run.stdout + run.stderr).toBeDefined();
  return JSON.parse(readFileSync(join(output, results as string, 'checks.json'), 'utf8')) as Check[];
}

test.each(APPLICABLE)('the conformance scenario %s passes every check', (scenario) => {
  const checks = checksOf(CONFORMANCE, scenario);
  expect(checks.length).toBeGreaterThan(0);
  expect(checks.filter((check) => check.status !== 'SUCCESS')).toEqual([]);
});

test.each(Object.entries(APPLICABLE_CURRENT))(
  'on 2026-07-28, the conformance scenario %s passes every check that applies',
  (scenario, notApplying) => {
    const checks = checksOf(CONFORMANCE_CURRENT, scenario, ['--spec-version', '2026-07-28']);
    const applying = checks.filter((check) => !notApplying.includes(check.id));
    expect(applying.filter((check) => check.status === 'SUCCESS').length).toBeGreaterThan(0);
    // INFO is the suite's note that a check had nothing to compare (one tool listed, JSON answers).
    expect(applying.filter((check) => check.status !== 'SUCCESS' && check.status !== 'INFO')).toEqual([]);
  },
);
