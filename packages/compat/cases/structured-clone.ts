/** structuredClone: what survives a clone, what is refused, and with which DOMException. */
import { defineArea } from '../src/case.ts';

export default defineArea('structured-clone', [
  {
    name: 'deep-copy-is-independent',
    quick: true,
    code: `async () => {
  const original = { user: { name: 'Ada', tags: ['a', 'b'] }, n: 1 };
  const copy = structuredClone(original);
  copy.user.tags.push('c');
  copy.user.name = 'Grace';
  return { original, copy, distinct: copy.user !== original.user };
}`,
  },
  {
    name: 'cycles-preserved',
    quick: true,
    code: `async () => {
  const a = { name: 'a' };
  a.self = a;
  a.list = [a, { back: a }];
  const b = structuredClone(a);
  return { selfCycle: b.self === b, inList: b.list[0] === b, nested: b.list[1].back === b, notOriginal: b !== a };
}`,
  },
  {
    name: 'map-and-set',
    code: `async () => {
  const key = { id: 1 };
  const m = new Map([[key, 'object key'], ['s', new Set([1, 2, key])]]);
  const c = structuredClone(m);
  const [k2] = c.keys();
  return { size: c.size, isMap: c instanceof Map, keyCloned: k2 !== key, keyShared: c.get('s').has(k2), values: [...c.get('s')].length };
}`,
  },
  {
    name: 'date-and-regexp',
    code: `async () => {
  const re = /ab+c/gi;
  re.lastIndex = 3;
  const [d, r] = structuredClone([new Date(0), re]);
  return { date: d.toISOString(), isDate: d instanceof Date, source: r.source, flags: r.flags, lastIndex: r.lastIndex };
}`,
  },
  {
    name: 'typed-arrays-share-buffer',
    code: `async () => {
  const buffer = new ArrayBuffer(8);
  const whole = new Uint8Array(buffer);
  const part = new Uint16Array(buffer, 2, 2);
  whole.set([1, 2, 3, 4, 5, 6, 7, 8]);
  const [w, p] = structuredClone([whole, part]);
  w[2] = 99;
  return { sameBuffer: w.buffer === p.buffer, p: Array.from(p), type: p.constructor.name, offset: p.byteOffset, original: whole[2] };
}`,
  },
  {
    name: 'errors',
    code: `async () => {
  const errors = structuredClone([new Error('plain'), new TypeError('typed'), new RangeError('range'), Object.assign(new Error('with extra'), { code: 'E1' })]);
  return errors.map((e) => ({ name: e.name, message: e.message, proto: Object.getPrototypeOf(e).constructor.name, code: e.code, hasStack: typeof e.stack }));
}`,
  },
  {
    name: 'function-refused',
    quick: true,
    code: `async () => {
  try { structuredClone({ handler: () => 1 }); return 'cloned'; }
  catch (e) { return { name: e.name, code: e.code, message: e.message, isDOMException: e instanceof DOMException }; }
}`,
  },
  {
    name: 'symbol-refused',
    code: `async () => {
  try { structuredClone(Symbol('token')); return 'cloned'; }
  catch (e) { return { name: e.name, code: e.code, message: e.message }; }
}`,
  },
  {
    name: 'missing-argument',
    code: `async () => {
  try { return { value: structuredClone() }; }
  catch (e) { return e.name + ': ' + e.message; }
}`,
  },
  {
    name: 'class-instances-become-plain',
    code: `async () => {
  class Point { constructor(x, y) { this.x = x; this.y = y; } get sum() { return this.x + this.y; } norm() { return 0; } }
  const c = structuredClone(new Point(1, 2));
  return { c, isPoint: c instanceof Point, proto: Object.getPrototypeOf(c) === Object.prototype, sum: c.sum, norm: typeof c.norm };
}`,
  },
  {
    name: 'getters-are-read',
    code: `async () => {
  let reads = 0;
  const source = { get value() { reads++; return 'computed'; } };
  const c = structuredClone(source);
  return { c, reads, descriptor: Object.getOwnPropertyDescriptor(c, 'value') };
}`,
  },
  {
    name: 'transfer-detaches',
    code: `async () => {
  const buffer = new Uint8Array([1, 2, 3]).buffer;
  const moved = structuredClone(buffer, { transfer: [buffer] });
  return { before: 3, after: buffer.byteLength, moved: Array.from(new Uint8Array(moved)), detached: buffer.detached };
}`,
  },
  {
    name: 'shared-references',
    code: `async () => {
  const shared = { n: 1 };
  const c = structuredClone({ a: shared, b: shared, list: [shared] });
  return { ab: c.a === c.b, list: c.list[0] === c.a };
}`,
  },
  {
    name: 'primitives-and-wrappers',
    code: `async () => {
  const c = structuredClone({ big: 12345678901234567890n, neg0: -0, nan: NaN, inf: -Infinity, u: undefined, str: new String('s'), num: new Number(3), bool: new Boolean(false) });
  return { big: String(c.big), neg0: Object.is(c.neg0, -0), nan: Number.isNaN(c.nan), inf: c.inf === -Infinity, hasU: 'u' in c, str: typeof c.str + ':' + c.str, num: typeof c.num, bool: c.bool.valueOf() };
}`,
  },
  {
    name: 'sparse-arrays-and-props',
    code: `async () => {
  const arr = [1, , 3];
  arr.extra = 'kept?';
  const c = structuredClone(arr);
  return { length: c.length, has1: 1 in c, extra: c.extra, keys: Object.keys(c) };
}`,
  },
  {
    name: 'error-cause',
    code: `async () => {
  const copy = structuredClone(new Error('outer', { cause: new Error('inner') }));
  return { message: copy.message, hasCause: 'cause' in copy, cause: copy.cause?.message ?? null };
}`,
  },
  {
    name: 'clone-tool-result-before-mutating',
    tools: ['github'],
    code: `async () => {
  const issues = await github.listIssues({ repo: 'acme/app', state: 'all' });
  const snapshot = structuredClone(issues);
  issues.forEach((issue) => { issue.title = issue.title.toUpperCase(); });
  return { before: snapshot.map((i) => i.title), after: issues.map((i) => i.title) };
}`,
  },
  {
    name: 'non-cloneable-host-objects',
    code: `async () => ['request', 'promise', 'weakmap'].map((kind) => {
  const value = kind === 'request' ? new Request('https://example.com/') : kind === 'promise' ? Promise.resolve(1) : new WeakMap();
  try { structuredClone(value); return kind + ': cloned'; } catch (e) { return kind + ': ' + e.name + ': ' + e.message; }
})`,
  },
]);
