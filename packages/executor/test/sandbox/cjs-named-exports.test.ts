/**
 * Named exports of CommonJS modules of the map (sandbox/sources/cjs-exports.ts): the names Node's
 * lexer finds, the names the request's imports ask for, and the bounds on reading them.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, expect, test } from 'vitest';
import { buildModuleMap } from '../../src/sandbox/modules/module-map.ts';
import { ExportNameReader, INLINE_BUDGET, NAMES_WORKER } from '../../src/sandbox/sources/cjs-exports.ts';
import { DeadlineWorker } from '../../src/sandbox/threads/deadline-worker.ts';
import { useSandbox } from '../helpers.ts';

const sandbox = useSandbox();
const LODASH = readFileSync(createRequire(import.meta.url).resolve('lodash'), 'utf8');

test("lodash's own file as a cjs entry: named, default and namespace imports", async () => {
  const envelope = await sandbox.execute({
    code: `import _, { groupBy, chunk as split } from 'lodash'
import * as namespace from 'lodash'
async () => [groupBy([1, 2, 3], (n) => n % 2), split([1, 2, 3], 2), _.VERSION === namespace.default.VERSION, typeof namespace.groupBy]`,
    modules: { lodash: { cjs: LODASH } },
  });
  expect(envelope).toStrictEqual({
    result: [{ 0: [2], 1: [1, 3] }, [[1, 2], [3]], true, 'function'],
    logs: [],
  });
});

test('the names the lexer finds are exported, through a module re-exported whole', async () => {
  const envelope = await sandbox.execute({
    code: `import { a, b, c, 'd-e' as de } from './lib/whole.cjs'
import * as namespace from './lib/parts.cjs'
async () => [a, b, c, de, Object.keys(namespace)]`,
    modules: {
      'lib/parts.cjs': {
        cjs: `exports.a = 1; module.exports.b = 2; Object.defineProperty(exports, 'c', { enumerable: true, value: 3 }); exports['d-e'] = 4`,
      },
      'lib/whole.cjs': { cjs: `module.exports = require('./parts.cjs')` },
    },
  });
  expect(envelope).toStrictEqual({ result: [1, 2, 3, 4, ['a', 'b', 'c', 'd-e', 'default']], logs: [] });
});

test('a name asked for that module.exports does not hold fails before the importer runs, in the engine words', async () => {
  const envelope = await sandbox.execute({
    code: `import { grupBy } from 'lodash'
async () => { console.log('ran'); return typeof grupBy }`,
    modules: { lodash: { cjs: LODASH } },
  });
  expect(envelope).toStrictEqual({
    result: undefined,
    error: "The requested module 'lodash' does not provide an export named 'grupBy'",
    logs: [],
    errorKind: 'thrown',
    errorName: 'SyntaxError',
  });
});

test('a name the lexer found but the module left unset reads undefined, as in Node', async () => {
  const envelope = await sandbox.execute({
    code: `import { later } from './late.cjs'
async () => [later === undefined]`,
    modules: { 'late.cjs': { cjs: `if (false) exports.later = 1` } },
  });
  expect(envelope).toStrictEqual({ result: [true], logs: [] });
});

test('names asked by js and ts modules and by export-from count, and import() sees them', async () => {
  const envelope = await sandbox.execute({
    code: `import { fromTs } from './use.ts'
import { again } from './reexport.js'
async () => [fromTs, again, Object.keys(await import('./hidden.cjs'))]`,
    modules: {
      'hidden.cjs': { cjs: `const target = module.exports; target.fromTs = 'ts'; target.again = 'again'` },
      'use.ts': `import { fromTs as value } from './hidden.cjs'\nexport const fromTs: string = value`,
      'reexport.js': `export { again } from './hidden.cjs'`,
    },
  });
  expect(envelope).toStrictEqual({ result: ['ts', 'again', ['again', 'default', 'fromTs']], logs: [] });
});

test('a .cts module is read with its types erased', async () => {
  const envelope = await sandbox.execute({
    code: `import { typed } from './typed.cts'
async () => typed`,
    modules: { 'typed.cts': { cjs: `const value: number = 5\nexports.typed = value` } },
  });
  expect(envelope).toStrictEqual({ result: 5, logs: [] });
});

test('modules that re-export each other whole end the walk', async () => {
  const envelope = await sandbox.execute({
    code: `import { one, two } from './one.cjs'
async () => [one, two === undefined]`,
    modules: {
      'one.cjs': {
        cjs: `exports.one = 1; Object.assign(exports, require('./two.cjs'))\nmodule.exports = require('./two.cjs')`,
      },
      'two.cjs': { cjs: `exports.two = 2; module.exports = require('./one.cjs')` },
    },
  });
  // one.cjs ends as its own first exports object; two is a name the walk found, unset there.
  expect(envelope).toStrictEqual({ result: [1, true], logs: [] });
});

test('module.exports of null or a primitive has no names, and asking one is the missing-export failure', async () => {
  const envelope = await sandbox.execute({
    code: `import nothing, { x } from './null.cjs'
async () => [nothing, x]`,
    modules: { 'null.cjs': { cjs: `module.exports = null` } },
  });
  expect(envelope.error).toBe("The requested module 'null.cjs' does not provide an export named 'x'");
});

test("the lexer-found names are Node's: __esModule and friends pass, default stays module.exports", async () => {
  const envelope = await sandbox.execute({
    code: `import whole, * as namespace from './esm-like.cjs'
async () => [whole.default, namespace.default === whole, namespace.__esModule, namespace.named]`,
    modules: {
      'esm-like.cjs': {
        cjs: `Object.defineProperty(exports, '__esModule', { value: true }); exports.default = 'inner'; exports.named = 'named'`,
      },
    },
  });
  expect(envelope).toStrictEqual({ result: ['inner', true, true, 'named'], logs: [] });
});

const workers: DeadlineWorker[] = [];
afterAll(() => {
  for (const worker of workers) worker.dispose();
});
function reader() {
  const worker = new DeadlineWorker({ worker: NAMES_WORKER });
  workers.push(worker);
  return { worker, names: new ExportNameReader(worker) };
}

test('small sources are read on this thread; a large one goes to the worker, and its reading is kept', async () => {
  const { worker, names } = reader();
  const small = buildModuleMap({ 'a.cjs': { cjs: 'exports.small = 1' } });
  expect(await names.facadeNames(small, () => '', undefined, 10_000)).toStrictEqual(
    new Map([['a.cjs', { found: ['small'], asked: [] }]]),
  );
  expect(worker.threadAlive).toBe(false);

  const large = buildModuleMap({
    'big.cjs': { cjs: `exports.big = 1;\n${'//'.padEnd(INLINE_BUDGET, 'x')}` },
  });
  const read = await names.facadeNames(large, () => '', undefined, 10_000);
  expect(read).toStrictEqual(new Map([['big.cjs', { found: ['big'], asked: [] }]]));
  expect(worker.threadAlive).toBe(true);
  // Kept: read again with no worker left to read it.
  worker.dispose();
  expect(await names.facadeNames(large, () => '', undefined, 10_000)).toStrictEqual(read);
});

test('a map with no cjs module reads nothing', async () => {
  const { worker, names } = reader();
  const map = buildModuleMap({ 'big.js': `export const x = 1;\n${'//'.padEnd(INLINE_BUDGET * 2, 'x')}` });
  expect(await names.facadeNames(map, () => "import { x } from './big.js'", undefined, 10_000)).toStrictEqual(
    new Map(),
  );
  expect(worker.threadAlive).toBe(false);
});

test('a reading of megabytes past the run bound answers undefined, and the run ends as a timeout', async () => {
  const { names } = reader();
  const source = 'exports.a = 1;\n'.repeat(500_000);
  const map = buildModuleMap({ 'huge.cjs': { cjs: source } });
  expect(await names.facadeNames(map, () => '', undefined, 0)).toBeUndefined();

  const envelope = await sandbox.execute({
    code: `import { a } from './huge.cjs'
async () => a`,
    modules: { 'huge.cjs': { cjs: `${source}// another text, not yet read` } },
    timeout: 1,
  });
  expect(envelope.code).toBe('TIMEOUT');
});
