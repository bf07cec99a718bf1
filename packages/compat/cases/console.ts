/**
 * console.log, warn and error under the protocol's rule: String of each argument, single spaces.
 * One case per kind of value, so a difference names the value that formats differently.
 */
import { defineArea } from '../src/case.ts';

export default defineArea('console', [
  {
    name: 'strings-and-numbers',
    quick: true,
    code: `async () => { console.log('count:', 42, -0, 1.5e21, NaN, -Infinity, 0.1 + 0.2); }`,
  },
  {
    name: 'levels',
    quick: true,
    code: `async () => { console.log('a'); console.warn('b'); console.error('c'); console.info('info is silent'); console.debug('debug is silent'); }`,
  },
  {
    name: 'objects-and-arrays',
    code: `async () => { console.log({ a: 1 }, [1, [2, [3]]], [], [null, undefined, 'x'], { toString() { return 'custom'; } }); }`,
  },
  { name: 'null-undefined-booleans', code: `async () => { console.log(null, undefined, true, false, ''); }` },
  {
    name: 'symbols-and-bigints',
    code: `async () => { console.log(Symbol('tag'), Symbol(), Symbol.iterator, 10n, -12345678901234567890n); }`,
  },
  {
    name: 'functions-and-classes',
    code: `async () => { function named(a, b) { return a + b; } class Box { constructor() { this.x = 1; } } console.log(named, Box, (x) => x * 2, async () => {}, Math.max); }`,
  },
  {
    name: 'errors',
    quick: true,
    code: `async () => { console.error(new Error('plain'), new TypeError('typed'), Object.assign(new Error('with name'), { name: 'CustomError' })); }`,
  },
  {
    name: 'dates',
    code: `async () => { console.log(new Date(0), new Date(Date.UTC(2024, 1, 29, 12, 30)), new Date(NaN)); }`,
  },
  {
    name: 'collections',
    code: `async () => { console.log(new Map([[1, 2]]), new Set([1]), new WeakMap(), Promise.resolve(1), /re+/g, new Uint8Array([1, 2, 3]), new ArrayBuffer(4)); }`,
  },
  {
    name: 'web-objects',
    code: `async () => { console.log(new URL('https://example.com/a?b'), new URLSearchParams('a=1&b=2'), new Headers({ a: '1' }), new Response('x'), new Blob(['x']), new AbortController().signal, new Event('e')); }`,
  },
  {
    name: 'null-prototype-object',
    code: `async () => { console.log('before'); console.log(Object.create(null)); console.log('after'); return 'done'; }`,
  },
  {
    name: 'throwing-to-string',
    code: `async () => { try { console.log({ toString() { throw new Error('no string for you'); } }); return 'logged'; } catch (e) { return 'threw: ' + e.message; } }`,
  },
  {
    name: 'no-arguments-and-spacing',
    code: `async () => { console.log(); console.log(''); console.log(' padded ', ' '); console.log('a', '', 'b'); }`,
  },
  {
    name: 'format-specifiers-not-applied',
    code: `async () => { console.log('%s is %d years', 'Ada', 36); console.log('%o %j %%', { a: 1 }); }`,
  },
  {
    name: 'multiline-and-unicode',
    code: `async () => { console.log('line 1\\nline 2\\ttabbed'); console.warn('é ✓ 😀 \\u0000 \\u001b[31mred'); }`,
  },
  {
    name: 'tool-results-logged',
    tools: ['github'],
    code: `async () => {
  const issues = await github.listIssues({ repo: 'acme/app', state: 'open' });
  for (const issue of issues) console.log('#' + issue.number, issue.title, issue.labels);
  console.log('total', issues.length, issues[0]);
  return issues.length;
}`,
  },
  {
    name: 'other-methods-silent',
    code: `async () => { console.table([{ a: 1 }]); console.dir({ a: 1 }); console.trace('t'); console.group('g'); console.log('inside group'); console.groupEnd(); console.assert(false, 'failed'); console.count(); console.time('x'); console.timeEnd('x'); return 'ok'; }`,
  },
  {
    name: 'console-shape',
    code: `async () => ({
  keys: Object.keys(console).sort(),
  tag: Object.prototype.toString.call(console),
  table: typeof console.table, createTask: typeof console.createTask,
  logReturns: console.log('x'),
})`,
  },
  { name: 'console-key-order', code: `async () => Object.keys(console).slice(0, 6)` },
  {
    name: 'boxed-primitives-and-proxies',
    code: `async () => { console.log(new String('s'), new Number(5), new Boolean(false), new Proxy([1, 2], {}), Object(1n)); }`,
  },
  {
    name: 'logging-during-await',
    tools: ['math'],
    code: `async () => { console.log('start'); const v = await math.add(2, 3); console.warn('got', v); const w = await math.divide(v, 2); console.log('half', w); return w; }`,
  },
]);
