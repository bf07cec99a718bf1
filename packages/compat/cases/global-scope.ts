/**
 * What a module's top level may do (workerd's "global scope"), and which globals a program finds.
 * The probes run at the top level of a module of the map and export what they saw.
 */
import { defineArea } from '../src/case.ts';

/** A module that runs `expression` at its top level and exports 'allowed' or the error it threw. */
const probe = (expression: string) => ({
  'probe.js': `let outcome;\ntry { ${expression}; outcome = 'allowed'; } catch (e) { outcome = e.name + ': ' + e.message; }\nexport default outcome;`,
});
const USE_PROBE = `import outcome from 'probe.js';
async () => outcome`;

export default defineArea('global-scope', [
  {
    name: 'set-timeout-at-top-level',
    quick: true,
    modules: probe('setTimeout(() => {}, 0)'),
    code: USE_PROBE,
  },
  { name: 'set-interval-at-top-level', modules: probe('setInterval(() => {}, 1000)'), code: USE_PROBE },
  {
    name: 'get-random-values-at-top-level',
    modules: probe('crypto.getRandomValues(new Uint8Array(4))'),
    code: USE_PROBE,
  },
  { name: 'random-uuid-at-top-level', modules: probe('crypto.randomUUID()'), code: USE_PROBE },
  { name: 'math-random-at-top-level', modules: probe('Math.random()'), code: USE_PROBE },
  { name: 'queue-microtask-at-top-level', modules: probe('queueMicrotask(() => {})'), code: USE_PROBE },
  { name: 'new-response-at-top-level', modules: probe("new Response('x')"), code: USE_PROBE },
  { name: 'abort-timeout-at-top-level', modules: probe('AbortSignal.timeout(10)'), code: USE_PROBE },
  {
    name: 'fetch-at-top-level',
    quick: true,
    modules: {
      'probe.js': `export const outcome = fetch('http://loopback.test/json').then(() => 'fetched', (e) => e.name + ': ' + e.message);`,
    },
    code: `import { outcome } from 'probe.js';
async () => await outcome`,
  },
  {
    name: 'clock-at-top-level',
    modules: {
      'probe.js': `export const clock = { date: Date.now(), perf: performance.now(), iso: new Date().toISOString() };`,
    },
    code: `import { clock } from 'probe.js';
async () => ({ frozen: clock.date === 0, perfZero: clock.perf === 0, iso: clock.iso, later: Date.now() > 0 })`,
  },
  {
    name: 'uncaught-timer-at-top-level',
    modules: { 'setup.js': `setTimeout(() => {}, 0);\nexport const ready = true;` },
    code: `import { ready } from 'setup.js';
async () => ready`,
  },
  {
    name: 'import-at-top-level',
    modules: {
      'loader.js': `const { greet } = await import('greeter');\nexport default greet('from a module');`,
      greeter: `export const greet = (name) => 'Hello, ' + name;`,
    },
    code: `import message from 'loader.js';
async () => message`,
  },
  {
    name: 'dynamic-import-runs-in-global-scope',
    modules: {
      'late.js': `let outcome;\ntry { setTimeout(() => {}, 0); outcome = 'allowed'; } catch (e) { outcome = e.message.slice(0, 38); }\nexport default outcome;`,
    },
    code: `async () => {
  const late = await import('late.js');
  const inRun = typeof setTimeout(() => {}, 0);
  return { moduleTopLevel: late.default, inRun };
}`,
  },
  {
    name: 'digest-at-top-level',
    modules: {
      'hash.js': `const bytes = await crypto.subtle.digest('SHA-256', new Uint8Array([1]));\nexport const first = new Uint8Array(bytes)[0];`,
    },
    code: `import { first } from 'hash.js';
async () => first`,
  },
  {
    name: 'no-node-globals',
    quick: true,
    code: `async () => ({ process: typeof process, require: typeof require, Buffer: typeof Buffer, global: typeof global, module: typeof module, exports: typeof exports, dirname: typeof __dirname, setImmediate: typeof setImmediate })`,
  },
  {
    name: 'navigator',
    code: `async () => ({ userAgent: navigator.userAgent, tag: String(navigator), language: navigator.language, hardwareConcurrency: navigator.hardwareConcurrency })`,
  },
  {
    name: 'global-object-identity',
    code: `async () => ({ self: self === globalThis, tag: Object.prototype.toString.call(globalThis), origin: globalThis.origin })`,
  },
  {
    name: 'performance-clock',
    code: `async () => ({ now: typeof performance.now(), timeOrigin: performance.timeOrigin, nowIsEpoch: Math.abs(performance.now() - Date.now()) < 1000 })`,
  },
  {
    name: 'workers-web-globals',
    code: `async () => Object.fromEntries(['URLPattern', 'HTMLRewriter', 'WebSocket', 'caches', 'scheduler', 'EventSource', 'MessageChannel', 'CompressionStream', 'reportError', 'structuredClone', 'Cloudflare', 'FixedLengthStream'].map((name) => [name, typeof globalThis[name]]))`,
  },
  {
    name: 'function-lengths',
    code: `async () => Object.fromEntries(Object.entries({ atob, btoa, queueMicrotask, setTimeout, clearTimeout, fetch, structuredClone, reportError,
  Headers, Request, Response, URL, URLSearchParams, Event, EventTarget, AbortController, Blob, FormData, TextDecoder, ReadableStream,
  'Headers#append': Headers.prototype.append, 'Response.json': Response.json, 'crypto.getRandomValues': crypto.getRandomValues, 'crypto.subtle.digest': crypto.subtle.digest }).map(([name, f]) => [name, f.length]))`,
  },
  {
    name: 'tool-call-in-run-scope',
    tools: ['kv'],
    modules: { 'store.js': `export const pending = [];\nexport const remember = (v) => pending.push(v);` },
    code: `import { pending, remember } from 'store.js';
async () => {
  remember('a');
  remember('b');
  for (const [i, v] of pending.entries()) await kv.set('k' + i, v);
  return await kv.list();
}`,
  },
]);
