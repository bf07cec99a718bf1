/** AbortController and AbortSignal: abort, reasons, timeout, any, and what aborting a fetch does. */
import { defineArea } from '../src/case.ts';

export default defineArea('abort', [
  {
    name: 'abort-default-reason',
    quick: true,
    code: `async () => {
  const controller = new AbortController();
  const before = controller.signal.aborted;
  controller.abort();
  const reason = controller.signal.reason;
  return { before, after: controller.signal.aborted, name: reason.name, message: reason.message, code: reason.code, isDOMException: reason instanceof DOMException };
}`,
  },
  {
    name: 'abort-custom-reason',
    code: `async () => {
  const controller = new AbortController();
  controller.abort(new Error('user cancelled'));
  const again = new AbortController();
  again.abort('just a string');
  return { message: controller.signal.reason.message, string: again.signal.reason };
}`,
  },
  {
    name: 'abort-event-fires-once',
    quick: true,
    code: `async () => {
  const controller = new AbortController();
  const calls = [];
  controller.signal.addEventListener('abort', (event) => calls.push('listener:' + event.type));
  controller.signal.onabort = () => calls.push('onabort');
  controller.abort('first');
  controller.abort('second');
  return { calls, reason: controller.signal.reason };
}`,
  },
  {
    name: 'throw-if-aborted',
    code: `async () => {
  const controller = new AbortController();
  controller.signal.throwIfAborted();
  controller.abort(new RangeError('stop now'));
  try { controller.signal.throwIfAborted(); return 'no throw'; } catch (e) { return e.name + ': ' + e.message; }
}`,
  },
  {
    name: 'static-abort',
    code: `async () => {
  const signal = AbortSignal.abort();
  const custom = AbortSignal.abort('why');
  return { aborted: signal.aborted, name: signal.reason.name, custom: custom.reason };
}`,
  },
  {
    name: 'timeout-signal',
    code: `async () => {
  const signal = AbortSignal.timeout(30);
  const before = signal.aborted;
  await new Promise((resolve) => signal.addEventListener('abort', resolve));
  return { before, after: signal.aborted, name: signal.reason.name, message: signal.reason.message, code: signal.reason.code };
}`,
  },
  {
    name: 'any-signal',
    code: `async () => {
  const a = new AbortController();
  const b = new AbortController();
  const combined = AbortSignal.any([a.signal, b.signal]);
  const before = combined.aborted;
  b.abort('b went first');
  a.abort('a second');
  return { before, after: combined.aborted, reason: combined.reason, alreadyAborted: AbortSignal.any([AbortSignal.abort('pre')]).reason };
}`,
  },
  {
    name: 'fetch-with-aborted-signal',
    code: `async () => {
  try { await fetch('http://loopback.test/json', { signal: AbortSignal.abort() }); return 'fetched'; }
  catch (e) { return { name: e.name, message: e.message }; }
}`,
  },
  {
    name: 'abort-hanging-fetch',
    quick: true,
    code: `async () => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 50);
  try { await fetch('http://loopback.test/hang', { signal: controller.signal }); return 'fetched'; }
  catch (e) { return { name: e.name, message: e.message, aborted: controller.signal.aborted }; }
}`,
  },
  {
    name: 'fetch-custom-reason',
    code: `async () => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error('took too long')), 30);
  try { await fetch('http://loopback.test/hang', { signal: controller.signal }); return 'fetched'; }
  catch (e) { return e.name + ': ' + e.message; }
}`,
  },
  {
    name: 'listener-after-abort',
    code: `async () => {
  const controller = new AbortController();
  controller.abort();
  let called = false;
  controller.signal.addEventListener('abort', () => { called = true; });
  return called;
}`,
  },
  {
    name: 'illegal-constructor',
    code: `async () => {
  try { new AbortSignal(); return 'constructed'; } catch (e) { return e.name + ': ' + e.message; }
}`,
  },
  {
    name: 'cancellable-tool-call',
    tools: ['echo'],
    code: `async () => {
  const withSignal = (promise, signal) => new Promise((resolve, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason));
    promise.then(resolve, reject);
  });
  const fast = await withSignal(echo.slow(5, 'fast'), AbortSignal.timeout(500));
  try { await withSignal(echo.slow(300, 'slow'), AbortSignal.timeout(20)); return { fast, slow: 'finished' }; }
  catch (e) { return { fast, slow: e.name }; }
}`,
  },
  {
    name: 'observable-shape',
    code: `async () => {
  const controller = new AbortController();
  return { controllerTag: Object.prototype.toString.call(controller), signalTag: Object.prototype.toString.call(controller.signal),
    own: Object.getOwnPropertyNames(controller), signalOwn: Object.getOwnPropertyNames(controller.signal),
    symbols: Object.getOwnPropertySymbols(controller).length + Object.getOwnPropertySymbols(controller.signal).length,
    isTarget: controller.signal instanceof EventTarget, sameSignal: controller.signal === controller.signal };
}`,
  },
  {
    name: 'reason-before-abort',
    code: `async () => {
  const controller = new AbortController();
  return { reason: controller.signal.reason, onabort: controller.signal.onabort, aborted: controller.signal.aborted };
}`,
  },
  {
    name: 'any-with-timeout',
    code: `async () => {
  const user = new AbortController();
  const signal = AbortSignal.any([user.signal, AbortSignal.timeout(20)]);
  await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
  return { name: signal.reason.name, userAborted: user.signal.aborted };
}`,
  },
  {
    name: 'abort-inside-listener-order',
    code: `async () => {
  const a = new AbortController();
  const b = new AbortController();
  const log = [];
  const any = AbortSignal.any([a.signal]);
  a.signal.addEventListener('abort', () => { log.push('a'); b.abort('from a'); });
  b.signal.addEventListener('abort', () => log.push('b:' + b.signal.reason));
  any.addEventListener('abort', () => log.push('any'));
  a.abort();
  return log;
}`,
  },
]);
