/**
 * The package's main entry runs isolates only in the children the pool forks: importing it (or
 * running the CLI) and executing a program loads no isolated-vm into the caller's
 * process, which is what lets a caller that loads another copy of the addon use IsolateExecutor at
 * all (docs/sandbox.md, "Entry points"). The in-process Sandbox is the subpath
 * '@supolka/codemode-executor/sandbox', and importing it does load the addon: the control that
 * shows the probe sees it. Each case is a fresh Node on the built package, imported by its name.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { IsolateExecutor } from '../../dist/index.js';
import { DEFAULT_CHILD_EXEC_ARGV } from '../../src/executor/defaults.ts';

const fixtures = new URL('./fixtures/', import.meta.url);
const recorder = new URL('record-addons.mjs', fixtures).pathname;
const driver = new URL('drive-entry.mjs', fixtures).pathname;
const cli = new URL('../../dist/cli/main.js', import.meta.url).pathname;
const program = new URL('../../../../examples/programs/notes.js', import.meta.url);
const reports = mkdtempSync(join(tmpdir(), 'entry-points-'));
afterAll(() => rmSync(reports, { recursive: true, force: true }));

interface Report {
  readonly resolved: readonly string[];
  readonly sharedObjects: readonly string[];
  readonly builtins: readonly string[];
}

/** Runs `args` in a fresh Node (the same flags in every case) with the recorder loaded first. */
function runRecorded(
  name: string,
  args: readonly string[],
): { stdout: string; status: number | null; report: Report } {
  const file = join(reports, `${name}.json`);
  const run = spawnSync(
    process.execPath,
    ['--no-node-snapshot', '--no-wasm-code-gc', '--import', recorder, ...args],
    { encoding: 'utf8', timeout: 60_000, env: { ...process.env, ADDON_REPORT: file } },
  );
  expect(run.stderr).toBe('');
  return { stdout: run.stdout, status: run.status, report: JSON.parse(readFileSync(file, 'utf8')) as Report };
}

const addons = (report: Report) =>
  report.sharedObjects.filter((path) => /isolated[-_]vm.*\.node$/.test(path));
const isolatedVmModules = (report: Report) => report.resolved.filter((url) => url.includes('/isolated-vm/'));
const zodModules = (report: Report) => report.resolved.filter((url) => url.includes('/zod/'));

describe('the main entry loads no isolated-vm and no zod into the caller', () => {
  // The server's own entry is checked the same way in its package (packages/server/test/entry-points.test.ts).
  test('an execution through the main entry', () => {
    const { stdout, status, report } = runRecorded('main', [driver, 'main']);
    expect(status).toBe(0);
    expect(JSON.parse(stdout)).toStrictEqual({ result: 42, logs: [] });
    // The probe saw the package itself: the run went through the built entry.
    expect(report.resolved.some((url) => url.endsWith('/packages/executor/dist/index.js'))).toBe(true);
    expect(isolatedVmModules(report)).toStrictEqual([]);
    expect(addons(report)).toStrictEqual([]);
    // Nor zod: the run's request, heartbeat answers and result are decided by hot checks
    // (src/pool/messages/schemas-on-demand.ts).
    expect(zodModules(report)).toStrictEqual([]);
    // Nor node:crypto, which only durable runs, retained handles and the start's digest use
    // (src/sandbox/node-crypto.ts).
    expect(report.builtins).not.toContain('NativeModule crypto');
  });

  test('the codemode-executor run command', () => {
    const { stdout, status, report } = runRecorded('cli', [cli, 'run', program.pathname]);
    expect(status).toBe(0);
    expect(stdout).toBe(readFileSync(new URL('notes.expected.txt', program), 'utf8'));
    // The command's bundle (scripts/bundle-entries.mjs), which holds its run command.
    expect(report.resolved.some((url) => url.endsWith('/packages/executor/dist/bundle/cli-main.js'))).toBe(
      true,
    );
    expect(isolatedVmModules(report)).toStrictEqual([]);
    expect(addons(report)).toStrictEqual([]);
    expect(zodModules(report)).toStrictEqual([]);
  });
});

