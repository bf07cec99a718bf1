/** Event, EventTarget, the global scope's events and reportException (DOM and HTML, no tree). */
import { describe, expect, test } from 'vitest';
import { useSandbox } from '../helpers.ts';

const sandbox = useSandbox();
const run = async (code: string) => sandbox.execute({ code });

describe('Event (DOM "Event" interface, as workerd implements it)', () => {
  test('constructor reads EventInit; flags and phases; no own properties, isTrusted on the prototype', async () => {
    const envelope = await run(`async () => {
  const event = new Event('ping', { bubbles: true, cancelable: true });
  return [event.type, event.bubbles, event.cancelable, event.composed, event.eventPhase, event.defaultPrevented,
    event.isTrusted, Object.getOwnPropertyNames(event), Event.AT_TARGET, typeof event.timeStamp, String(event)];
}`);
    expect(envelope.result).toStrictEqual([
      'ping',
      true,
      true,
      false,
      0,
      false,
      false,
      [],
      2,
      'number',
      '[object Event]',
    ]);
  });

  test("workerd's state around a dispatch: target undefined before it and kept after, stop flags never reset, timeStamp 0", async () => {
    const envelope = await run(`async () => {
  const target = new EventTarget();
  const event = new Event('x');
  const before = [String(event.target), String(event.currentTarget), event.timeStamp, typeof Object.getOwnPropertyDescriptor(Event.prototype, 'isTrusted').get];
  let runs = 0;
  target.addEventListener('x', (e) => { runs++; e.stopImmediatePropagation(); });
  target.dispatchEvent(event);
  target.dispatchEvent(event);
  const custom = new CustomEvent('c');
  return [before, event.target === target, event.currentTarget === target, event.eventPhase, event.cancelBubble, runs,
    String(custom.detail), 'initEvent' in event, JSON.stringify(event)];
}`);
    expect(envelope.result).toStrictEqual([
      ['undefined', 'undefined', 0, 'function'],
      true,
      true,
      0,
      true,
      1,
      'undefined',
      false,
      '{}',
    ]);
  });

  test('dispatchEvent answers false once a listener called preventDefault, cancelable or not (workerd); a passive one cannot', async () => {
    const envelope = await run(`async () => {
  const target = new EventTarget();
  target.addEventListener('a', (e) => e.preventDefault());
  target.addEventListener('b', (e) => e.preventDefault(), { passive: true });
  return [
    target.dispatchEvent(new Event('a', { cancelable: true })),
    target.dispatchEvent(new Event('a')),
    target.dispatchEvent(new Event('b', { cancelable: true })),
  ];
}`);
    expect(envelope.result).toStrictEqual([false, false, true]);
  });

  test('the constructor requires a type, and brand checks throw the illegal-invocation error', async () => {
    const envelope = await run(`async () => {
  const out = [];
  try { new Event() } catch (e) { out.push(e.message) }
  try { Object.getOwnPropertyDescriptor(Event.prototype, 'type').get.call({}) } catch (e) { out.push(e.message.slice(0, 19)) }
  return out;
}`);
    expect(envelope.result).toStrictEqual([
      "Failed to construct 'Event': constructor parameter 1 is not of type 'string'.",
      'Illegal invocation:',
    ]);
  });
});

