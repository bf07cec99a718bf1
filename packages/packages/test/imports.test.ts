/**
 * Programs importing allowed packages in the in-process Sandbox, over a bundle of real packages
 * from the registry: named, default, namespace and subpath imports, import(), a package that uses
 * another, and every import a program may try that must not resolve.
 */
import { join } from 'node:path';
import { Sandbox } from '@supolka/codemode-executor/sandbox';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { bundlePackages } from '../src/index.ts';
import { manifest, useFolder, writeTree } from './fixtures.ts';

const here = join(import.meta.dirname, '..');
const folder = useFolder();
const ALLOWED = ['zod', 'date-fns', 'date-fns-tz', 'lodash', 'lodash-es', 'yaml', 'papaparse'];
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = new Sandbox({ packages: await bundlePackages({ packages: ALLOWED, base: here }) });
});
afterAll(() => sandbox.dispose());

const run = (code: string, modules?: Record<string, unknown>) =>
  sandbox.execute({ code, ...(modules ? { modules: modules as never } : {}) });

test.each([
  [
    'zod, named',
    `import { z } from 'zod'\nasync () => z.object({ n: z.number() }).safeParse({ n: 'x' }).success`,
    false,
  ],
  ['zod, default', `import z from 'zod'\nasync () => z.string().parse('ok')`, 'ok'],
  [
    'zod, a subpath',
    `import { z } from 'zod/mini'\nasync () => z.string().check(z.minLength(2)).parse('ab')`,
    'ab',
  ],
  [
    'date-fns, named',
    `import { addDays, format } from 'date-fns'\nasync () => format(addDays(new Date(2024, 0, 30), 3), 'yyyy-MM-dd')`,
    '2024-02-02',
  ],
  [
    'date-fns, a subpath default',
    `import addDays from 'date-fns/addDays'\nasync () => addDays(new Date(2024, 0, 1), 1).getDate()`,
    2,
  ],
  [
    'date-fns, a namespace',
    `import * as dates from 'date-fns'\nasync () => [typeof dates.isLeapYear, dates.isLeapYear(new Date(2024, 1, 1)), 'default' in dates]`,
    ['function', true, false],
  ],
  [
    'a package that uses another: date-fns-tz over date-fns',
    `import { formatInTimeZone } from 'date-fns-tz'\nasync () => formatInTimeZone(new Date(Date.UTC(2024, 0, 1, 12)), 'Asia/Tokyo', 'yyyy-MM-dd HH:mm')`,
    '2024-01-01 21:00',
  ],
  [
    'lodash (CommonJS), default and the names the program asks for',
    `import _, { groupBy, chunk } from 'lodash'\nasync () => [_.VERSION, groupBy(['one', 'two', 'three'], 'length'), chunk([1, 2, 3], 2)]`,
    ['4.18.1', { 3: ['one', 'two'], 5: ['three'] }, [[1, 2], [3]]],
  ],
  [
    'lodash-es, named',
    `import { groupBy, sortBy } from 'lodash-es'\nasync () => sortBy(Object.keys(groupBy([1.2, 2.1, 1.5], Math.floor)))`,
    ['1', '2'],
  ],
  [
    'yaml, default',
    `import YAML from 'yaml'\nasync () => YAML.parse('a: 1\\nb: [x, y]')`,
    { a: 1, b: ['x', 'y'] },
  ],
  ['yaml, named', `import { stringify } from 'yaml'\nasync () => stringify({ a: [1] })`, 'a:\n  - 1\n'],
  [
    'papaparse, default',
    `import Papa from 'papaparse'\nasync () => Papa.parse('a,b\\n1,2', { header: true }).data`,
    [{ a: '1', b: '2' }],
  ],
  [
    'import() of a package and of a subpath',
    `async () => { const { z } = await import('zod'); const { addDays } = await import('date-fns/addDays'); return [typeof z.object, addDays(new Date(0), 1).getTime()] }`,
    ['function', 86_400_000],
  ],
  [
    'one copy of zod whether imported by its name or a subpath',
    `import { z } from 'zod'\nimport * as v4 from 'zod/v4'\nasync () => [v4.z === z, z.string() instanceof v4.ZodType]`,
    [true, true],
  ],
])('%s', async (_, code, result) => {
  expect(await run(code)).toStrictEqual({ result, logs: [] });
});

test("a CommonJS package's name no module.exports holds fails before the program runs", async () => {
  expect(await run(`import { grupBy } from 'lodash'\nasync () => grupBy`)).toStrictEqual({
    result: undefined,
    error: "The requested module 'lodash' does not provide an export named 'grupBy'",
    logs: [],
    errorKind: 'thrown',
    errorName: 'SyntaxError',
  });
});

test("an ES module package's missing name fails at link, as the engine says", async () => {
  const envelope = await run(`import { nothingHere } from 'zod'\nasync () => nothingHere`);
  expect(envelope.error).toMatch(/does not provide an export named 'nothingHere'/);
  expect(envelope.errorKind).toBe('syntax');
});

