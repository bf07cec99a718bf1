/** structuredClone (HTML "StructuredSerializeInternal" / "StructuredDeserialize"). */
import { expect, test } from 'vitest';
import { useSandbox } from '../helpers.ts';

const sandbox = useSandbox();
const run = async (code: string) => (await sandbox.execute({ code })).result;

test('cycles and shared references survive', async () => {
  expect(
    await run(`async () => {
  const shared = { n: 1 };
  const value = { a: shared, b: shared, list: [shared] };
  value.self = value;
  const copy = structuredClone(value);
  return [copy !== value, copy.self === copy, copy.a === copy.b, copy.list[0] === copy.a, copy.a !== shared];
}`),
  ).toStrictEqual([true, true, true, true, true]);
});

test('Map, Set, Date, RegExp, wrappers, typed arrays over one buffer, errors', async () => {
  expect(
    await run(`async () => {
  const buffer = new ArrayBuffer(8);
  const value = {
    map: new Map([[1, { x: 1 }]]), set: new Set(['a']), date: new Date(5), regexp: /a+/gi,
    boxed: [Object(1), Object('s'), Object(true), Object(2n)],
    views: [new Uint8Array(buffer, 2, 2), new Int16Array(buffer)], error: new RangeError('bad range'),
  };
  const copy = structuredClone(value);
  return [copy.map.get(1).x, copy.set.has('a'), copy.date.getTime(), copy.regexp.source + copy.regexp.flags,
    copy.boxed.map((b) => typeof b + ':' + b.valueOf()), copy.views[0].buffer === copy.views[1].buffer, copy.views[0].byteOffset,
    copy.error instanceof RangeError, copy.error.message];
}`),
  ).toStrictEqual([
    1,
    true,
    5,
    'a+gi',
    ['object:1', 'object:s', 'object:true', 'object:2'],
    true,
    2,
    true,
    'bad range',
  ]);
});

test('functions and symbols are DataCloneErrors with workerd text', async () => {
  expect(
    await run(`async () => {
  const out = [];
  for (const value of [() => 1, Symbol('x'), { f() {} }, new WeakMap(), Promise.resolve()]) {
    try { structuredClone(value) } catch (e) { out.push(e.name + ': ' + e.message) }
  }
  return out;
}`),
  ).toStrictEqual([
    'DataCloneError: () => 1 could not be cloned.',
    'DataCloneError: Symbol(x) could not be cloned.',
    'DataCloneError: f() {} could not be cloned.',
    'DataCloneError: #<WeakMap> could not be cloned.',
    'DataCloneError: #<Promise> could not be cloned.',
  ]);
});

test('class instances lose their prototype; runtime objects are not serializable', async () => {
  expect(
    await run(`async () => {
  class Point { constructor() { this.x = 1 } }
  const copy = structuredClone(new Point());
  let platform;
  try { structuredClone(new AbortController()) } catch (e) { platform = e.name }
  return [Object.getPrototypeOf(copy) === Object.prototype, copy.x, platform];
}`),
  ).toStrictEqual([true, 1, 'DataCloneError']);
});

test('transfer detaches the original buffer', async () => {
  expect(
    await run(`async () => {
  const buffer = new Uint8Array([1, 2, 3]).buffer;
  const copy = structuredClone({ buffer }, { transfer: [buffer] });
  return [buffer.byteLength, [...new Uint8Array(copy.buffer)]];
}`),
  ).toStrictEqual([0, [1, 2, 3]]);
});

test('no argument is workerd TypeError', async () => {
  expect(await run(`async () => { try { structuredClone() } catch (e) { return e.message } }`)).toBe(
    "Failed to execute 'structuredClone' on 'ServiceWorkerGlobalScope': parameter 1 is not of type 'Value'.",
  );
});
