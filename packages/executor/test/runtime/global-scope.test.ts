/**
 * The global scope as workerd shows it: native functions (length 0, native source), and the
 * clock frozen at the epoch at a module's top level.
 */
import { describe, expect, test } from 'vitest';
import { useSandbox } from '../helpers.ts';

const sandbox = useSandbox();

describe('native functions', () => {
  test('every function the runtime and the sandbox publish has length 0 and reads as native code', async () => {
    const envelope = await sandbox.execute({
      code: `async () => {
  const odd = [];
  const seen = new Set();
  const check = (path, fn) => {
    if (seen.has(fn)) return;
    seen.add(fn);
    const source = Function.prototype.toString.call(fn);
    if (fn.length !== 0) odd.push(path + ' has length ' + fn.length);
    if (source !== 'function ' + fn.name + '() { [native code] }' && !(fn.name === '' && source === 'function () { [native code] }'))
      odd.push(path + ' reads ' + source.slice(0, 40));
  };
  const members = (path, target) => {
    for (const key of Reflect.ownKeys(target)) {
      if (key === 'constructor' || key === 'prototype' || key === 'length' || key === 'name') continue;
      const descriptor = Object.getOwnPropertyDescriptor(target, key);
      for (const fn of [descriptor.value, descriptor.get, descriptor.set]) if (typeof fn === 'function') check(path + '.' + String(key), fn);
    }
  };
  const names = ['atob', 'btoa', 'fetch', 'structuredClone', 'reportError', 'addEventListener', 'dispatchEvent', 'setTimeout',
    'setInterval', 'clearTimeout', 'clearInterval', 'queueMicrotask', 'URL', 'URLSearchParams', 'Headers', 'Request', 'Response',
    'Blob', 'File', 'FormData', 'Event', 'EventTarget', 'CustomEvent', 'ErrorEvent', 'AbortController', 'AbortSignal', 'DOMException',
    'TextEncoder', 'TextDecoder', 'ReadableStream', 'WritableStream', 'TransformStream', 'ReadableStreamDefaultReader',
    'CountQueuingStrategy', 'Crypto', 'SubtleCrypto', 'CryptoKey'];
  for (const name of names) {
    const value = globalThis[name];
    check(name, value);
    members(name, value);
    members(name + '.prototype', value.prototype ?? {});
  }
  for (const [name, value] of [['crypto', crypto], ['crypto.subtle', crypto.subtle], ['performance', performance], ['console', console]]) {
    members(name, value);
    members(name + ' prototype', Object.getPrototypeOf(value));
  }
  const mine = function mine(a, b) { return a + b };
  let refused;
  try { Function.prototype.toString.call({}) } catch (e) { refused = e.constructor.name }
  return { odd, toString: String(Function.prototype.toString), mine: String(mine), refused, date: String(Date) };
}`,
    });
    expect(envelope.result).toStrictEqual({
      // console.context is V8's, whose length is 1 in workerd too.
      odd: ['console.context has length 1'],
      toString: 'function toString() { [native code] }',
      mine: 'function mine(a, b) { return a + b }',
      refused: 'TypeError',
      date: 'function Date() { [native code] }',
    });
  });
});

describe('the clock', () => {
  test("at a module's top level Date and performance read the epoch, as in workerd; in the run they read the time", async () => {
    const envelope = await sandbox.execute({
      modules: {
        'clock.js': `export const top = [Date.now(), new Date().toISOString(), performance.now(), Date().slice(0, 24), new Date(5).getTime()];`,
      },
      code: `import { top } from './clock.js';
async () => {
  class Stamp extends Date {}
  const run = [Date.now() > 1e12, new Date().getTime() > 1e12, Math.abs(performance.now() - Date.now()) < 1000, performance.timeOrigin];
  const shape = [new Date() instanceof Date, Date.prototype.constructor === Date, Date.length, Date.name, new Stamp(0) instanceof Stamp,
    typeof Date.UTC(2020, 0), String(Date.now)];
  return { top, run, shape };
}`,
    });
    expect(envelope.result).toStrictEqual({
      top: [0, '1970-01-01T00:00:00.000Z', 0, 'Thu Jan 01 1970 00:00:00', 5],
      run: [true, true, true, 0],
      shape: [true, true, 7, 'Date', true, 'number', 'function now() { [native code] }'],
    });
  });
});

describe('bodies', () => {
  test("at a module's top level a body is refused as workerd refuses it; a bodiless Response and a stream are not", async () => {
    const envelope = await sandbox.execute({
      modules: {
        'bodies.js': `const t = (make) => { try { make(); return 'allowed' } catch (error) { return error.message.slice(0, 48) } };
export const top = [
  t(() => new Response('x')), t(() => Response.json({})), t(() => Response.redirect('http://a.test/')),
  t(() => new Request('http://a.test/', { method: 'POST', body: 'x' })), t(() => new Blob(['x']).stream()),
  t(() => new Response(null)), t(() => new Response(new ReadableStream())), t(() => new Request('http://a.test/')),
];`,
      },
      code: `import { top } from './bodies.js';
async () => ({ top, run: (await new Response('x').text()) })`,
    });
    const refused = 'Disallowed operation called within global scope.';
    expect(envelope.result).toStrictEqual({
      top: [refused, refused, refused, refused, refused, 'allowed', 'allowed', 'allowed'],
      run: 'x',
    });
  });
});
