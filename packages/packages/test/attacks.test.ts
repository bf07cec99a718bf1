/**
 * Attacks on the host's bundling step, each a package an operator might be talked into allowing:
 * files far past the size bounds, code and folders nested deep, code that makes esbuild's own
 * process fail, links that leave the package, and an `exports` map of thousands of entries or
 * nested without end. Each must end in a refusal with one sentence, or in a bundle within the
 * bounds, and never take the host down: each runs in a process of its own (bundle-in-child.ts), so
 * a crash fails the test instead of the runner, and the process bundles a plain package after it.
 */
import { spawn } from 'node:child_process';
import { realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { BUNDLE_SIZE_LIMIT, PACKAGE_SIZE_LIMIT, SUBPATH_LIMIT, TARGET_DEPTH_LIMIT } from '../src/index.ts';
import { manifest, useFolder, writeTree } from './fixtures.ts';

const CHILD = join(import.meta.dirname, 'bundle-in-child.ts');
const folder = useFolder();

type Outcome = { offered: [string, number][] } | { refused: { name: string; message: string } };

/** A plain package every attack's folder also holds, bundled after the attack in the same process. */
const PLAIN = 'plain';

/** A folder `name` holding `files` (its packages' trees under node_modules) and the plain package. */
function tree(name: string, files: Record<string, string | { link: string }>): string {
  const base = join(folder, name);
  writeTree(base, {
    [`node_modules/${PLAIN}/package.json`]: manifest({ name: PLAIN, main: 'index.js' }),
    [`node_modules/${PLAIN}/index.js`]: 'module.exports = 1;',
    ...files,
  });
  return base;
}

/** Bundles `packages` in a process of its own, then the plain package: the two outcomes. */
async function attack(base: string, packages: readonly string[]): Promise<[Outcome, Outcome]> {
  const child = spawn(process.execPath, [CHILD, base, JSON.stringify([packages, [PLAIN]])], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    // A crashing esbuild writes megabytes of goroutines here; the head says enough.
    if (stderr.length < 4000) stderr += chunk;
  });
  const [status, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('close', (code, killed) => resolve([code, killed])),
  );
  if (status !== 0) throw new Error(`the bundling process ended ${status ?? signal}; stderr: ${stderr}`);
  const outcomes = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Outcome);
  expect(outcomes).toHaveLength(2);
  // The process still bundles after the attack.
  expect(outcomes[1]).toStrictEqual({ offered: [[PLAIN, 1]] });
  return outcomes as [Outcome, Outcome];
}

const refused = (message: string | RegExp) => ({
  refused: { name: 'PackageConfigurationError', message },
});

test("a file past one package's size bound is refused with the bound", async () => {
  const text = `module.exports = ${JSON.stringify('x'.repeat(PACKAGE_SIZE_LIMIT + 1024))};`;
  const base = tree('huge', {
    'node_modules/huge/package.json': manifest({ name: 'huge', main: 'index.js' }),
    'node_modules/huge/index.js': text,
  });
  const [outcome] = await attack(base, ['huge']);
  expect(outcome).toMatchObject(
    refused(
      expect.stringMatching(
        new RegExp(
          `^The package huge bundles to \\d+ characters, past the ${PACKAGE_SIZE_LIMIT} one package may take\\.$`,
        ),
      ) as never,
    ),
  );
}, 120_000);

test('packages past the bound of all of them together are refused, naming the one that passed it', async () => {
  // Each within its own bound, three of them past the bound of the whole.
  const share = Math.ceil(BUNDLE_SIZE_LIMIT / 3) + 1024;
  const files: Record<string, string> = {};
  for (const name of ['big-a', 'big-b', 'big-c']) {
    files[`node_modules/${name}/package.json`] = manifest({ name, main: 'index.js' });
    files[`node_modules/${name}/index.js`] = `module.exports = ${JSON.stringify('y'.repeat(share))};`;
  }
  const [outcome] = await attack(tree('together', files), ['big-a', 'big-b', 'big-c']);
  expect(outcome).toStrictEqual(
    refused(
      `The packages bundle to more than ${BUNDLE_SIZE_LIMIT} characters together (at big-c); allow fewer.`,
    ),
  );
}, 120_000);

test("code nested deeper than esbuild's parser can go is refused, and esbuild's process is started afresh", async () => {
  // esbuild's parser recurses per bracket: its process dies of a stack overflow.
  const base = tree('nested-code', {
    'node_modules/nested-code/package.json': manifest({ name: 'nested-code', main: 'index.js' }),
    'node_modules/nested-code/index.js': `module.exports = ${'['.repeat(200_000)}${']'.repeat(200_000)};`,
  });
  const [outcome] = await attack(base, ['nested-code']);
  expect(outcome).toStrictEqual(
    refused(
      "esbuild's process ended while bundling the package nested-code (a file nested deeper than its parser's stack, or a build past the memory it may take): it cannot be bundled.",
    ),
  );
}, 120_000);