/**
 * Importing the main entry loads no zod: the caller's process loads the schemas on first need, and
 * a pool starts loading them as its first children start (src/pool/messages/schemas-on-demand.ts),
 * so an import that once cost zod and the protocol's schemas before any child was spawned no
 * longer does (docs/pool.md, "Cold start").
 */
test('importing the main entry loads no zod', () => {
  const { stdout, status, report } = runRecorded('import', [driver, 'import']);
  expect(status).toBe(0);
  expect(JSON.parse(stdout)).toContain('IsolateExecutor');
  expect(report.resolved.some((url) => url.endsWith('/packages/executor/dist/index.js'))).toBe(true);
  expect(zodModules(report)).toStrictEqual([]);
});

test('the sandbox subpath loads isolated-vm into the process that imports it', () => {
  const { stdout, status, report } = runRecorded('sandbox', [driver, 'sandbox']);
  expect(status).toBe(0);
  expect(JSON.parse(stdout)).toStrictEqual({ result: 42, logs: [] });
  expect(report.resolved.some((url) => url.endsWith('/packages/executor/dist/sandbox/index.js'))).toBe(true);
  expect(addons(report)).toHaveLength(1);
});

/**
 * A pool child at rest loads neither zod (the protocol's zod-free entry decides every message it
 * hears at rest: execute, heartbeat, cancel) nor node:http and its kin (native fetch loads them
 * with its first request): together about 25 MB of its resident memory (docs/pool.md, "Memory").
 * The child of the built package, recorded by the same probe, its report written as it exits.
 */