describe('EventTarget (DOM "dispatch" for a target with no tree)', () => {
  test('listeners run in order with target, currentTarget and this; duplicates are ignored; once and removal', async () => {
    const envelope = await run(`async () => {
  const target = new EventTarget();
  const seen = [];
  const listener = function (e) { seen.push(['fn', this === target, e.target === target, e.currentTarget === target, e.eventPhase]) };
  target.addEventListener('go', listener);
  target.addEventListener('go', listener);
  target.addEventListener('go', { handleEvent(e) { seen.push(['object', e.composedPath().length]) } });
  target.addEventListener('go', () => seen.push('once'), { once: true });
  target.dispatchEvent(new Event('go'));
  target.removeEventListener('go', listener);
  target.dispatchEvent(new Event('go'));
  return seen;
}`);
    expect(envelope.result).toStrictEqual([
      ['fn', true, true, true, 2],
      ['object', 1],
      'once',
      ['object', 1],
    ]);
  });

  test('a throwing listener throws out of dispatchEvent and the others do not run, as in workerd', async () => {
    const envelope = await run(`async () => {
  const target = new EventTarget();
  const seen = [];
  target.addEventListener('x', () => { throw new TypeError('listener broke') });
  target.addEventListener('x', () => seen.push('second'));
  try { target.dispatchEvent(new Event('x')) } catch (e) { seen.push(e.message) }
  const controller = new AbortController();
  controller.signal.addEventListener('abort', () => { throw new Error('abort listener') });
  try { controller.abort() } catch (e) { seen.push(e.message, controller.signal.aborted) }
  return seen;
}`);
    expect(envelope).toStrictEqual({ result: ['listener broke', 'abort listener', true], logs: [] });
  });

  test("workerd's argument checks: texts of missing and wrong arguments, no capture, handleEvent read when added", async () => {
    const envelope = await run(`async () => {
  const target = new EventTarget();
  const out = [];
  const attempt = (f) => { try { f(); out.push('ok') } catch (e) { out.push(e.message) } };
  attempt(() => target.addEventListener('x'));
  attempt(() => target.removeEventListener('x', 5));
  attempt(() => target.addEventListener('x', () => {}, true));
  attempt(() => target.addEventListener('x', () => {}, { capture: true }));
  attempt(() => target.addEventListener('x', { handleEvent: 5 }));
  attempt(() => new ErrorEvent());
  attempt(() => new CustomEvent('x', 5));
  attempt(() => new PromiseRejectionEvent('x', { promise: Promise.resolve() }));
  attempt(() => reportError());
  const handler = { handleEvent: () => out.push('first') };
  target.addEventListener('y', handler);
  handler.handleEvent = () => out.push('replaced');
  target.dispatchEvent(new Event('y'));
  return out;
}`);
    expect(envelope.result).toStrictEqual([
      "Failed to execute 'addEventListener' on 'EventTarget': parameter 2 is not of type 'function or HandlerObject'.",
      "Failed to execute 'removeEventListener' on 'EventTarget': parameter 2 is not of type 'Object'.",
      'addEventListener(): useCapture must be false.',
      'addEventListener(): options.capture must be false.',
      "Incorrect type for the 'handleEvent' field on 'HandlerObject': the provided value is not of type 'function'.",
      "Failed to construct 'ErrorEvent': constructor parameter 1 is not of type 'string'.",
      "Failed to construct 'CustomEvent': constructor parameter 2 is not of type 'CustomEventInit'.",
      'Illegal constructor',
      "Failed to execute 'reportError' on 'ServiceWorkerGlobalScope': parameter 1 is not of type 'Value'.",
      'first',
    ]);
  });

  test('stopImmediatePropagation ends the listener list; an aborted signal removes its listener', async () => {
    const envelope = await run(`async () => {
  const target = new EventTarget();
  const seen = [];
  const controller = new AbortController();
  target.addEventListener('x', (e) => { seen.push(1); e.stopImmediatePropagation() });
  target.addEventListener('x', () => seen.push(2));
  target.addEventListener('y', () => seen.push('y'), { signal: controller.signal });
  target.dispatchEvent(new Event('x'));
  controller.abort();
  target.dispatchEvent(new Event('y'));
  return seen;
}`);
    expect(envelope.result).toStrictEqual([1]);
  });

  test('dispatching an event that is being dispatched is an InvalidStateError', async () => {
    const envelope = await run(`async () => {
  const target = new EventTarget();
  let failure;
  target.addEventListener('x', (e) => { try { target.dispatchEvent(e) } catch (error) { failure = error.name } });
  target.dispatchEvent(new Event('x'));
  return failure;
}`);
    expect(envelope.result).toBe('InvalidStateError');
  });
});

