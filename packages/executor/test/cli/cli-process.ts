/**
 * The command as a user runs it: the committed bin, which loads the build (`npx tsc -p
 * tsconfig.build.json` first), in a process of its own, so a command that crashes or hangs takes
 * only itself down; spawnSync's timeout ends one that hangs, and the test reads the signal.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const BIN = new URL('../../bin/codemode-executor.js', import.meta.url).pathname;

export function cli(args: readonly string[], options: { cwd?: string; input?: string | Uint8Array } = {}) {
  const run = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 256 * 1024 * 1024,
    ...options,
  });
  return { status: run.status, signal: run.signal, stdout: run.stdout, stderr: run.stderr };
}

const made: string[] = [];

/** A fresh directory under the system's temporary one, removed by removeScratch. */
export function scratch(): string {
  const directory = mkdtempSync(join(tmpdir(), 'codemode-cli-'));
  made.push(directory);
  return directory;
}

/** Removes every directory scratch made (a test file calls it in afterAll). */
export function removeScratch(): void {
  for (const directory of made.splice(0)) rmSync(directory, { recursive: true, force: true });
}

export function write(directory: string, name: string, text: string | Uint8Array): string {
  const path = join(directory, name);
  writeFileSync(path, text);
  return path;
}