test('folders nested 150 deep, and a chain of 500 requires, bundle within the bounds', async () => {
  const folders = Array.from({ length: 150 }, (_, index) => `d${index}`).join('/');
  const files: Record<string, string> = {
    'node_modules/deep/package.json': manifest({ name: 'deep', main: 'index.js' }),
    'node_modules/deep/index.js': `module.exports = require('./${folders}/m0.js');`,
  };
  for (let index = 0; index < 500; index++) {
    files[`node_modules/deep/${folders}/m${index}.js`] = `module.exports = require('./m${index + 1}.js');`;
  }
  files[`node_modules/deep/${folders}/m500.js`] = 'module.exports = 1;';
  const [outcome] = await attack(tree('deep', files), ['deep']);
  expect(outcome).toStrictEqual({ offered: [['deep', 1]] });
}, 120_000);

test('a loop of symbolic links is refused with the sentence esbuild gives', async () => {
  const base = tree('loop', {
    'node_modules/loop/package.json': manifest({ name: 'loop', main: 'index.js' }),
    'node_modules/loop/index.js': "module.exports = require('./a.js');",
    'node_modules/loop/a.js': { link: 'b.js' },
    'node_modules/loop/b.js': { link: 'a.js' },
  });
  const [outcome] = await attack(base, ['loop']);
  expect(outcome).toMatchObject(
    refused(
      expect.stringMatching(
        /^The package loop cannot be bundled: .*too many levels of symbolic links/,
      ) as never,
    ),
  );
}, 120_000);

test("a linked folder that leaves the package is refused: its files' real paths are outside", async () => {
  writeTree(folder, { 'elsewhere/secret.js': 'module.exports = "a host file";' });
  const base = tree('linked-folder', {
    'node_modules/linked-folder/package.json': manifest({ name: 'linked-folder', main: 'index.js' }),
    'node_modules/linked-folder/index.js': "module.exports = require('./lib/secret.js');",
    'node_modules/linked-folder/lib': { link: join(folder, 'elsewhere') },
  });
  const [outcome] = await attack(base, ['linked-folder']);
  expect(outcome).toMatchObject(
    refused(
      expect.stringContaining(
        `is ${realpathSync(join(folder, 'elsewhere/secret.js'))}, outside the package linked-folder and its declared dependencies.`,
      ) as never,
    ),
  );
}, 120_000);

test('an exports target that is a link out of the package is never offered', async () => {
  writeTree(folder, { 'elsewhere/target.js': 'module.exports = "a host file";' });
  const base = tree('linked-target', {
    'node_modules/linked-target/package.json': manifest({
      name: 'linked-target',
      exports: { '.': './index.js', './leak': './leak.js' },
    }),
    'node_modules/linked-target/index.js': 'module.exports = 1;',
    'node_modules/linked-target/leak.js': { link: join(folder, 'elsewhere/target.js') },
  });
  const [outcome] = await attack(base, ['linked-target']);
  expect(outcome).toStrictEqual({ offered: [['linked-target', 1]] });
}, 120_000);

/** A package whose exports map has `count` subpaths besides `.`, over ten files. */
function manyExports(name: string, count: number): Record<string, string> {
  const exports: Record<string, string> = { '.': './index.js' };
  for (let index = 0; index < count; index++) exports[`./e${index}`] = `./f${index % 10}.js`;
  const files: Record<string, string> = {
    [`node_modules/${name}/package.json`]: manifest({ name, exports, type: 'module' }),
    [`node_modules/${name}/index.js`]: 'export const main = 1;',
  };
  for (let index = 0; index < 10; index++)
    files[`node_modules/${name}/f${index}.js`] = `export const f = ${index};`;
  return files;
}

test('an exports map of thousands of entries bundles up to the bound, and past it is refused', async () => {
  const within = SUBPATH_LIMIT - 1;
  const [outcome] = await attack(tree('many-within', manyExports('many-within', within)), ['many-within']);
  expect(outcome).toStrictEqual({ offered: [['many-within', within + 1]] });
  const [past] = await attack(tree('many-past', manyExports('many-past', SUBPATH_LIMIT)), ['many-past']);
  expect(past).toStrictEqual(
    refused(`The package many-past offers more than ${SUBPATH_LIMIT} subpaths; that many are not bundled.`),
  );
}, 240_000);

test('an exports map whose conditions nest without end is refused before anything is bundled', async () => {
  const depth = 100_000;
  const base = tree('nested-conditions', {
    'node_modules/nested-conditions/index.js': 'module.exports = 1;',
  });
  // Written as text: a value this deep is more than JSON.stringify's stack takes.
  writeFileSync(
    join(base, 'node_modules/nested-conditions/package.json'),
    `{"name":"nested-conditions","version":"1.0.0","exports":{".":${'{"import":'.repeat(depth)}"./index.js"${'}'.repeat(depth)}}}`,
  );
  const [outcome] = await attack(base, ['nested-conditions']);
  expect(outcome).toStrictEqual(
    refused(
      `The package nested-conditions nests the conditions of its exports deeper than ${TARGET_DEPTH_LIMIT} levels; such a map is not read.`,
    ),
  );
}, 120_000);
