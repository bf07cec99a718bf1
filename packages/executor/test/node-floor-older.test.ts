/**
 * Below the Node floor (adr/0002), importing the package and running the CLI fail with one sentence
 * naming the floor and the Node found. Proved under real older Nodes: one found on this machine, or
 * otherwise the registry's node-<os>-<arch> package of that major (as tools/run gets Node 24),
 * installed once into the system's temporary folder with npm under the machine's own configuration.
 */
import { execFileSync, type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { belowNodeFloor, NODE_FLOOR } from '../src/node-floor.ts';
import { npmEnv } from './npm-env.ts';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const entry = join(dist, 'index.js');
const sandboxEntry = join(dist, 'sandbox', 'index.js');
const cli = join(dist, 'cli', 'main.js');

function versionOf(node: string): string | undefined {
  try {
    return execFileSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

/** A Node binary of `major`: on PATH (or /usr/bin) when one is there, else from the registry. */
function nodeOfMajor(major: number): { node: string; version: string } {
  const candidates = [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/usr/local/bin'];
  for (const directory of candidates) {
    const node = join(directory, 'node');
    if (!existsSync(node)) continue;
    const version = versionOf(node);
    if (version?.split('.')[0] === String(major)) return { node, version };
  }
  const arch = process.arch === 'arm64' ? 'arm64' : 'x64';
  // Kept beside the Node tools/run fetches (ignored by git), not in the system's temporary folder:
  // a binary an earlier run left there once made this test pass on one machine and fail on a fresh one.
  const folder = fileURLToPath(new URL(`../../../tools/.node${major}`, import.meta.url));
  const node = join(folder, 'node_modules', `node-${process.platform}-${arch}`, 'bin', 'node');
  if (versionOf(node) === undefined) {
    mkdirSync(folder, { recursive: true });
    execFileSync(
      'npm',
      [
        'install',
        '--prefix',
        folder,
        '--no-save',
        '--no-package-lock',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        `node-${process.platform}-${arch}@${major}`,
      ],
      // Run from inside `pnpm run`, npm would read pnpm's npm_* variables instead of this machine's
      // configuration, and fail on the registry's certificate (npm-env.ts).
      { stdio: 'inherit', env: npmEnv() },
    );
  }
  const version = versionOf(node);
  if (version === undefined) throw new Error(`No Node ${major} could be found or installed at ${node}.`);
  return { node, version };
}

test('the floor is 24, and the sentence names it and the Node found', () => {
  expect(NODE_FLOOR).toBe(24);
  expect(belowNodeFloor('20.20.2')).toBe(
    '@supolka/codemode-executor needs Node 24 or newer, and this is Node 20.20.2.',
  );
  expect(belowNodeFloor('v22.23.5')).toBe(
    '@supolka/codemode-executor needs Node 24 or newer, and this is Node 22.23.5.',
  );
  expect(belowNodeFloor('23.11.0')).toContain('this is Node 23.11.0');
  for (const version of ['24.0.0', '24.22.3', '25.1.0', '100.0.0', process.versions.node]) {
    expect(belowNodeFloor(version)).toBeUndefined();
  }
});

describe.each([20, 22])(
  'under Node %i',
  (major) => {
    const { node, version } = nodeOfMajor(major);
    const sentence = `@supolka/codemode-executor needs Node 24 or newer, and this is Node ${version}.`;

    test.each([
      ['the package', entry],
      ['its /sandbox subpath', sandboxEntry],
    ])('importing %s rejects with the floor sentence', (_name, file) => {
      const script = `import(${JSON.stringify(file)}).then(() => console.log('LOADED'), (error) => console.log('REJECTED ' + error.message))`;
      const { stdout, status } = spawnSync(node, ['-e', script], { encoding: 'utf8' });
      expect(status).toBe(0);
      expect(stdout.trim()).toBe(`REJECTED ${sentence}`);
    });

    test.each([
      ['run', (file: string) => ['run', file]],
      ['serve', () => ['serve', '--port', '0']],
      ['no command', () => []],
    ])('the CLI (%s) prints the sentence alone and exits 1', (_name, args) => {
      const directory = mkdtempSync(join(tmpdir(), 'codemode-floor-'));
      const file = join(directory, 'program.js');
      writeFileSync(file, 'async () => 1\n');
      let ran: SpawnSyncReturns<string>;
      try {
        ran = spawnSync(node, [cli, ...args(file)], { encoding: 'utf8', timeout: 30_000 });
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
      const { stdout, stderr, status } = ran;
      expect(status).toBe(1);
      expect(stdout).toBe('');
      expect(stderr).toBe(`codemode-executor: ${sentence}\n`);
    });
  },
  240_000,
);
