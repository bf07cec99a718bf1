/**
 * bundlePackages against real packages from the registry and against trees made on disk: what a
 * configuration offers, and every way it is refused (a name that is no name, a package that is not
 * there, one that needs a Node built-in, a file outside the package, a file that is not JavaScript,
 * a bound passed).
 */
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, test } from 'vitest';
import { bundlePackages, NODE_ENV, PackageConfigurationError } from '../src/index.ts';
import { manifest, useFolder, writeTree } from './fixtures.ts';

const here = join(import.meta.dirname, '..');
const folder = useFolder();

type Bundle = Awaited<ReturnType<typeof bundlePackages>>;
let bundle: Bundle;
beforeAll(async () => {
  bundle = await bundlePackages({ packages: ['zod', 'date-fns', 'date-fns-tz', 'lodash'], base: here });
});

const pkg = (name: string) => bundle.packages.find((candidate) => candidate.name === name);

test('each package comes with its version, its specifiers and what each exports', () => {
  expect(bundle.packages.map(({ name, version }) => [name, version])).toStrictEqual([
    ['zod', '4.6.7'],
    ['date-fns', '4.4.0'],
    ['date-fns-tz', '3.2.0'],
    ['lodash', '4.18.1'],
  ]);
  const zod = pkg('zod');
  expect(Object.keys(zod?.subpaths ?? {})).toEqual(
    expect.arrayContaining(['zod', 'zod/mini', 'zod/v4', 'zod/v4/locales/en.js']),
  );
  expect(zod?.subpaths.zod?.format).toBe('esm');
  expect(zod?.subpaths.zod?.names).toEqual(expect.arrayContaining(['z', 'ZodError', 'default']));
  expect(pkg('date-fns')?.subpaths['date-fns/addDays']).toStrictEqual({
    format: 'esm',
    names: ['addDays', 'default'],
  });
  // lodash has no `exports`: its entry alone, CommonJS, whose names no lexer finds.
  expect(pkg('lodash')?.subpaths).toStrictEqual({ lodash: { format: 'cjs', names: [] } });
});

test('an allowed package another one uses stays its own: date-fns-tz requires date-fns from its script', () => {
  expect(pkg('date-fns-tz')?.requires).toStrictEqual(['date-fns']);
  expect(pkg('date-fns-tz')?.source).toMatch(/require\("date-fns(\/[a-zA-Z]+)?"\)/);
  expect(pkg('date-fns-tz')?.source).not.toContain('function addDays');
});

test('a subpath the exports map does not offer is not in the bundle', () => {
  const zod = pkg('zod');
  expect(zod?.subpaths['zod/package.json']).toBeUndefined();
  expect(zod?.subpaths['zod/v4/core/core.js']).toBeUndefined();
  expect(zod?.subpaths['zod/src/index.ts']).toBeUndefined();
});

test('process.env.NODE_ENV is production, and no other variable of the host is inlined', async () => {
  writeTree(folder, {
    'env/node_modules/reads-env/package.json': manifest({ name: 'reads-env', main: 'index.js' }),
    'env/node_modules/reads-env/index.js':
      'module.exports = { mode: process.env.NODE_ENV, home: typeof process === "undefined" ? "none" : process.env.HOME };',
  });
  const { packages } = await bundlePackages({ packages: ['reads-env'], base: join(folder, 'env') });
  const source = packages[0]?.source ?? '';
  expect(source).toContain(JSON.stringify(NODE_ENV));
  expect(source).not.toContain('process.env.NODE_ENV');
  expect(source).toContain('process.env.HOME');
  expect(source).not.toContain(String(process.env.HOME));
});

test('a package named with a directory is bundled from there, relative to the base', async () => {
  writeTree(folder, {
    'vendor/mine/package.json': manifest({ name: 'mine', version: '2.3.4', exports: './index.js' }),
    'vendor/mine/index.js': 'export const answer = 42;',
  });
  const { packages } = await bundlePackages({ packages: { mine: 'vendor/mine' }, base: folder });
  expect(packages.map(({ name, version, subpaths }) => ({ name, version, subpaths }))).toStrictEqual([
    { name: 'mine', version: '2.3.4', subpaths: { mine: { format: 'esm', names: ['answer'] } } },
  ]);
});

