/**
 * `codemode-executor cache dir|clear` as a user runs it, over a cache folder this file makes and
 * removes (CODEMODE_CACHE_DIR): a run keeps its child's start there, `dir` names the folder, `clear`
 * removes what is in it and says how much, and a folder another user could write to is left alone.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { USAGE } from '../../src/cli/args.ts';
import { CACHE_USAGE } from '../../src/cli/cache.ts';
import { BIN, removeScratch, scratch } from './cli-process.ts';

afterAll(removeScratch);

/** The command with the cache switched on and kept in `root`. */
function cli(args: readonly string[], root: string) {
  const { CODEMODE_CACHE: _, ...env } = process.env;
  const run = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...env, CODEMODE_CACHE_DIR: root },
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
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
    expect(entry).toMatch(/^[0-9a-f]{64}\.start$/);
    const cleared = cli(['cache', 'clear'], root);
    expect(cleared).toMatchObject({ status: 0, stderr: '' });
    expect(cleared.stdout).toMatch(new RegExp(`^Removed 1 file \\(\\d+ bytes\\) from ${root}\\.\\n$`));
    expect(existsSync(root)).toBe(false);
    expect(cli(['cache', 'clear'], root)).toStrictEqual({
      status: 0,
      stdout: `Nothing cached in ${root}.\n`,
      stderr: '',
    });
  });

  test('a folder others may write to is neither used nor cleared', () => {
    const root = join(scratch(), 'open');
    mkdirSync(join(root, 'start'), { recursive: true });
    writeFileSync(join(root, 'start', 'kept'), 'not ours to remove');
    chmodSync(root, 0o777);
    expect(cli(['cache', 'clear'], root)).toStrictEqual({
      status: 1,
      stdout: '',
      stderr: `codemode-executor cache: left alone: the cache folder ${root} may be written by other users (mode 777).\n`,
    });
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
      stderr: `codemode-executor: cache needs an action: dir or clear.\n\n${USAGE}`,
    });
    expect(cli(['cache', 'wipe'], root)).toStrictEqual({
      status: 2,
      stdout: '',
      stderr: `codemode-executor: Unknown cache action 'wipe'; the actions are dir and clear.\n\n${USAGE}`,
    });
  });
});
