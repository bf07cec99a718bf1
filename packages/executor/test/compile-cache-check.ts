/**
 * Whether a command's bin turned Node's compile cache on (src/cache/compile-cache.ts): the bin run
 * twice over a cache folder of its own, the second time with Node's own report of each module's
 * cache (NODE_DEBUG_NATIVE=COMPILE_CACHE), which must accept the entry of `module`, a file of the
 * build that only the command loads. Shared by the executor's, the server's and the bridge's tests.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';

/** The bin with `args`, the caches switched on and kept in `root`, and `extra` in its environment. */
export function runBin(bin: string, args: readonly string[], root: string, extra: NodeJS.ProcessEnv = {}) {
  const { CODEMODE_CACHE: _, NODE_COMPILE_CACHE: __, ...env } = process.env;
  const run = spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...env, CODEMODE_CACHE_DIR: root, ...extra },
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/**
 * Runs `bin` with `args` twice over a cache folder of their own, made here and removed after; the
 * second run must read back what the first compiled of `module`.
 */
export function expectCompileCacheKept(bin: string, args: readonly string[], module: RegExp): void {
  const scratch = mkdtempSync(join(tmpdir(), 'codemode-compile-'));
  try {
    expectKeptIn(join(scratch, 'cache'), bin, args, module);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function expectKeptIn(root: string, bin: string, args: readonly string[], module: RegExp): void {
  expect(runBin(bin, args, root).status).toBe(0);
  const folder = join(root, 'compile');
  expect(statSync(folder).mode & 0o777).toBe(0o700);
  // Node keeps one folder per Node build, named by its version first.
  const [perNode] = readdirSync(folder);
  expect(perNode).toMatch(new RegExp(`^v${process.versions.node}-`));
  expect(readdirSync(join(folder, perNode as string)).length).toBeGreaterThan(0);
  const second = runBin(bin, args, root, { NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
  expect(second.status).toBe(0);
  const accepted = second.stderr
    .split('\n')
    .filter((line) => /^\[compile cache\] V8 code cache for .* was accepted/.test(line));
  expect(accepted.some((line) => module.test(line))).toBe(true);
}
