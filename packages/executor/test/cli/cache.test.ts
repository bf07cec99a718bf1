/**
 * `codemode-executor cache dir|clear|prepare` as a user runs it, over a cache folder this file makes
 * and removes (CODEMODE_CACHE_DIR): a run keeps its child's start there, `dir` names the folder,
 * `clear` removes what is in it and says how much, `prepare` keeps a start there that the first
 * child of the next process starts from, and a folder another user could write to is left alone.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
// The build's executor, as the command runs it: its children are the command's, so their key is too.
import { IsolateExecutor } from '../../dist/index.js';
import { USAGE } from '../../src/cli/args.ts';
import { CACHE_USAGE } from '../../src/cli/cache.ts';
import type { StartReport } from '../../src/pool/messages/health.ts';
import { runtimeScriptsDigest, SNAPSHOT_CHECK_MESSAGE } from '../../src/sandbox/setup/handed-snapshot.ts';
import { BIN, removeScratch, scratch } from './cli-process.ts';

afterAll(removeScratch);

/** The command with the cache switched on (unless `extra` says otherwise) and kept in `root`. */
function cli(args: readonly string[], root: string, extra: NodeJS.ProcessEnv = {}) {
  const { CODEMODE_CACHE: _, ...env } = process.env;
  const run = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...env, CODEMODE_CACHE_DIR: root, ...extra },
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** How the first child of the next process's executor over the cache at `root` started, once it ran a program. */
async function nextProcessStart(root: string): Promise<StartReport | undefined> {
  let start: StartReport | undefined;
  const executor = new IsolateExecutor({
    poolSize: 1,
    cache: { directory: root },
    onPoolEvent: (event) => {
      if (event.type === 'healthy') start ??= event.start;
    },
  });
  try {
    expect(await executor.execute({ code: 'async () => 1 + 1' })).toStrictEqual({ result: 2, logs: [] });
  } finally {
    await executor.dispose();
  }
  return start;
}

/** The one entry in the start folder of `root`: its name and bytes. */
function theEntry(root: string): { name: string; bytes: Buffer } {
  const names = readdirSync(join(root, 'start'));
  expect(names).toHaveLength(1);
  expect(names[0]).toMatch(/^[0-9a-f]{8}-\d+\.start$/);
  const name = names[0] as string;
  return { name, bytes: readFileSync(join(root, 'start', name)) };
}

describe('codemode-executor cache', () => {
  test('a run keeps its start in the folder; dir names it; clear removes it and says how much', () => {
    const root = join(scratch(), 'cache');
    const program = join(scratch(), 'program.js');
    writeFileSync(program, 'async () => 1 + 1');
    expect(cli(['cache', 'dir'], root)).toStrictEqual({ status: 0, stdout: `${root}\n`, stderr: '' });
    expect(cli(['run', program, '--json'], root)).toMatchObject({
      status: 0,
      stdout: '{"result":2,"logs":[]}\n',
    });
    const [entry] = readdirSync(join(root, 'start'));
    expect(entry).toMatch(/^[0-9a-f]{8}-\d+\.start$/);
    // The child's bundle names the scripts by the SHA-256 its build wrote in: the same as the
    // sources' strings hash to (scripts/bundle-child.mjs).
    const entryBytes = readFileSync(join(root, 'start', entry as string));
    const header = JSON.parse(entryBytes.toString('utf8', 0, entryBytes.indexOf(0x0a)));
    const runtimeKey = JSON.parse(JSON.parse(header.key)[1]);
    expect(runtimeKey.slice(0, 2)).toStrictEqual(['runtime snapshot', runtimeScriptsDigest()]);
    // The start, and what Node compiled for the command (src/cache/compile-cache.ts), a folder per Node.
    const compiled = readdirSync(join(root, 'compile')).flatMap((perNode) =>
      readdirSync(join(root, 'compile', perNode)),
    );
    expect(compiled.length).toBeGreaterThan(0);
    const cleared = cli(['cache', 'clear'], root);
    expect(cleared).toMatchObject({ status: 0, stderr: '' });
    expect(cleared.stdout).toMatch(
      new RegExp(`^Removed ${1 + compiled.length} files \\(\\d+ bytes\\) from ${root}\\.\\n$`),
    );
    expect(existsSync(root)).toBe(false);
    expect(cli(['cache', 'clear'], root)).toStrictEqual({
      status: 0,
      stdout: `Nothing cached in ${root}.\n`,
      stderr: '',
    });
  });

  test('a folder others may write to is neither used, nor cleared, nor prepared', () => {
    const root = join(scratch(), 'open');
    mkdirSync(join(root, 'start'), { recursive: true });
    writeFileSync(join(root, 'start', 'kept'), 'not ours to remove');
    chmodSync(root, 0o777);
    const refused = {
      status: 1,
      stdout: '',
      stderr: `codemode-executor cache: left alone: the cache folder ${root} may be written by other users (mode 777).\n`,
    };
    expect(cli(['cache', 'clear'], root)).toStrictEqual(refused);
    expect(cli(['cache', 'prepare'], root)).toStrictEqual(refused);
    expect(readdirSync(join(root, 'start'))).toStrictEqual(['kept']);
  });

  test('help, and actions that are none', () => {
    const root = join(scratch(), 'cache');
    for (const args of [
      ['help', 'cache'],
      ['cache', '--help'],
    ]) {
      expect(cli(args, root)).toStrictEqual({ status: 0, stdout: CACHE_USAGE, stderr: '' });
    }
    expect(cli(['cache'], root)).toStrictEqual({
      status: 2,
      stdout: '',
      stderr: `codemode-executor: cache needs an action: dir, clear or prepare.\n\n${USAGE}`,
    });
    expect(cli(['cache', 'wipe'], root)).toStrictEqual({
      status: 2,
      stdout: '',
      stderr: `codemode-executor: Unknown cache action 'wipe'; the actions are dir, clear and prepare.\n\n${USAGE}`,
    });
    expect(cli(['cache', 'prepare', 'now'], root)).toStrictEqual({
      status: 2,
      stdout: '',
      stderr: `codemode-executor: cache prepare takes no arguments; got now.\n\n${USAGE}`,
    });
  });
});

