/**
 * The `modules` option is checked at construction without the schemas (src/executor/modules-option.ts):
 * here it is held to the schema's verdict on every kind of value a caller might pass, so a map the
 * schema takes is never refused, one it refuses never taken, and what is taken is what the schema
 * returns.
 */
import { checkModules, MODULE_LIMIT, MODULE_SOURCE_LIMIT, ModuleMapSchema } from '@supolka/codemode-protocol';
import { describe, expect, test } from 'vitest';
import { checkModulesOption } from '../../src/executor/modules-option.ts';

const bare = (entries: Record<string, unknown>) => Object.assign(Object.create(null), entries);
const long = 'x'.repeat(MODULE_SOURCE_LIMIT + 1);

const CASES: readonly (readonly [string, unknown])[] = [
  ['an empty map', {}],
  ['source text', { 'a.js': 'export default 1' }],
  [
    'every kind of entry',
    {
      a: { js: 'export default 1' },
      b: { cjs: 'module.exports = 1' },
      c: { json: [1, { x: 2 }] },
      d: { text: 't' },
      e: { data: 'AA==' },
    },
  ],
  ['an entry with no kind', { a: {} }],
  ['a map with no prototype', bare({ 'a.js': 'export default 1' })],
  ['a map with no prototype and a bad entry', bare({ 'a.js': 7 })],
  [
    'a module named __proto__ in a map with no prototype',
    bare({ ['__proto__']: 'export default 1', b: 'export default 2' }),
  ],
  ['a number', 7],
  ['text', 'export default 1'],
  ['null', null],
  ['a list', ['export default 1']],
  ['a Map', new Map([['a', 'export default 1']])],
  [
    'a class instance',
    new (class Modules {
      a = 'export default 1';
    })(),
  ],
  ['a number as an entry', { 'a.js': 7 }],
  ['null as an entry', { 'a.js': null }],
  ['a list as an entry', { 'a.js': ['x'] }],
  ['source past its limit', { 'a.js': long }],
  ['js past its limit', { 'a.js': { js: long } }],
  ['cjs past its limit', { 'a.js': { cjs: long } }],
  ['js that is no text', { 'a.js': { js: 1 } }],
  ['text that is no text', { 'a.js': { text: 1 } }],
  ['data that is no text', { 'a.js': { data: false } }],
  ['an unknown kind', { 'a.js': { ts: 'x' } }],
  ['a second entry at fault', { 'a.js': 'x', 'b.js': 1 }],
  [
    'too many modules',
    Object.fromEntries(Array.from({ length: MODULE_LIMIT + 1 }, (_, index) => [`m${index}`, ''])),
  ],
  [
    'as many modules as allowed',
    Object.fromEntries(Array.from({ length: MODULE_LIMIT }, (_, index) => [`m${index}`, ''])),
  ],
];

describe('the modules option agrees with the schema', () => {
  test.each(CASES)('%s', (_, value) => {
    const schema = ModuleMapSchema.safeParse(value);
    const checked = checkModulesOption(value);
    if (schema.success) expect(checked).toStrictEqual({ modules: schema.data });
    else expect(checked).toHaveProperty('fault');
  });
});

/**
 * The fast check the option and every request share leaves to the schema what it cannot read as
 * the schema does: a key inherited from a changed Object.prototype (its for-in would see it, the
 * record does not) and a symbol key (the record refuses it).
 */
test('the fast check leaves inherited and symbol keys to the schema', () => {
  expect(checkModules({ a: 'x', [Symbol('s')]: 7 })).toBeUndefined();
  Object.defineProperty(Object.prototype, 'inherited.js', {
    value: 'export default 1',
    enumerable: true,
    writable: true,
    configurable: true,
  });
  try {
    expect(checkModules({ a: 'x' })).toBeUndefined();
  } finally {
    delete (Object.prototype as Record<string, unknown>)['inherited.js'];
  }
  expect(checkModules({ a: 'x' })).toStrictEqual({ a: 'x' });
});

describe('a refusal names the module at fault and its rule', () => {
  test.each([
    [{ 'a.js': 7 }, '["a.js"] must be module source text or an object with one of js, cjs, json, text, data'],
    [
      { ok: 'x', 'b.js': { js: 1 } },
      '["b.js"] must be module source text or an object with one of js, cjs, json, text, data',
    ],
    [
      { 'a.js': { js: long } },
      `["a.js"] must be at most ${MODULE_SOURCE_LIMIT} characters long (MODULE_SOURCE_LIMIT)`,
    ],
    [[], 'must be an object mapping module names to modules'],
    [
      Object.fromEntries(Array.from({ length: MODULE_LIMIT + 1 }, (_, index) => [`m${index}`, ''])),
      `must hold at most ${MODULE_LIMIT} entries`,
    ],
  ])('%#', (value, fault) => {
    expect(checkModulesOption(value)).toStrictEqual({ fault });
  });
});
