/**
 * The exact texts users read when they misuse an API: WebIDL conversion failures, invalid URLs,
 * used bodies, constructor rules. Each case prints `name: message` for every thunk, and groups
 * thunks by the rule that produces their text, so one difference has one cause.
 */
import { defineArea } from '../src/case.ts';

/** A program that runs each thunk and reports `name: message` of what it threw (or its value). */
const texts = (...thunks: string[]) => `async () => {
  const out = [];
  for (const f of [${thunks.map((t) => `async () => ${t}`).join(', ')}]) {
    try { const v = await f(); out.push('no error: ' + String(v)); } catch (e) { out.push(e.name + ': ' + e.message); }
  }
  return out;
}`;

export default defineArea('error-texts', [
  {
    name: 'invalid-url',
    quick: true,
    code: texts(
      `new URL('not a url')`,
      `new URL('/x', 'not a base')`,
      `new URL('http://exa mple.com')`,
      `new URL('')`,
    ),
  },
  {
    name: 'missing-arguments',
    quick: true,
    code: texts(
      `atob()`,
      `btoa()`,
      `new URL()`,
      `URL.canParse()`,
      `new URLSearchParams().append('a')`,
      `new Headers().append('a')`,
      `new Headers().get()`,
      `new Event()`,
      `new CustomEvent()`,
      `new EventTarget().addEventListener('x')`,
      `new FormData().append('only name')`,
      `new File(['x'])`,
      `structuredClone()`,
      `queueMicrotask()`,
    ),
  },
  {
    name: 'wrong-argument-types',
    code: texts(
      `new Blob('abc')`,
      `new FormData('x')`,
      `AbortSignal.any('x')`,
      `new EventTarget().dispatchEvent('not an event')`,
      `new ReadableStream().pipeTo('x')`,
      `new TextEncoder().encodeInto('x', [])`,
      `crypto.getRandomValues(new ArrayBuffer(4))`,
      `new Headers(42)`,
    ),
  },
  { name: 'fetch-url-errors', code: texts(`fetch('/relative')`, `fetch('not a url')`, `fetch('http://')`) },
  {
    name: 'fetch-unsupported-scheme',
    code: texts(
      `fetch('ftp://example.com/')`,
      `fetch('file:///etc/hosts')`,
      `fetch('data:text/plain,hi').then((r) => r.status)`,
    ),
  },
  {
    name: 'request-constructor-errors',
    code: texts(
      `new Request('/relative')`,
      `new Request('not a url')`,
      `new Request('http://x/', { method: 'BAD METHOD' })`,
      `new Request('http://x/', { method: 'HEAD', body: 'b' })`,
    ),
  },
  {
    name: 'response-redirect-errors',
    code: texts(`Response.redirect('/rel', 302)`, `Response.redirect('http://x/', 200)`),
  },
  {
    name: 'response-status-errors',
    code: texts(
      `new Response('x', { status: 600 })`,
      `new Response('x', { status: 204 })`,
      `new Response('x', { statusText: 'bad\\n' })`,
    ),
  },
  {
    name: 'used-body',
    code: `async () => {
  const r = new Response('a');
  await r.text();
  const out = [];
  for (const f of [() => r.text(), () => r.json(), () => r.arrayBuffer(), () => r.clone()]) {
    try { await f(); out.push('ok'); } catch (e) { out.push(e.name + ': ' + e.message); }
  }
  return out;
}`,
  },
  {
    name: 'disturbed-body-as-body',
    code: `async () => {
  const used = new Response('a');
  await used.text();
  try { new Response(used.body); return 'accepted'; } catch (e) { return e.name + ': ' + e.message; }
}`,
  },
  {
    name: 'locked-body',
    code: `async () => {
  const r = new Response('a');
  r.body.getReader();
  try { await r.text(); return 'read'; } catch (e) { return e.name + ': ' + e.message; }
}`,
  },
  {
    name: 'header-validation',
    code: texts(
      `new Headers({ 'bad name': 'x' })`,
      `new Headers({ a: 'x\\ny' })`,
      `new Headers().set('é', 'x')`,
      `new Headers().append('a', 'nul\\u0000')`,
    ),
  },
  { name: 'header-pair-length', code: texts(`new Headers([['a']])`, `new Headers([['a', 'b', 'c']])`) },
  {
    name: 'text-decoder-texts',
    code: texts(
      `new TextDecoder('nope')`,
      `new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([0xc3]))`,
      `new TextDecoder('replacement')`,
    ),
  },
  { name: 'base64-texts', code: texts(`atob('*')`, `btoa('\\u0100')`, `atob('abcde')`) },
  {
    name: 'structured-clone-texts',
    code: texts(
      `structuredClone(() => 1)`,
      `structuredClone(Symbol('x'))`,
      `structuredClone(new WeakSet())`,
      `structuredClone({ f() {} })`,
    ),
  },
  {
    name: 'abort-texts',
    code: texts(
      `new AbortSignal()`,
      `AbortSignal.abort().throwIfAborted()`,
      `AbortSignal.timeout(10).throwIfAborted()`,
    ),
  },
  {
    name: 'abort-timeout-conversion',
    code: texts(`AbortSignal.timeout(-1).aborted`, `AbortSignal.timeout('soon').aborted`),
  },
  {
    name: 'crypto-texts',
    code: texts(
      `crypto.getRandomValues(new Float32Array(1))`,
      `crypto.subtle.digest('SHA-256', 'text')`,
      `crypto.subtle.importKey('raw', new Uint8Array(3), 'AES-GCM', false, ['encrypt'])`,
    ),
  },
  {
    name: 'timer-and-microtask-texts',
    code: texts(`queueMicrotask(5)`, `setTimeout(() => {}, 5n)`, `clearTimeout()`),
  },
  {
    name: 'stream-texts',
    code: texts(
      `new ReadableStream({ type: 'nope' })`,
      `new ReadableStream().getReader({ mode: 'nope' })`,
      `(() => { const s = new ReadableStream(); s.getReader(); return s.getReader(); })()`,
    ),
  },
  {
    name: 'illegal-invocation',
    code: texts(
      `Headers.prototype.get.call({}, 'a')`,
      `URL.prototype.toString.call({})`,
      `Response.prototype.text.call({})`,
      `(0, crypto.randomUUID)()`,
    ),
  },
  {
    name: 'search-params-texts',
    code: texts(`new URLSearchParams([['a']])`, `new URLSearchParams([['a', 'b', 'c']])`),
  },
]);