const refusal = async (options: Parameters<typeof bundlePackages>[0]) => {
  try {
    await bundlePackages(options);
  } catch (error) {
    expect(error).toBeInstanceOf(PackageConfigurationError);
    return (error as Error).message;
  }
  throw new Error('bundlePackages did not refuse the configuration');
};

test.each([
  ['Zod', 'upper case'],
  ['ｚod', 'a full-width letter'],
  ['zod\u200b', 'a zero-width space'],
  ['zod/mini', 'a subpath'],
  ['../zod', 'a path'],
  ['/etc', 'an absolute path'],
  ['node:fs', 'a node: name'],
  ['', 'nothing'],
])('%j (%s) is no package name', async (name) => {
  expect(await refusal({ packages: [name], base: here })).toBe(
    `${JSON.stringify(name)} is not a package name: name a package as npm does (lower case, optionally @scope/), with no subpath, path or node: prefix.`,
  );
});

test('a package that is not installed is refused, naming where it was looked for', async () => {
  expect(await refusal({ packages: ['no-such-package-here'], base: folder })).toBe(
    `The package no-such-package-here is not installed where ${folder} can find it (no node_modules/no-such-package-here there or in a folder above): install it, or give its directory.`,
  );
});

test('a directory that holds another package is refused', async () => {
  writeTree(folder, {
    'other/package.json': manifest({ name: 'other', main: 'index.js' }),
    'other/index.js': '',
  });
  expect(await refusal({ packages: { zod: 'other' }, base: folder })).toBe(
    `${realpathSync(join(folder, 'other'))} holds the package "other", not zod: a package is allowed under its own name only.`,
  );
});

test('a package that needs a Node built-in is refused, naming the import', async () => {
  const message = await refusal({ packages: ['graceful-fs'], base: here });
  expect(message).toMatch(
    /^The package graceful-fs cannot be bundled: The package graceful-fs needs the Node built-in 'fs' \(imported by .*graceful-fs\.js\), and a program's isolate has no Node built-ins: it cannot be allowed\./,
  );
});

test('a node: import is refused the same way', async () => {
  writeTree(folder, {
    'builtin/node_modules/uses-crypto/package.json': manifest({
      name: 'uses-crypto',
      exports: './index.js',
      type: 'module',
    }),
    'builtin/node_modules/uses-crypto/index.js':
      "import { createHash } from 'node:crypto'; export const hash = createHash;",
  });
  expect(await refusal({ packages: ['uses-crypto'], base: join(folder, 'builtin') })).toMatch(
    /needs the Node built-in 'node:crypto'/,
  );
});

test('a symbolic link out of the package is refused: the file it lands on is outside', async () => {
  writeTree(folder, {
    'secret.js': 'module.exports = "the host file";',
    'link/node_modules/leaky/package.json': manifest({ name: 'leaky', main: 'index.js' }),
    'link/node_modules/leaky/index.js': 'module.exports = require("./inside.js");',
    'link/node_modules/leaky/inside.js': { link: join(folder, 'secret.js') },
  });
  const message = await refusal({ packages: ['leaky'], base: join(folder, 'link') });
  expect(message).toContain(
    `is ${realpathSync(join(folder, 'secret.js'))}, outside the package leaky and its declared dependencies.`,
  );
});

test('a ../ import out of the package is refused', async () => {
  writeTree(folder, {
    'climb/outside.js': 'module.exports = 1;',
    'climb/node_modules/climber/package.json': manifest({ name: 'climber', main: 'index.js' }),
    'climb/node_modules/climber/index.js': 'module.exports = require("../../outside.js");',
  });
  expect(await refusal({ packages: ['climber'], base: join(folder, 'climb') })).toContain(
    'outside the package climber and its declared dependencies.',
  );
});

test('an undeclared package is not read: only declared dependencies are', async () => {
  writeTree(folder, {
    'undeclared/node_modules/helper/package.json': manifest({ name: 'helper', main: 'index.js' }),
    'undeclared/node_modules/helper/index.js': 'module.exports = 1;',
    'undeclared/node_modules/borrower/package.json': manifest({ name: 'borrower', main: 'index.js' }),
    'undeclared/node_modules/borrower/index.js': 'module.exports = require("helper");',
  });
  expect(await refusal({ packages: ['borrower'], base: join(folder, 'undeclared') })).toContain(
    'outside the package borrower and its declared dependencies.',
  );
  writeTree(folder, {
    'undeclared/node_modules/borrower/package.json': manifest({
      name: 'borrower',
      main: 'index.js',
      dependencies: { helper: '1.0.0' },
    }),
  });
  const { packages } = await bundlePackages({ packages: ['borrower'], base: join(folder, 'undeclared') });
  expect(packages[0]?.requires).toStrictEqual([]);
});

