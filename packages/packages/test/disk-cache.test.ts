/**
 * The bundles kept on disk between processes (docs/packages.md, "What is bundled, and how"), through
 * the executor's `cache` option: each configuration runs in a process of its own
 * (configure-in-child.ts), which reports how many packages it ran esbuild for, so a hit is seen
 * without timing anything. Real packages for what is read only; a package the test writes for what
 * it changes.
 */
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { spawnCollecting } from '../../executor/test/spawn-collecting.ts';
import { manifest, useFolder, writeTree } from './fixtures.ts';

const CHILD = join(import.meta.dirname, 'configure-in-child.ts');
const here = join(import.meta.dirname, '..');
const folder = useFolder();

interface Configured {
  readonly runs: number;
  readonly outcome: unknown;
}

async function configure(
  cache: string,
  base: string,
  packages: string[],
  code?: string,
): Promise<Configured> {
  const args = [CHILD, cache, base, JSON.stringify(packages), ...(code === undefined ? [] : [code])];
  const { status, stdout, stderr } = await spawnCollecting(process.execPath, args);
  if (status !== 0) throw new Error(`the configuring process ended ${status}: ${stderr}`);
  return JSON.parse(stdout) as Configured;
}

/**
 * yaml's entry in `cache` was refused: the next process bundles it again (the bundler runs once) and
 * serves the import, and the one after reuses what that one kept.
 */
async function expectRemadeThenKept(cache: string): Promise<void> {
  for (const runs of [1, 0]) {
    expect(await configure(cache, here, ['yaml'], YAML)).toMatchObject({
      runs,
      outcome: { result: { a: [1] } },
    });
  }
}

/** The bundle entries in the cache folder `cache`. */
const entries = (cache: string) =>
  readdirSync(join(cache, 'packages')).filter((name) => name.endsWith('.bundle'));

const YAML = `import { parse } from 'yaml'\nasync () => parse('a: [1]')`;

test('a second process takes the bundle the first kept, and runs the same program', async () => {
  const cache = join(folder, 'hit-cache');
  const first = await configure(cache, here, ['yaml'], YAML);
  expect(first).toStrictEqual({ runs: 1, outcome: { result: { a: [1] }, logs: [] } });
  expect(entries(cache)).toHaveLength(1);
  const second = await configure(cache, here, ['yaml'], YAML);
  expect(second).toStrictEqual({ runs: 0, outcome: { result: { a: [1] }, logs: [] } });
});

test('with the cache off, every process bundles', async () => {
  expect(await configure('off', here, ['yaml'])).toStrictEqual({ runs: 1, outcome: null });
  expect(await configure('off', here, ['yaml'])).toStrictEqual({ runs: 1, outcome: null });
});

test('a file of the package changed, gone to a link outside, or a package.json added: each a miss', async () => {
  const base = join(folder, 'changing');
  const cache = join(folder, 'changing-cache');
  writeTree(base, {
    'node_modules/counter/package.json': manifest({
      name: 'counter',
      exports: './lib/index.js',
      type: 'module',
    }),
    'node_modules/counter/lib/index.js': "export { value } from './value.js';",
    'node_modules/counter/lib/value.js': 'export const value = 1;',
    'elsewhere/value.js': 'export const value = 2;',
  });
  const code = `import { value } from 'counter'\nasync () => value`;
  const value = join(base, 'node_modules/counter/lib/value.js');
  expect(await configure(cache, base, ['counter'], code)).toMatchObject({ runs: 1, outcome: { result: 1 } });
  expect(await configure(cache, base, ['counter'], code)).toMatchObject({ runs: 0, outcome: { result: 1 } });

  writeFileSync(value, 'export const value = 2;');
  expect(await configure(cache, base, ['counter'], code)).toMatchObject({ runs: 1, outcome: { result: 2 } });
  expect(await configure(cache, base, ['counter'], code)).toMatchObject({ runs: 0, outcome: { result: 2 } });

  // The same bytes, now through a link out of the package: bundled again, and refused as bundling refuses it.
  unlinkSync(value);
  symlinkSync(join(base, 'elsewhere/value.js'), value);
  const linked = await configure(cache, base, ['counter'], code);
  expect(linked.runs).toBe(1);
  expect(linked.outcome).toMatchObject({ refused: expect.stringContaining('outside the package counter') });

  // The file back as it was: the entry its bytes made still holds.
  unlinkSync(value);
  writeFileSync(value, 'export const value = 2;');
  expect(await configure(cache, base, ['counter'], code)).toMatchObject({ runs: 0, outcome: { result: 2 } });

  // A package.json appearing in a folder of a file read (esbuild would consult it) is a change too.
  writeFileSync(join(base, 'node_modules/counter/lib/package.json'), '{}');
  expect(await configure(cache, base, ['counter'], code)).toMatchObject({ runs: 1, outcome: { result: 2 } });
  expect(await configure(cache, base, ['counter'], code)).toMatchObject({ runs: 0, outcome: { result: 2 } });
});

test('a damaged entry, or one of another configuration under its name, is refused, bundled again and replaced', async () => {
  const cache = join(folder, 'damaged-cache');
  await configure(cache, here, ['yaml']);
  const [entry] = entries(cache) as [string];
  const path = join(cache, 'packages', entry);

  // One byte of the script changed: the digest beside it no longer holds.
  const bytes = readFileSync(path);
  const at = bytes.indexOf('parse');
  bytes[at] = 'P'.charCodeAt(0);
  writeFileSync(path, bytes, { mode: 0o600 });
  await expectRemadeThenKept(cache);

  // lodash's entry, whole and sound, under yaml's name: its key is not yaml's.
  await configure(cache, here, ['lodash']);
  const lodash = entries(cache).find((name) => name !== entry) as string;
  writeFileSync(path, readFileSync(join(cache, 'packages', lodash)), { mode: 0o600 });
  await expectRemadeThenKept(cache);

  // Not a file of the trusted folder's kind (a link): refused by the folder's own rule, and replaced.
  rmSync(path);
  symlinkSync(join(cache, 'packages', lodash), path);
  expect(await configure(cache, here, ['yaml'])).toStrictEqual({ runs: 1, outcome: null });
  expect(await configure(cache, here, ['yaml'])).toStrictEqual({ runs: 0, outcome: null });
});

test('a cache folder others may write to is refused: every process bundles, and none fails for it', async () => {
  const cache = join(folder, 'shared-cache');
  mkdirSync(cache, { mode: 0o700 });
  chmodSync(cache, 0o777);
  expect(await configure(cache, here, ['yaml'], YAML)).toMatchObject({
    runs: 1,
    outcome: { result: { a: [1] } },
  });
  expect(await configure(cache, here, ['yaml'], YAML)).toMatchObject({
    runs: 1,
    outcome: { result: { a: [1] } },
  });
  // Its subfolder is made before the folder is judged (cache-option.ts), and nothing is written in it.
  expect(readdirSync(join(cache, 'packages'))).toStrictEqual([]);
});
