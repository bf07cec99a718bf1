/**
 * Node's compile cache for the command (src/cache/compile-cache.ts), through the committed bin in
 * processes of their own: what the command compiled is kept under the cache folder and read back by
 * the next run; nothing is kept under CODEMODE_CACHE=off, in a folder others may write to, or when
 * the user chose Node's cache themselves; and `cache clear` removes it with the rest.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { BIN, removeScratch, scratch } from '../cli/cli-process.ts';
import { expectCompileCacheKept, runBin } from '../compile-cache-check.ts';

afterAll(removeScratch);

/** A program file in a scratch folder, and the arguments that run it. */
function runArgs(): string[] {
  const program = join(scratch(), 'program.js');
  writeFileSync(program, 'async () => 1 + 1');
  return ['run', program, '--json'];
}

test('the command keeps what Node compiled for it, and the next run reads it back', () => {
  expectCompileCacheKept(BIN, runArgs(), join(scratch(), 'cache'), /\/dist\/bundle\/cli-main\.js /);
});

test('nothing is kept under CODEMODE_CACHE=off', () => {
  const root = join(scratch(), 'cache');
  expect(runBin(BIN, runArgs(), root, { CODEMODE_CACHE: 'off' })).toMatchObject({ status: 0 });
  expect(existsSync(root)).toBe(false);
});

test('a cache folder others may write to is not used, and the command runs', () => {
  const root = join(scratch(), 'open');
  mkdirSync(root);
  chmodSync(root, 0o777);
  expect(runBin(BIN, runArgs(), root)).toMatchObject({ status: 0, stdout: '{"result":2,"logs":[]}\n' });
  expect(existsSync(join(root, 'compile'))).toBe(false);
});

test("a user's own NODE_COMPILE_CACHE is left to Node", () => {
  const root = join(scratch(), 'cache');
  const theirs = join(scratch(), 'theirs');
  expect(runBin(BIN, runArgs(), root, { NODE_COMPILE_CACHE: theirs })).toMatchObject({ status: 0 });
  expect(existsSync(join(root, 'compile'))).toBe(false);
  expect(readdirSync(theirs).length).toBeGreaterThan(0);
});

test('cache clear removes the compiled code with the rest', () => {
  const root = join(scratch(), 'cache');
  expect(runBin(BIN, runArgs(), root).status).toBe(0);
  const perNode = readdirSync(join(root, 'compile'));
  const files =
    readdirSync(join(root, 'compile', perNode[0] as string)).length + readdirSync(join(root, 'start')).length;
  // `cache` keeps no compiled code of its own, so nothing comes back once it removed the folder.
  const cleared = runBin(BIN, ['cache', 'clear'], root);
  expect(cleared.status).toBe(0);
  expect(cleared.stdout).toMatch(new RegExp(`^Removed ${files} files \\(\\d+ bytes\\) from ${root}\\.\\n$`));
  expect(existsSync(root)).toBe(false);
});