describe('the global scope', () => {
  test('addEventListener on the global, an error listener that cancels keeps reportError out of the logs', async () => {
    const envelope = await run(`async () => {
  const seen = [];
  addEventListener('error', (event) => { seen.push([event.message, event.error.message, event.isTrusted, event.target === globalThis]); event.preventDefault() });
  reportError(new Error('reported'));
  return seen;
}`);
    expect(envelope).toStrictEqual({
      result: [['Uncaught Error: reported', 'reported', true, true]],
      logs: [],
    });
  });

  test('without a canceling listener, reportError ends at console.error', async () => {
    const envelope = await run(
      `async () => { reportError(new RangeError('unhandled')); return typeof dispatchEvent }`,
    );
    expect(envelope).toStrictEqual({
      result: 'function',
      logs: [{ level: 'error', text: 'Uncaught RangeError: unhandled' }],
    });
  });

  test('an exception of a queueMicrotask callback reaches error listeners, and without one is dropped', async () => {
    const envelope = await run(`async () => {
  const seen = [];
  const listener = (event) => { seen.push([event.message, event.error.message]); event.preventDefault() };
  addEventListener('error', listener);
  queueMicrotask(() => { throw new TypeError('boom') });
  await new Promise((resolve) => setTimeout(resolve, 1));
  removeEventListener('error', listener);
  queueMicrotask(() => { throw new TypeError('dropped') });
  await new Promise((resolve) => setTimeout(resolve, 1));
  return seen;
}`);
    expect(envelope).toStrictEqual({ result: [['Uncaught TypeError: boom', 'boom']], logs: [] });
  });

  test('ErrorEvent and CustomEvent carry their members', async () => {
    const envelope = await run(`async () => {
  const error = new ErrorEvent('error', { message: 'm', filename: 'f.js', lineno: 3, colno: 4, error: 42 });
  const custom = new CustomEvent('c', { detail: { a: 1 } });
  return [error.message, error.filename, error.lineno, error.colno, error.error, custom.detail, error instanceof Event];
}`);
    expect(envelope.result).toStrictEqual(['m', 'f.js', 3, 4, 42, { a: 1 }, true]);
  });
});

describe('AbortController and AbortSignal (DOM)', () => {
  test('abort with and without a reason, throwIfAborted, onabort and the abort event', async () => {
    const envelope = await run(`async () => {
  const controller = new AbortController();
  const seen = [];
  controller.signal.onabort = (e) => seen.push(['onabort', e.type, e.isTrusted]);
  controller.signal.addEventListener('abort', () => seen.push('listener'));
  controller.abort();
  controller.abort('ignored second time');
  let thrown;
  try { controller.signal.throwIfAborted() } catch (e) { thrown = [e.name, e.message, e.code] }
  const withReason = new AbortController();
  withReason.abort('because');
  return [controller.signal.aborted, seen, thrown, withReason.signal.reason, AbortSignal.abort(7).reason];
}`);
    expect(envelope.result).toStrictEqual([
      true,
      [['onabort', 'abort', true], 'listener'],
      ['AbortError', 'The operation was aborted', 20],
      'because',
      7,
    ]);
  });

  test('AbortSignal.timeout aborts with a TimeoutError; AbortSignal.any follows the first source', async () => {
    const envelope = await run(`async () => {
  const timed = AbortSignal.timeout(5);
  await new Promise((resolve) => timed.addEventListener('abort', resolve));
  const a = new AbortController();
  const b = new AbortController();
  const any = AbortSignal.any([a.signal, b.signal]);
  const nested = AbortSignal.any([any]);
  b.abort('from b');
  return [timed.reason.name, any.aborted, any.reason, nested.reason, AbortSignal.any([AbortSignal.abort('pre')]).reason];
}`);
    expect(envelope.result).toStrictEqual(['TimeoutError', true, 'from b', 'from b', 'pre']);
  });

  test('AbortSignal.timeout converts its delay as workerd does; AbortSignal.any takes an Array only', async () => {
    const envelope = await run(`async () => {
  const out = [];
  const attempt = (f) => { try { out.push(f()) } catch (e) { out.push(e.message) } };
  attempt(() => AbortSignal.timeout(-1).aborted);
  attempt(() => AbortSignal.timeout('abc').aborted);
  attempt(() => AbortSignal.timeout());
  attempt(() => AbortSignal.any(new Set()));
  attempt(() => AbortSignal.any([5]));
  attempt(() => AbortSignal.timeout(1n));
  return out;
}`);
    expect(envelope.result).toStrictEqual([
      false,
      false,
      "Failed to execute 'timeout' on 'AbortSignal': parameter 1 is not of type 'number'.",
      "Failed to execute 'any' on 'AbortSignal': parameter 1 is not of type 'Array'.",
      "Incorrect type for array element 0: the provided value is not of type 'AbortSignal'.",
      'Cannot convert a BigInt value to a number',
    ]);
  });

  test('AbortSignal cannot be constructed', async () => {
    const envelope = await run(`async () => { try { new AbortSignal() } catch (e) { return e.message } }`);
    expect(envelope.result).toBe('Illegal constructor');
  });
});
