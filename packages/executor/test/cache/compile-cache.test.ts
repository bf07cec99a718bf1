/**
 * Node's compile cache for the command (src/cache/compile-cache.ts), through the committed bin in
 * processes of their own: what the command compiled is kept under the cache folder and read back by
 * the next run; nothing is kept under CODEMODE_CACHE=off, in a folder others may write to, or when
 * the user chose Node's cache themselves; entries damaged on disk are refused and the command runs;
 * and `cache clear` removes it with the rest.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
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
  expectCompileCacheKept(BIN, runArgs(), /\/dist\/bundle\/cli-main\.js /);
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
  // A folder per Node build and flags: the command's, and its pool child's (--no-node-snapshot).
  const perNode = readdirSync(join(root, 'compile'));
  expect(perNode).toHaveLength(2);
  const files =
    perNode.reduce((sum, name) => sum + readdirSync(join(root, 'compile', name)).length, 0) +
    readdirSync(join(root, 'start')).length;
  // `cache` keeps no compiled code of its own, so nothing comes back once it removed the folder.
  const cleared = runBin(BIN, ['cache', 'clear'], root);
  expect(cleared.status).toBe(0);
  expect(cleared.stdout).toMatch(new RegExp(`^Removed ${files} files \\(\\d+ bytes\\) from ${root}\\.\\n$`));
  expect(existsSync(root)).toBe(false);
});

test('Node is handed the real path the checks were made on, not a link along the way', () => {
  const real = join(scratch(), 'real');
  mkdirSync(real);
  const link = join(scratch(), 'link');
  symlinkSync(real, link);
  const second = (() => {
    runBin(BIN, runArgs(), link);
    return runBin(BIN, runArgs(), link, { NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
  })();
  expect(second.status).toBe(0);
  const reads = second.stderr
    .split('\n')
    .filter((line) => line.startsWith('[compile cache] reading cache from '));
  expect(reads.length).toBeGreaterThan(0);
  const compiled = join(realpathSync(real), 'compile');
  expect(reads.every((line) => line.startsWith(`[compile cache] reading cache from ${compiled}/`))).toBe(
    true,
  );
});

test('under umask 002 the per-Node folder is made private, and cache clear removes it', () => {
  const root = join(scratch(), 'cache');
  const args = runArgs();
  // A shell's umask: Node makes its per-Node folder 0775 there.
  const { CODEMODE_CACHE: _, ...env } = process.env;
  const run = spawnSync('sh', ['-c', 'umask 002 && exec "$0" "$@"', process.execPath, BIN, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...env, CODEMODE_CACHE_DIR: root },
  });
  expect(run.status).toBe(0);
  const cleared = runBin(BIN, ['cache', 'clear'], root);
  expect(cleared).toMatchObject({ status: 0, stderr: '' });
  expect(existsSync(root)).toBe(false);
});

test("cache clear removes only the folders the package keeps (the MCP bridge's among them), whatever else the root holds", () => {
  const root = join(scratch(), 'home');
  expect(runBin(BIN, runArgs(), root).status).toBe(0);
  // What the MCP bridge remembers of its upstreams' eras: the package's too, so it goes.
  mkdirSync(join(root, 'mcp-eras'), { mode: 0o700 });
  writeFileSync(join(root, 'mcp-eras', 'a'.repeat(64)), '{"era":"legacy","learnt":1}\n', { mode: 0o600 });
  mkdirSync(join(root, '.ssh'));
  writeFileSync(join(root, '.ssh', 'id_ed25519'), 'a key');
  mkdirSync(join(root, '.config', 'app'), { recursive: true });
  writeFileSync(join(root, '.config', 'app', 'settings.json'), '{}');
  writeFileSync(join(root, 'notes.txt'), 'kept');
  const cleared = runBin(BIN, ['cache', 'clear'], root);
  expect(cleared).toMatchObject({ status: 0, stderr: '' });
  expect(readdirSync(root).sort()).toStrictEqual(['.config', '.ssh', 'notes.txt']);
  expect(readdirSync(join(root, '.ssh'))).toStrictEqual(['id_ed25519']);
  expect(readdirSync(join(root, '.config', 'app'))).toStrictEqual(['settings.json']);
  expect(statSync(join(root, 'notes.txt')).size).toBe(4);
});

test('entries damaged on disk are refused by Node, and the command runs as without them', () => {
  const root = join(scratch(), 'cache');
  expect(runBin(BIN, runArgs(), root).status).toBe(0);
  // Every entry of every folder (the command's, its child's): its header kept and its code
  // garbled, or cut short, or replaced by noise.
  const entries = readdirSync(join(root, 'compile')).flatMap((perNode) =>
    readdirSync(join(root, 'compile', perNode)).map((name) => join(root, 'compile', perNode, name)),
  );
  expect(entries.length).toBeGreaterThan(0);
  entries.forEach((path, index) => {
    const bytes = readFileSync(path);
    if (index % 3 === 0) bytes.fill(0xa5, Math.min(32, bytes.length));
    writeFileSync(
      path,
      index % 3 === 1
        ? bytes.subarray(0, bytes.length >> 1)
        : index % 3 === 2
          ? randomBytes(bytes.length)
          : bytes,
    );
  });
  const damaged = runBin(BIN, runArgs(), root, { NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
  expect(damaged.status).toBe(0);
  expect(damaged.stdout).toBe('{"result":2,"logs":[]}\n');
  // Node read the damaged entries and took none of them.
  expect(damaged.stderr).not.toMatch(/V8 code cache for .*\/dist\/bundle\/cli-main\.js was accepted/);
  expect(damaged.stderr).toMatch(/\[compile cache\] reading cache from /);
});
