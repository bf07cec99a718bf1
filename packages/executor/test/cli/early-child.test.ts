/**
 * The CLI door of the pool's first child started early (src/pool/early-child.ts): the bin starts it
 * before the command loads, and the command's pool takes it over, so `run` spawns one child, not
 * two, with the start cache off (as the suite runs) and on; a command that builds no pool ends it.
 * spawn-log.mjs, preloaded into the command's process, names every process it spawned.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { BIN, removeScratch, scratch, write } from './cli-process.ts';

const SPAWN_LOG = new URL('./spawn-log.mjs', import.meta.url).pathname;
afterAll(removeScratch);

interface Spawned {
  readonly args: string[];
  readonly pid: number;
  /** Whether the bin started it early, before the command loaded. */
  readonly early: boolean;
}

/** The command run with the spawn log: its exit, its output, and the pool children it spawned. */
function logged(args: readonly string[], env: NodeJS.ProcessEnv = process.env) {
  const log = join(scratch(), 'spawned.jsonl');
  const run = spawnSync(process.execPath, ['--import', SPAWN_LOG, BIN, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...env, SPAWN_LOG: log },
  });
  const lines = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
  const children = lines
    .map((line) => JSON.parse(line) as Spawned)
    .filter((spawned) => spawned.args.some((arg) => arg.includes('child-start')));
  return { ...run, children };
}

/** Whether `pid` is gone: no such process, or one that died and waits to be reaped. */
function gone(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') === true;
  } catch {
    return true;
  }
}

async function eventuallyGone(pid: number): Promise<boolean> {
  for (let waited = 0; waited < 10_000 && !gone(pid); waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return gone(pid);
}

const program = () => write(scratch(), 'program.js', 'async () => 6 * 7');

test('run spawns one pool child: the one its bin started early', () => {
  const run = logged(['run', program()]);
  expect(run.status, run.stderr).toBe(0);
  expect(run.stdout).toBe('{ result: 42, logs: [] }\n');
  expect(run.children).toHaveLength(1);
  expect(run.children[0]?.early).toBe(true);
});

test('with the start cache on, each run spawns one child, and the second starts from what the first kept', () => {
  const cache = join(scratch(), 'cache');
  const env: NodeJS.ProcessEnv = { ...process.env, CODEMODE_CACHE_DIR: cache };
  delete env.CODEMODE_CACHE;
  const file = program();
  const start = join(cache, 'start');
  /**
   * The start cache's entries and the file each is: a child that made its own start writes a new
   * file over the name (one that read it marks it used, and keeps the file).
   */
  const entries = () =>
    Object.fromEntries(readdirSync(start).map((name) => [name, statSync(join(start, name)).ino]));
  const kept: Record<string, number>[] = [];
  for (const _ of [1, 2]) {
    const run = logged(['run', file], env);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toBe('{ result: 42, logs: [] }\n');
    expect(run.children).toHaveLength(1);
    expect(run.children[0]?.early).toBe(true);
    kept.push(entries());
  }
  expect(Object.keys(kept[0] ?? {}).filter((name) => name.endsWith('.start'))).toHaveLength(1);
  // The second child wrote nothing: it started from the entry the first kept.
  expect(kept[1]).toStrictEqual(kept[0]);
});

test.each([
  ['a usage error', ['run'], 2],
  ['a file that is not there', ['run', '/nonexistent/program.js'], 2],
])('run that ends in %s leaves no child behind', async (_what, args, status) => {
  // The child's end is the exit listener's or its channel's, whichever comes first (the listener
  // alone is tested in test/pool/early-child.test.ts, "killed at exit").
  const run = logged(args);
  expect(run.status, run.stderr).toBe(status);
  expect(run.children).toHaveLength(1);
  expect(run.children[0]?.early).toBe(true);
  expect(await eventuallyGone((run.children[0] as Spawned).pid)).toBe(true);
});

test('the commands that run no program, and help, start no child early', () => {
  const none = [
    ['--version'],
    ['help'],
    ['cache', 'dir'],
    ['run', '--help'],
    ['mcp', '-h'],
    ['mcp', 'login', '-h'],
  ];
  for (const args of none) {
    const run = logged(args);
    expect(run.status, run.stderr).toBe(0);
    expect(run.children).toStrictEqual([]);
  }
  // mcp login runs no program (it fails here, on a config that is not there).
  const login = logged(['mcp', 'login', 'remote', '--config', '/nonexistent/mcp.json']);
  expect(login.status, login.stderr).not.toBe(0);
  expect(login.children).toStrictEqual([]);
});
