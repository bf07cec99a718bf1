/** Module kinds (ES, CommonJS, JSON, text, data) and how specifiers resolve against the map. */
import { defineArea } from '../src/case.ts';

const GREETER = `export const greet = (name) => 'Hello, ' + name + '!';\nexport default greet;`;

export default defineArea('modules', [
  {
    name: 'es-module-bare-name',
    quick: true,
    modules: { greeter: GREETER },
    code: `import { greet } from 'greeter';
async () => greet('Ada')`,
  },
  {
    name: 'js-kind-object',
    modules: {
      'util.js': {
        js: `export function slugify(s) { return s.toLowerCase().trim().replace(/[^a-z0-9]+/g, '-'); }`,
      },
    },
    code: `import { slugify } from 'util.js';
async () => ['Hello World', '  Crash on Empty Input!  '].map(slugify)`,
  },
  {
    name: 'json-module',
    quick: true,
    modules: { 'config.json': { json: { retries: 3, endpoints: ['a', 'b'], nested: { on: true } } } },
    code: `import config from 'config.json';
async () => ({ config, retries: config.retries * 2 })`,
  },
  {
    name: 'text-module',
    modules: { 'template.txt': { text: 'Dear {{name}},\nYour order {{id}} shipped.' } },
    code: `import template from 'template.txt';
async () => template.replace('{{name}}', 'Ada').replace('{{id}}', '#42')`,
  },
  {
    name: 'data-module',
    modules: { 'logo.bin': { data: 'AAECA/8=' } },
    code: `import logo from 'logo.bin';
async () => ({ isArrayBuffer: logo instanceof ArrayBuffer, byteLength: logo.byteLength, bytes: Array.from(new Uint8Array(logo)) })`,
  },
  {
    name: 'cjs-default-import',
    modules: { 'legacy.js': { cjs: `module.exports = { add: (a, b) => a + b, name: 'legacy' };` } },
    code: `import legacy from 'legacy.js';
async () => ({ sum: legacy.add(2, 3), name: legacy.name })`,
  },
  {
    name: 'cjs-named-import',
    modules: { 'legacy.js': { cjs: `exports.add = (a, b) => a + b;\nexports.version = '1.0';` } },
    code: `import { add, version } from 'legacy.js';
async () => ({ sum: add(2, 3), version })`,
  },
  {
    name: 'cjs-require-relative',
    modules: {
      'lib/index.js': {
        cjs: `const { rate } = require('./rates.js');\nmodule.exports = (amount) => Math.round(amount * rate * 100) / 100;`,
      },
      'lib/rates.js': { cjs: `exports.rate = 0.92;` },
    },
    code: `import convert from 'lib/index.js';
async () => [10, 99.99].map(convert)`,
  },
  {
    name: 'nested-relative-imports',
    modules: {
      'lib/math.js': `import { FACTOR } from './constants.js';\nexport const scale = (n) => n * FACTOR;`,
      'lib/constants.js': `export const FACTOR = 10;`,
    },
    code: `import { scale } from 'lib/math.js';
async () => scale(4.2)`,
  },
  {
    name: 'namespace-import',
    modules: {
      'shapes.js': `export const circle = (r) => Math.PI * r * r;\nexport const square = (s) => s * s;\nexport default 'shapes';`,
    },
    code: `import * as shapes from 'shapes.js';
async () => ({ keys: Object.keys(shapes), tag: shapes[Symbol.toStringTag], square: shapes.square(3), def: shapes.default, frozen: Object.isFrozen(shapes) })`,
  },
  {
    name: 're-exports',
    modules: {
      'index.js': `export * from 'a.js';\nexport { default as b } from 'b.js';`,
      'a.js': `export const a1 = 1;\nexport const a2 = 2;`,
      'b.js': `export default 'bee';`,
    },
    code: `import { a1, a2, b } from 'index.js';
async () => [a1, a2, b]`,
  },
  {
    name: 'dynamic-import',
    quick: true,
    modules: { greeter: GREETER },
    code: `async () => {
  const mod = await import('greeter');
  return { named: mod.greet('Grace'), same: mod.default === mod.greet };
}`,
  },
  {
    name: 'dynamic-import-missing',
    code: `async () => {
  try { await import('does-not-exist'); return 'loaded'; } catch (e) { return { name: e.name, message: e.message }; }
}`,
  },
  {
    name: 'static-import-missing',
    code: `import { nothing } from 'missing-module';
async () => nothing`,
  },
  {
    name: 'module-throws-at-load',
    modules: {
      'config.js': `const env = {};\nif (!env.API_KEY) throw new Error('API_KEY is not configured');\nexport default env;`,
    },
    code: `import config from 'config.js';
async () => config`,
  },
  {
    name: 'evaluated-once',
    modules: {
      'counter.js': `export let loads = 0;\nloads++;\nexport const state = { hits: 0 };`,
      'a.js': `import { state } from 'counter.js';\nstate.hits++;\nexport default 'a';`,
      'b.js': `import { state } from 'counter.js';\nstate.hits++;\nexport default 'b';`,
    },
    code: `import a from 'a.js';
import b from 'b.js';
import { loads, state } from 'counter.js';
async () => {
  const again = await import('counter.js');
  return { a, b, loads, hits: state.hits, same: again.state === state };
}`,
  },
  {
    name: 'circular-imports',
    modules: {
      'even.js': `import { isOdd } from 'odd.js';\nexport const isEven = (n) => n === 0 || isOdd(n - 1);`,
      'odd.js': `import { isEven } from 'even.js';\nexport const isOdd = (n) => n !== 0 && isEven(n - 1);`,
    },
    code: `import { isEven } from 'even.js';
async () => [0, 1, 10, 7].map(isEven)`,
  },
  {
    name: 'top-level-await-in-module',
    modules: {
      'lazy.js': `const table = await Promise.resolve(['x', 'y']);\nexport const value = table.join('+');`,
    },
    code: `import { value } from 'lazy.js';
async () => value`,
  },
  {
    name: 'js-wins-over-cjs',
    modules: { 'dual.js': { js: `export default 'from js';`, cjs: `module.exports = 'from cjs';` } },
    code: `import dual from 'dual.js';
async () => dual`,
  },
  {
    name: 'helper-module-with-tools',
    tools: ['github'],
    modules: {
      'report.js': `export function summarize(issues) {\n  const byLabel = {};\n  for (const issue of issues) for (const label of issue.labels) byLabel[label] = (byLabel[label] ?? 0) + 1;\n  return byLabel;\n}`,
    },
    code: `import { summarize } from 'report.js';
async () => summarize(await github.listIssues({ repo: 'acme/app', state: 'all' }))`,
  },
  {
    name: 'bare-specifier-from-subdirectory',
    modules: {
      'lib/format.js': `import greet from 'greeter';\nexport const loud = (n) => greet(n).toUpperCase();`,
      greeter: GREETER,
    },
    code: `import { loud } from 'lib/format.js';
async () => loud('ada')`,
  },
  {
    name: 'import-meta',
    modules: {
      'meta.js': `export const info = { type: typeof import.meta, url: typeof import.meta.url, resolve: typeof import.meta.resolve };`,
    },
    code: `import { info } from 'meta.js';
async () => info`,
  },
  {
    name: 'cjs-module-object',
    modules: {
      'shape.js': {
        cjs: `module.exports.kind = typeof module + '/' + typeof exports + '/' + typeof require;\nmodule.exports.same = module.exports === exports;`,
      },
    },
    code: `import shape from 'shape.js';
async () => shape`,
  },
  {
    name: 'module-fetches-inside-function',
    modules: {
      'api.js': `export async function getUser(id) {\n  const response = await fetch('http://loopback.test/users/' + id);\n  return response.json();\n}`,
    },
    code: `import { getUser } from 'api.js';
async () => (await getUser(3)).name`,
  },
]);
