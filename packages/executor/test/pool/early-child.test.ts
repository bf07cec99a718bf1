/**
 * The pool's first child started before the command loads (src/pool/early-child.ts): the pool takes
 * it over only when it is the child the pool would have spawned, ends it otherwise, and a process
 * that never builds a pool neither waits for it nor leaves it behind. Each scenario is a process of
 * its own (early-child-scenario.ts), run from source as the pool's tests are.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';

const SCENARIO = new URL('./early-child-scenario.ts', import.meta.url).pathname;
const caches = mkdtempSync(join(tmpdir(), 'codemode-early-'));
afterAll(() => rmSync(caches, { recursive: true, force: true }));

interface Report {
  readonly early: number | null;
  readonly spawned?: number[];
  readonly starts?: (string | undefined)[];
  readonly answer?: unknown;
  readonly [key: string]: unknown;
}

/**
 * Runs the scenario `name`; `files` lowers its process's descriptor limit first (through the shell's
 * ulimit, which Node cannot set), so holding every one it may open is quick.
 */
function scenario(name: string, env: NodeJS.ProcessEnv = process.env, files?: number): Report {
  const [command, args] =
    files === undefined
      ? [process.execPath, [SCENARIO, name]]
      : ['/bin/sh', ['-c', `ulimit -n ${files} && exec "$0" "$@"`, process.execPath, SCENARIO, name]];
  const run = spawnSync(command, args, { encoding: 'utf8', timeout: 60_000, env });
  expect(run.signal, run.stderr).toBeNull();
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Report;
}

/** Whether `pid` is gone: no such process, or one that died and waits to be reaped by whoever adopted it. */
function gone(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') === true;
  } catch {
    return true;
  }
}

const answer = { result: 42, logs: [] };

test('the pool takes over the child started early when it is the one it would spawn', () => {
  const report = scenario('adopted');
  expect(typeof report.early).toBe('number');
  expect(report.spawned).toStrictEqual([report.early]);
  expect(report.answer).toStrictEqual(answer);
});

test('with the start cache on, the child started early keeps its start, and the next one starts from it', () => {
  const env: NodeJS.ProcessEnv = { ...process.env, CODEMODE_CACHE_DIR: mkdtempSync(join(caches, 'cache-')) };
  delete env.CODEMODE_CACHE;
  const first = scenario('adopted', env);
  expect(first.spawned).toStrictEqual([first.early]);
  expect(first.starts).toStrictEqual(['built']);
  const second = scenario('adopted', env);
  expect(second.spawned).toStrictEqual([second.early]);
  expect(second.starts).toStrictEqual(['cached']);
  expect(second.answer).toStrictEqual(answer);
});

test('a process starts one child early at most', () => {
  expect(scenario('twice').second).toBeNull();
});

test.each([
  ['an option that reaches the children', 'options differ'],
  ['an environment changed since the early child started', 'environment differs'],
  ["a working folder removed under the process (the pool's own children inherit it)", 'folder removed'],
])('%s: the pool spawns its own, ends the early one, and answers', (_what, name) => {
  const report = scenario(name);
  expect(report.spawned).toHaveLength(1);
  expect(report.spawned?.[0]).not.toBe(report.early);
  expect(report.earlyGone).toBe(true);
  expect(report.answer).toStrictEqual(answer);
});

test('an early child that ended before the pool came is not taken: the pool spawns its own', () => {
  const report = scenario('ended before');
  expect(report.ended).toBe(true);
  expect(report.spawned?.[0]).not.toBe(report.early);
  expect(report.answer).toStrictEqual(answer);
});

test('another copy of the package in the process meets the early child, and ends it when it is not its own', () => {
  expect(scenario('another copy')).toMatchObject({ taken: false, earlyGone: true });
});

test('a process that exits kills the early child it did not hand over', () => {
  expect(scenario('killed at exit').earlyGone).toBe(true);
});

test('with no file descriptor left, neither the early start nor the pool throws, and the pool starts once it can', () => {
  const report = scenario('no pipes', process.env, 256);
  expect(report.early).toBeNull();
  const refused = report.refused as { error?: string; code?: string };
  expect(refused.code).toBe('INTERNAL');
  expect(refused.error).toContain('its process could not be started');
  expect(refused.error).toContain('EMFILE');
  expect(report.answer).toStrictEqual(answer);
});

test('a spawn Node refuses by throwing (E2BIG) is a start that failed: answered INTERNAL, then a child once it can', () => {
  const report = scenario('spawn throws');
  const refused = report.refused as { error?: string; code?: string };
  expect(refused.code).toBe('INTERNAL');
  expect(refused.error).toContain('its process could not be started');
  expect(refused.error).toContain('E2BIG');
  expect(report.answer).toStrictEqual(answer);
  expect(report.earlyGone).toBe(true);
});

test('a process that builds no pool ends at once, and its early child with it', async () => {
  // The scenario returning at all shows the child held it open by nothing (spawnSync's timeout
  // would have ended it otherwise, and scenario() reads the signal).
  const pid = scenario('unused').early as number;
  expect(typeof pid).toBe('number');
  let waited = 0;
  while (!gone(pid) && waited < 10_000) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    waited += 20;
  }
  expect(gone(pid)).toBe(true);
});