test("a key of the request's module map wins over the package of the same name", async () => {
  expect(
    await run(`import { z } from 'zod'\nasync () => z`, { zod: 'export const z = "the map\'s own"' }),
  ).toStrictEqual({
    result: "the map's own",
    logs: [],
  });
});

const notFound = (specifier: string, referrer = 'executor.js') =>
  `Cannot find module '${specifier}' imported from ${referrer}: the module map has no such key, and it is no package this executor allows (${ALLOWED.join(', ')}).`;

test.each([
  ['a package not allowed', 'left-pad'],
  ['a name differing by case', 'Zod'],
  ['a name differing by a full-width letter', 'ｚod'],
  ['a name with a zero-width space', 'zod\u200b'],
  ['a subpath the exports map does not offer', 'zod/v4/core/core.js'],
  ['the package.json the exports map leaves out', 'zod/package.json'],
  ['a deep file of a package without exports', 'lodash/groupBy'],
  ['a relative path', '../node_modules/zod/index.js'],
  ['an absolute path', '/etc/passwd'],
  ['a node: name', 'node:fs'],
  ['a Node built-in', 'fs'],
  ["a facade's own module name", 'codemode:package/zod'],
])('%s is not found, and the envelope names what is allowed', async (_, specifier) => {
  const envelope = await run(`import x from ${JSON.stringify(specifier)}\nasync () => x`);
  expect(envelope).toMatchObject({ errorKind: 'module-not-found', errorName: 'ModuleNotFoundError' });
  // Named as written, the full-width letter and the zero-width space too: isolated-vm's resolver
  // reads them as bytes, which the sandbox reads back (executor src/sandbox/modules/engine-specifier.ts).
  expect(envelope.error).toBe(notFound(specifier));
  const dynamic = await run(
    `async () => import(${JSON.stringify(specifier)}).then(() => 'loaded', (error) => error.message)`,
  );
  expect(dynamic).toStrictEqual({ result: notFound(specifier), logs: [] });
});

test('a program cannot replace the registry its package imports load from', async () => {
  const envelope = await run(`import { z } from 'zod'
async () => {
  const key = Symbol.for('codemode.packages');
  const replaced = Reflect.defineProperty(globalThis, key, { value: { load: () => ({ z: 'forged' }) } });
  const { z: again } = await import('zod/v4');
  return [replaced, typeof again.object]
}`);
  expect(envelope).toStrictEqual({ result: [false, 'function'], logs: [] });
});

test("a package's code counts against the program's memory limit", async () => {
  const code = `import * as dates from 'date-fns'
import * as fp from 'date-fns/fp'
import * as locales from 'date-fns/locale'
import { z } from 'zod'
import * as lodash from 'lodash-es'
async () => [dates, fp, locales, z, lodash].every((loaded) => Object.keys(loaded).length > 0)`;
  expect(await sandbox.execute({ code, memoryLimit: 64 })).toStrictEqual({ result: true, logs: [] });
  expect(await sandbox.execute({ code, memoryLimit: 8 })).toStrictEqual({
    result: undefined,
    error:
      'Execution ran out of memory at its 8 MB limit. Hold less data at once and return the part that is already finished.',
    code: 'MEMORY_LIMIT',
    logs: [],
  });
});

test('subpaths with characters past ASCII are imported as the exports map spells them, and no look-alike is', async () => {
  writeTree(folder, {
    'node_modules/unicode-paths/package.json': manifest({
      name: 'unicode-paths',
      type: 'module',
      exports: { '.': './index.js', './ünï': './u.js', './é/*': './e/*.js' },
    }),
    'node_modules/unicode-paths/index.js': "export const main = 'main';",
    'node_modules/unicode-paths/u.js': "export const u = 'ünï';",
    'node_modules/unicode-paths/e/ça.js': "export const ca = 'ça';",
  });
  const bundle = await bundlePackages({ packages: ['unicode-paths'], base: folder });
  expect(Object.keys(bundle.packages[0]?.subpaths ?? {})).toStrictEqual([
    'unicode-paths',
    'unicode-paths/ünï',
    'unicode-paths/é/ça',
  ]);
  const own = new Sandbox({ packages: bundle, prepareAhead: false });
  try {
    expect(
      await own.execute({
        code: `import { u } from 'unicode-paths/ünï'
import { ca } from 'unicode-paths/é/ça'
async () => [u, ca, (await import('unicode-paths/ünï')).u === u]`,
      }),
    ).toStrictEqual({ result: ['ünï', 'ça', true], logs: [] });
    // u and a combining diaeresis (U+0308) look like ü, and are another specifier.
    const lookalike = 'unicode-paths/u\u0308nï';
    expect((await own.execute({ code: `import { u } from '${lookalike}'\nasync () => u` })).error).toBe(
      `Cannot find module '${lookalike}' imported from executor.js: the module map has no such key, and it is no package this executor allows (unicode-paths).`,
    );
  } finally {
    own.dispose();
  }
});