test('a pool child that served executions, heartbeats and a cancel loads no zod and no node:http', async () => {
  const directory = mkdtempSync(join(reports, 'child-'));
  process.env.ADDON_REPORT_DIR = directory;
  const executor = new IsolateExecutor({
    poolSize: 1,
    heartbeatInterval: 20,
    childExecArgv: [...DEFAULT_CHILD_EXEC_ARGV, '--import', recorder],
  });
  try {
    expect(await executor.execute({ code: 'async () => 6 * 7' })).toStrictEqual({ result: 42, logs: [] });
    const cancelled = new AbortController();
    const running = executor.execute(
      { code: 'async () => { await new Promise(() => {}) }' },
      { signal: cancelled.signal },
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    cancelled.abort();
    expect((await running).code).toBe('CANCELLED');
    expect(executor.stats().children[0]?.executions).toBe(2);
  } finally {
    await executor.dispose();
    delete process.env.ADDON_REPORT_DIR;
  }
  const [file] = readdirSync(directory);
  const report = JSON.parse(readFileSync(join(directory, file as string), 'utf8')) as Report;
  // The probe saw the child itself: the report is the built child entry's, the bundled one
  // (scripts/bundle-child.mjs), which keeps zod out of its file for the probe to see it loaded.
  expect(
    report.resolved.some((url) => url.endsWith('/packages/executor/dist/pool/child/child-start.bundle.js')),
  ).toBe(true);
  expect(report.resolved.filter((url) => url.includes('/zod/'))).toStrictEqual([]);
  // node:zlib is no longer among them: its CRC-32 checks a start and names the scripts in its key
  // (src/sandbox/setup/start-check.ts), for 0.13 MB; http, https and dns were the megabytes.
  expect(report.builtins.filter((name) => /^NativeModule (http|https|dns)$/.test(name))).toStrictEqual([]);
});

/**
 * A child that started from the start an earlier child handed on (docs/pool.md, "Handing the start
 * on") decided that message with its hot check too: it holds no zod either.
 */
test('a pool child that started from the start handed on loads no zod either', async () => {
  const directory = mkdtempSync(join(reports, 'handed-'));
  process.env.ADDON_REPORT_DIR = directory;
  const starts = new Map<number, string | undefined>();
  const executor = new IsolateExecutor({
    poolSize: 1,
    // The first child's snapshot leaves behind a heartbeat answer once it is idle, kept before the
    // child retires after its second execution.
    maxExecutionsPerChild: 2,
    heartbeatInterval: 20,
    childExecArgv: [...DEFAULT_CHILD_EXEC_ARGV, '--import', recorder],
    onPoolEvent: (event) => {
      if (event.type === 'healthy') starts.set(event.pid, event.start?.snapshot);
    },
  });
  try {
    for (const answer of [1, 2, 3]) {
      expect(await executor.execute({ code: `async () => ${answer}` })).toStrictEqual({
        result: answer,
        logs: [],
      });
      if (answer === 1) await heartbeatsPass(executor, 2);
    }
  } finally {
    await executor.dispose();
    delete process.env.ADDON_REPORT_DIR;
  }
  const [handed] = [...starts].find(([, start]) => start === 'handedOn') ?? [];
  expect(handed).toBeDefined();
  const report = JSON.parse(readFileSync(join(directory, `${handed}.json`), 'utf8')) as Report;
  expect(
    report.resolved.some((url) => url.endsWith('/packages/executor/dist/pool/child/child-start.bundle.js')),
  ).toBe(true);
  expect(report.resolved.filter((url) => url.includes('/zod/'))).toStrictEqual([]);
  // It checked the start by its CRC-32 and hashed nothing: node:crypto and the twenty modules
  // behind it are about 10 ms of a child's start (src/sandbox/node-crypto.ts).
  expect(report.builtins).not.toContain('NativeModule crypto');
});

/**
 * The first child of a process that starts from the start an earlier process's child kept on disk
 * (docs/pool.md, "The start cache on disk") checks it by its CRC-32 and commits to the digest the
 * entry holds: it loads no node:crypto, where the child that made the start did.
 */
test('a pool child that started from the start cache loads no node:crypto', async () => {
  const cache = mkdtempSync(join(reports, 'cache-'));
  const childReports = (name: string) => {
    const directory = mkdtempSync(join(reports, `${name}-`));
    process.env.ADDON_REPORT_DIR = directory;
    return directory;
  };
  const runOne = async (directory: string) => {
    const starts: (string | undefined)[] = [];
    const executor = new IsolateExecutor({
      poolSize: 1,
      cache: { directory: cache },
      childExecArgv: [...DEFAULT_CHILD_EXEC_ARGV, '--import', recorder],
      onPoolEvent: (event) => {
        if (event.type === 'healthy') starts.push(event.start?.snapshot);
      },
    });
    try {
      expect(await executor.execute({ code: 'async () => 6 * 7' })).toStrictEqual({ result: 42, logs: [] });
    } finally {
      await executor.dispose();
      delete process.env.ADDON_REPORT_DIR;
    }
    const [file] = readdirSync(directory);
    return { starts, report: JSON.parse(readFileSync(join(directory, file as string), 'utf8')) as Report };
  };
  const maker = await runOne(childReports('maker'));
  expect(maker.starts).toStrictEqual(['built']);
  expect(maker.report.builtins).toContain('NativeModule crypto');
  const reader = await runOne(childReports('reader'));
  expect(reader.starts).toStrictEqual(['cached']);
  expect(reader.report.builtins).not.toContain('NativeModule crypto');
  // Nor what reading node:util's properties loads (the bundle reads every property of a builtin it
  // imports, and node:util's load what they name): worker_threads, parseArgs, the diff of assert,
  // about 10 ms of a child's start (src/sandbox/crypto.ts asks node:util/types).
  for (const name of ['worker_threads', 'internal/util/parse_args/parse_args', 'internal/util/diff']) {
    expect(reader.report.builtins).not.toContain(`NativeModule ${name}`);
  }
});

/** Waits until the executor's one child answered `count` more heartbeats. */
async function heartbeatsPass(executor: IsolateExecutor, count: number): Promise<void> {
  const answered = () => executor.stats().children[0]?.heartbeatsAnswered ?? 0;
  const target = answered() + count;
  while (answered() < target) await new Promise((resolve) => setTimeout(resolve, 10));
}