test('an exports target that climbs out of the package is not offered', async () => {
  writeTree(folder, {
    'targets/node_modules/climbing-exports/package.json': manifest({
      name: 'climbing-exports',
      exports: { '.': './index.js', './up': '../../escape.js', './deep': './lib/../../escape.js' },
    }),
    'targets/node_modules/climbing-exports/index.js': 'module.exports = 1;',
    'targets/escape.js': 'module.exports = 2;',
  });
  const { packages } = await bundlePackages({
    packages: ['climbing-exports'],
    base: join(folder, 'targets'),
  });
  expect(Object.keys(packages[0]?.subpaths ?? {})).toStrictEqual(['climbing-exports']);
});

test('a file that is not JavaScript or JSON is refused, whatever loader esbuild has for it', async () => {
  writeTree(folder, {
    'texts/node_modules/texty/package.json': manifest({ name: 'texty', main: 'index.js' }),
    'texts/node_modules/texty/index.js': 'module.exports = require("./words.txt");',
    'texts/node_modules/texty/words.txt': 'esbuild would load this as a string',
    'styles/node_modules/styled/package.json': manifest({ name: 'styled', main: 'index.js' }),
    'styles/node_modules/styled/index.js': 'require("./look.css"); module.exports = 1;',
    'styles/node_modules/styled/look.css': 'body { color: red }',
  });
  expect(await refusal({ packages: ['texty'], base: join(folder, 'texts') })).toMatch(
    /^The package texty loads .*words\.txt, which is not JavaScript or JSON, the only files a bundle loads\.$/,
  );
  expect(await refusal({ packages: ['styled'], base: join(folder, 'styles') })).toMatch(
    /^The package styled cannot be bundled: Cannot import "look\.css"/,
  );
});

test('a package whose code does not parse cannot bundle', async () => {
  writeTree(folder, {
    'broken/node_modules/broken/package.json': manifest({ name: 'broken', main: 'index.js' }),
    'broken/node_modules/broken/index.js': 'module.exports = {',
  });
  expect(await refusal({ packages: ['broken'], base: join(folder, 'broken') })).toMatch(
    /^The package broken cannot be bundled: Expected identifier but found end of file \(index\.js:1:18\)$/,
  );
});

test('bundling past its time bound is refused', async () => {
  expect(await refusal({ packages: ['date-fns'], base: here, timeout: 1 })).toBe(
    'Bundling the package date-fns did not finish within the time bundling may take.',
  );
});

test('a package bundled once is kept while its files are unchanged, and bundled again once one changes', async () => {
  writeTree(folder, {
    'cached/node_modules/kept/package.json': manifest({
      name: 'kept',
      exports: { '.': './index.js', './*': './lib/*.js' },
      type: 'module',
    }),
    'cached/node_modules/kept/index.js': "export { value } from './lib/value.js';",
    'cached/node_modules/kept/lib/value.js': 'export const value = 1;',
  });
  const base = join(folder, 'cached');
  const [first] = (await bundlePackages({ packages: ['kept'], base })).packages;
  const [again] = (await bundlePackages({ packages: ['kept'], base })).packages;
  expect(again).toBe(first);
  // A file the build read changed: the same version, another bundle.
  writeTree(folder, { 'cached/node_modules/kept/lib/value.js': 'export const value = 2;' });
  const [changed] = (await bundlePackages({ packages: ['kept'], base })).packages;
  expect(changed).not.toBe(first);
  expect(changed?.version).toBe(first?.version);
  expect(changed?.source).toContain('value = 2');
  // A file a pattern of its exports now matches: another subpath, another bundle.
  writeTree(folder, { 'cached/node_modules/kept/lib/more.js': 'export const more = 3;' });
  const [grown] = (await bundlePackages({ packages: ['kept'], base })).packages;
  expect(Object.keys(grown?.subpaths ?? {}).sort()).toStrictEqual(['kept', 'kept/more', 'kept/value']);
});
