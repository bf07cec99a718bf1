/**
 * The canonical text a request is hashed by: one text for one value whatever the key order, and
 * a TypeError naming the path for anything plain JSON would change silently.
 */
import { expect, test } from 'vitest';
import { CANONICAL_DEPTH_LIMIT, canonicalHash, canonicalJson } from '../../src/durable/index.ts';

test('keys are sorted by UTF-16 code units at every depth; no whitespace', () => {
  expect(canonicalJson({ b: 1, a: [{ z: true, y: null }], A: 'x', é: 2, '😀': 3, '\uffff': 4 })).toBe(
    '{"A":"x","a":[{"y":null,"z":true}],"b":1,"é":2,"😀":3,"\uffff":4}',
  );
});

test('numbers and strings as JSON.stringify writes them, lone surrogates escaped', () => {
  expect(canonicalJson([1e21, 0.1, -0, 5e-7, 'a"\n\u2028', '\ud800'])).toBe(
    '[1e+21,0.1,0,5e-7,"a\\"\\n\u2028","\\ud800"]',
  );
});

test('a property whose value is undefined counts as absent', () => {
  expect(canonicalJson({ a: 1, b: undefined })).toBe(canonicalJson({ a: 1 }));
  expect(canonicalJson(Object.create(null))).toBe('{}');
});

test('the hash is the same for the same data, differs for other data or another domain', () => {
  const request = { code: 'async () => 1', modules: { 'a.js': 'x' } };
  const hash = canonicalHash('request', request);
  expect(hash).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(canonicalHash('request', { modules: { 'a.js': 'x' }, code: 'async () => 1' })).toBe(hash);
  expect(canonicalHash('request', { ...request, code: 'async () => 2' })).not.toBe(hash);
  expect(canonicalHash('other', request)).not.toBe(hash);
  // Structure is part of the text: a string that spells an object is not that object.
  expect(canonicalHash('request', { a: '{"b":1}' })).not.toBe(canonicalHash('request', { a: { b: 1 } }));
});

/** [1, <hole>, <hole>]: an array with nothing at its second and third places. */
function sparse(): unknown[] {
  const array: unknown[] = [1];
  array.length = 3;
  return array;
}

test.each([
  ['NaN', { a: Number.NaN }, '$.a is not a finite number'],
  ['Infinity', [Number.POSITIVE_INFINITY], '$[0] is not a finite number'],
  ['a function', { a: { b: () => 1 } }, '$.a.b is function, which JSON cannot hold'],
  ['a BigInt', { n: 1n }, '$.n is bigint, which JSON cannot hold'],
  ['a symbol', [Symbol('s')], '$[0] is symbol, which JSON cannot hold'],
  ['undefined in an array', [1, undefined], '$[1] is undefined'],
  ['a hole in an array', sparse(), '$[1] is undefined'],
  ['a Date', { when: new Date(0) }, '$.when is not a plain object'],
  ['a Map', { m: new Map() }, '$.m is not a plain object'],
  ['bytes', { b: new Uint8Array(2) }, '$.b is not a plain object'],
])('%s is refused with its path', (_name, value, rule) => {
  expect(() => canonicalJson(value)).toThrow(
    new TypeError(`A durable request part ${rule}: request parts must be plain JSON data.`),
  );
});

test('a cycle is refused; the same object twice in one value is not a cycle', () => {
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  expect(() => canonicalJson(cyclic)).toThrow('$.self refers back to itself');
  const shared = { x: 1 };
  expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
});

test('nesting past the depth limit is refused, not a stack overflow', () => {
  let deep: unknown = 1;
  for (let depth = 0; depth < CANONICAL_DEPTH_LIMIT; depth++) deep = [deep];
  expect(canonicalJson(deep)).toBe(
    `${'['.repeat(CANONICAL_DEPTH_LIMIT)}1${']'.repeat(CANONICAL_DEPTH_LIMIT)}`,
  );
  expect(() => canonicalJson([deep])).toThrow(`nests deeper than ${CANONICAL_DEPTH_LIMIT} levels`);
  let deeper: unknown = 1;
  for (let depth = 0; depth < 100_000; depth++) deeper = { d: deeper };
  expect(() => canonicalJson(deeper)).toThrow(TypeError);
});

test('a path longer than an echo is cut in the message', () => {
  const key = 'k'.repeat(10_000);
  expect(() => canonicalJson({ [key]: Number.NaN })).toThrow(/characters\) is not a finite number/);
});