describe('codemode-executor cache prepare', () => {
  test('keeps a start the next process starts from; a second prepare finds it already prepared', async () => {
    // Without it, the next process's first child makes its own start: what prepare changes.
    expect(await nextProcessStart(join(scratch(), 'unprepared'))).toStrictEqual({ snapshot: 'built' });
    const root = join(scratch(), 'cache');
    const folder = join(root, 'start');
    expect(cli(['cache', 'prepare'], root)).toStrictEqual({
      status: 0,
      stdout: `Prepared: this build's start is kept in ${folder}, and a second child started from it.\n`,
      stderr: '',
    });
    const prepared = theEntry(root);
    expect(await nextProcessStart(root)).toStrictEqual({ snapshot: 'cached' });
    expect(cli(['cache', 'prepare'], root)).toStrictEqual({
      status: 0,
      stdout: `Already prepared: a child started from this build's start in ${folder}.\n`,
      stderr: '',
    });
    // Taken, not made again: a start made again is not byte for byte the one before.
    expect(theEntry(root)).toStrictEqual(prepared);
  });

  test("a run's own start counts as prepared: the command and run key it alike", () => {
    const root = join(scratch(), 'cache');
    const program = join(scratch(), 'program.js');
    writeFileSync(program, 'async () => 1 + 1');
    expect(cli(['run', program, '--json'], root)).toMatchObject({
      status: 0,
      stdout: '{"result":2,"logs":[]}\n',
    });
    expect(cli(['cache', 'prepare'], root)).toStrictEqual({
      status: 0,
      stdout: `Already prepared: a child started from this build's start in ${join(root, 'start')}.\n`,
      stderr: '',
    });
  });

  test('a damaged entry is replaced, and the command says why it was refused', () => {
    const root = join(scratch(), 'cache');
    cli(['cache', 'prepare'], root);
    const { name, bytes } = theEntry(root);
    const damaged = Buffer.from(bytes);
    for (let index = damaged.length - 64; index < damaged.length; index++) {
      damaged[index] = (damaged[index] as number) ^ 0xff;
    }
    writeFileSync(join(root, 'start', name), damaged, { mode: 0o600 });
    expect(cli(['cache', 'prepare'], root)).toStrictEqual({
      status: 0,
      stdout: `Prepared: this build's start is kept in ${join(root, 'start')}, in place of an entry that was refused (${SNAPSHOT_CHECK_MESSAGE}), and a second child started from it.\n`,
      stderr: '',
    });
    expect(theEntry(root).bytes).not.toStrictEqual(damaged);
  });

  test('CODEMODE_CACHE=off refuses, naming the switch, and makes nothing', () => {
    const root = join(scratch(), 'cache');
    expect(cli(['cache', 'prepare'], root, { CODEMODE_CACHE: 'off' })).toStrictEqual({
      status: 1,
      stdout: '',
      stderr:
        'codemode-executor cache: CODEMODE_CACHE=off keeps nothing on disk, so no start is prepared; unset it to prepare one.\n',
    });
    expect(existsSync(root)).toBe(false);
  });
});
