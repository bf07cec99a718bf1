/** Event, EventTarget, CustomEvent, ErrorEvent: dispatch, listener options, cancellation. */
import { defineArea } from '../src/case.ts';

export default defineArea('events', [
  {
    name: 'add-and-dispatch',
    quick: true,
    code: `async () => {
  const target = new EventTarget();
  const seen = [];
  target.addEventListener('ping', (event) => seen.push(event.type + ':' + (event.target === target)));
  const result = target.dispatchEvent(new Event('ping'));
  target.dispatchEvent(new Event('other'));
  return { seen, result };
}`,
  },
  {
    name: 'once-option',
    code: `async () => {
  const target = new EventTarget();
  let count = 0;
  target.addEventListener('tick', () => count++, { once: true });
  target.dispatchEvent(new Event('tick'));
  target.dispatchEvent(new Event('tick'));
  return count;
}`,
  },
  {
    name: 'remove-listener',
    code: `async () => {
  const target = new EventTarget();
  const calls = [];
  const listener = () => calls.push('called');
  target.addEventListener('x', listener);
  target.dispatchEvent(new Event('x'));
  target.removeEventListener('x', listener);
  target.dispatchEvent(new Event('x'));
  target.removeEventListener('x', listener);
  return calls;
}`,
  },
  {
    name: 'custom-event-detail',
    quick: true,
    tools: ['github'],
    code: `async () => {
  const bus = new EventTarget();
  const titles = [];
  bus.addEventListener('issue', (event) => titles.push(event.detail.title));
  for (const issue of await github.listIssues({ repo: 'acme/app', state: 'open' })) {
    bus.dispatchEvent(new CustomEvent('issue', { detail: issue }));
  }
  return { titles, defaultDetail: new CustomEvent('x').detail };
}`,
  },
  {
    name: 'prevent-default',
    code: `async () => {
  const target = new EventTarget();
  target.addEventListener('save', (event) => event.preventDefault());
  const cancelable = new Event('save', { cancelable: true });
  const plain = new Event('save');
  return { cancelableResult: target.dispatchEvent(cancelable), cancelablePrevented: cancelable.defaultPrevented,
    plainResult: target.dispatchEvent(plain), plainPrevented: plain.defaultPrevented };
}`,
  },
  {
    name: 'stop-immediate-propagation',
    code: `async () => {
  const target = new EventTarget();
  const calls = [];
  target.addEventListener('go', (event) => { calls.push(1); event.stopImmediatePropagation(); });
  target.addEventListener('go', () => calls.push(2));
  target.dispatchEvent(new Event('go'));
  return calls;
}`,
  },
  {
    name: 'handle-event-object',
    code: `async () => {
  const target = new EventTarget();
  const handler = { count: 0, handleEvent(event) { this.count++; this.last = event.type; } };
  target.addEventListener('a', handler);
  target.dispatchEvent(new Event('a'));
  return { count: handler.count, last: handler.last };
}`,
  },
  {
    name: 'event-properties',
    code: `async () => {
  const target = new EventTarget();
  let during;
  target.addEventListener('probe', (event) => { during = { phase: event.eventPhase, current: event.currentTarget === target, path: event.composedPath().length }; });
  const event = new Event('probe', { bubbles: true, cancelable: true, composed: true });
  const before = { type: event.type, bubbles: event.bubbles, cancelable: event.cancelable, composed: event.composed, phase: event.eventPhase, trusted: event.isTrusted, target: event.target, stamp: typeof event.timeStamp };
  target.dispatchEvent(event);
  return { before, during, after: { phase: event.eventPhase, current: event.currentTarget, path: event.composedPath().length } };
}`,
  },
  {
    name: 'duplicate-listener-ignored',
    code: `async () => {
  const target = new EventTarget();
  let count = 0;
  const listener = () => count++;
  target.addEventListener('d', listener);
  target.addEventListener('d', listener);
  target.addEventListener('d', listener, { once: true });
  target.dispatchEvent(new Event('d'));
  return count;
}`,
  },
  {
    name: 'listener-throws',
    code: `async () => {
  const target = new EventTarget();
  const calls = [];
  target.addEventListener('e', () => { calls.push('first'); throw new Error('listener failed'); });
  target.addEventListener('e', () => calls.push('second'));
  let returned;
  try { returned = target.dispatchEvent(new Event('e')); } catch (e) { returned = 'threw ' + e.message; }
  return { calls, returned };
}`,
  },
  {
    name: 'constructor-without-type',
    code: `async () => {
  try { new Event(); return 'constructed'; } catch (e) { return e.name + ': ' + e.message; }
}`,
  },
  {
    name: 'subclassed-emitter',
    code: `async () => {
  class Job extends EventTarget {
    async run() { this.dispatchEvent(new CustomEvent('progress', { detail: 50 })); this.dispatchEvent(new CustomEvent('progress', { detail: 100 })); this.dispatchEvent(new Event('done')); return 'ok'; }
  }
  const job = new Job();
  const log = [];
  job.addEventListener('progress', (e) => log.push(e.detail + '%'));
  job.addEventListener('done', () => log.push('done'));
  return { result: await job.run(), log, isTarget: job instanceof EventTarget };
}`,
  },
  {
    name: 'signal-removes-listener',
    code: `async () => {
  const target = new EventTarget();
  const controller = new AbortController();
  let count = 0;
  target.addEventListener('n', () => count++, { signal: controller.signal });
  target.dispatchEvent(new Event('n'));
  controller.abort();
  target.dispatchEvent(new Event('n'));
  return count;
}`,
  },
  {
    name: 'constants-and-shape',
    code: `async () => ({
  constants: [Event.NONE, Event.CAPTURING_PHASE, Event.AT_TARGET, Event.BUBBLING_PHASE],
  tag: Object.prototype.toString.call(new Event('x')),
  targetTag: Object.prototype.toString.call(new EventTarget()),
  own: Object.getOwnPropertyNames(new Event('x')),
  symbols: Object.getOwnPropertySymbols(new EventTarget()).length,
  customIsEvent: new CustomEvent('c') instanceof Event,
})`,
  },
  {
    name: 'passive-listener-cannot-cancel',
    code: `async () => {
  const target = new EventTarget();
  target.addEventListener('scroll', (event) => event.preventDefault(), { passive: true });
  const event = new Event('scroll', { cancelable: true });
  return { result: target.dispatchEvent(event), prevented: event.defaultPrevented };
}`,
  },
  {
    name: 'error-event',
    code: `async () => {
  const error = new TypeError('bad thing');
  const event = new ErrorEvent('error', { message: 'Uncaught TypeError: bad thing', filename: 'app.js', lineno: 3, colno: 7, error });
  return { type: event.type, message: event.message, filename: event.filename, lineno: event.lineno, colno: event.colno, same: event.error === error, isEvent: event instanceof Event };
}`,
  },
  {
    name: 'dispatch-order-and-reentry',
    code: `async () => {
  const target = new EventTarget();
  const log = [];
  target.addEventListener('outer', () => { log.push('outer start'); target.dispatchEvent(new Event('inner')); log.push('outer end'); });
  target.addEventListener('inner', () => log.push('inner'));
  target.addEventListener('outer', () => { log.push('second outer'); target.addEventListener('outer', () => log.push('added during dispatch')); });
  target.dispatchEvent(new Event('outer'));
  return log;
}`,
  },
  {
    name: 'global-event-target',
    code: `async () => {
  const seen = [];
  addEventListener('app:ready', (event) => seen.push(event.type));
  const result = dispatchEvent(new Event('app:ready'));
  return { seen, result, isTarget: globalThis instanceof EventTarget };
}`,
  },
]);
