/**
 * console.log, warn and error under the protocol's rule: String of each argument, single spaces.
 * One case per kind of value, so a difference names the value that formats differently. The
 * `inspect-` cases ask for `consoleFormat: 'inspect'` and compare the executor's workerd format
 * with workerd's own console output (docs/compat.md, "One case, both sides").
 */
import { type Case, defineArea } from '../src/case.ts';

/** Cases that compare workerd's own console format with the executor's (consoleFormat 'inspect'). */
function inspecting(cases: readonly Case[]): Case[] {
  return cases.map((item) => ({ ...item, consoleFormat: 'inspect' }));
}

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
  ...inspecting([
    {
      name: 'inspect-objects',
      quick: true,
      code: `async () => { console.log({ a: 1, b: 'two', c: true }, {}, { nested: { deep: { deeper: { deepest: 1 } } } }, { 'odd key': 1, 2: 'numeric' }); }`,
    },
    {
      name: 'inspect-arrays',
      code: `async () => { console.log([1, 'a', null], [], [[1, [2, [3, [4]]]]], [undefined, , 3], Object.assign([1, 2], { extra: true })); }`,
    },
    {
      name: 'inspect-long-arrays',
      code: `async () => { console.log(Array.from({ length: 120 }, (_, i) => i)); console.log(Array.from({ length: 30 }, (_, i) => 'item number ' + i)); console.log(new Uint8Array(40)); }`,
    },
    {
      name: 'inspect-maps-and-sets',
      quick: true,
      code: `async () => { console.log(new Map([[1, { a: 1 }], ['k', [1]]]), new Set([1, 'two', { three: 3 }]), new Map(), new Set(), new WeakMap(), new WeakSet()); }`,
    },
    {
      name: 'inspect-errors',
      code: `async () => {
  const framed = (error) => { error.stack = error.name + ': ' + error.message + '\\n    at program (program.js:1:1)'; return error; };
  console.log(framed(new Error('plain')));
  console.log(framed(new TypeError('typed')), { inside: framed(new RangeError('in an object')) });
  console.log(framed(Object.assign(new Error('with fields'), { code: 'E_CODE', status: 404 })));
  const bare = new Error('no stack'); bare.stack = undefined; console.log(bare);
}`,
    },
    { name: 'inspect-error-stack', code: `async () => { console.error(new Error('with its frames')); }` },
    {
      name: 'inspect-class-instances',
      code: `async () => { class Box { constructor() { this.x = 1; } } class Empty {} class Child extends Box { constructor() { super(); this.y = [2]; } } console.log(new Box(), new Empty(), new Child(), Object.create(null), Object.assign(Object.create(null), { a: 1 })); }`,
    },
    {
      name: 'inspect-strings-with-quotes',
      code: `async () => { console.log('plain', "it's", 'say "hi"', \`both ' and "\`); console.log(["it's", 'say "hi"', \`both ' and "\`, 'line\\nbreak', 'tab\\there']); console.log({ s: "it's", t: '\\u00e9\\u0000' }); }`,
    },
    {
      name: 'inspect-numbers',
      code: `async () => { console.log(-0, 0, NaN, Infinity, -Infinity, 1.5e21, 0.1 + 0.2, 10n, -5n); console.log([-0, NaN, 1e-7], { n: -0, big: 2n ** 64n }); }`,
    },
    {
      name: 'inspect-symbols',
      code: `async () => { console.log(Symbol('tag'), Symbol(), Symbol.iterator, Symbol.for('registered'), { [Symbol('key')]: 1, plain: Symbol('value') }, [Symbol('in a list')]); }`,
    },
    {
      name: 'inspect-undefined-and-null',
      code: `async () => { console.log(undefined, null, [undefined, null], { u: undefined, n: null }); console.log(); console.log(undefined); }`,
    },
    {
      name: 'inspect-circular',
      code: `async () => { const a = { name: 'a' }; a.self = a; const list = [1]; list.push(list); const b = { name: 'b' }; const c = { b }; b.c = c; console.log(a, list, c); }`,
    },
    {
      name: 'inspect-functions',
      code: `async () => { function named() {} class Box {} console.log(named, Box, () => 1, async function asyncNamed() {}, function* generator() {}, Object.assign(function withProps() {}, { extra: 1 })); }`,
    },
    {
      name: 'inspect-format-specifiers',
      code: `async () => { console.log('%s is %d years, %i, %f', 'Ada', 36.5, 42.9, '1.5'); console.log('%o and %O', { a: [1] }, { b: 1 }); console.log('%j %% %c styled', { c: 1 }, 'color: red'); console.log('%s', { s: 1 }, 'extra', 2); }`,
    },
    {
      name: 'inspect-levels',
      code: `async () => { console.log({ level: 'log' }); console.warn({ level: 'warn' }, [1]); console.error({ level: 'error' }, new Set([1])); }`,
    },
    {
      name: 'inspect-dates-and-regexps',
      code: `async () => { console.log(new Date(0), new Date(NaN), /re+/gi, { when: new Date(Date.UTC(2024, 1, 29)) }); }`,
    },
    {
      name: 'inspect-promises',
      code: `async () => { const pending = new Promise(() => {}); const settled = Promise.resolve(1); const failed = Promise.reject(new Error('no')); failed.catch(() => {}); await null; console.log(pending, settled, failed); }`,
    },
    {
      name: 'inspect-binary',
      code: `async () => { console.log(new Uint8Array([1, 2, 3]), new ArrayBuffer(4), new DataView(new ArrayBuffer(2)), new Float64Array([1.5, -0])); }`,
    },
    {
      name: 'inspect-web-objects',
      code: `async () => { console.log(new URL('https://example.com/a?b'), new URLSearchParams('a=1&b=2'), new Headers({ a: '1' })); console.log(new Response('x'), new Blob(['x']), new AbortController().signal, new Event('e')); }`,
    },
    {
      name: 'inspect-tool-results',
      tools: ['github'],
      code: `async () => { const issues = await github.listIssues({ repo: 'acme/app', state: 'open' }); console.log('found', issues); console.log(issues[0]); return issues.length; }`,
    },
  ]),
]);
