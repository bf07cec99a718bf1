/**
 * TIMERS_SOURCE (timers.ts): the timer globals over the delay reference. One id space and one
 * cancel set serve both kinds. Settlements can reach the isolate out of order, so each carries the
 * host's expiry count and is held until every lower count has run; each callback then runs in a
 * microtask of its own, so the ones behind a throwing callback still run.
 */
import type { HostReference, SandboxGlobal } from './host.ts';

export interface TimersValues {
  /** TIMER_LIMIT: delays one execution may have pending at once. */
  readonly limit: number;
  /** timerCallbackMessage('setTimeout'), whose method name each function puts its own in place of. */
  readonly callbackMessage: string;
}

interface Timer {
  readonly callback: (...args: unknown[]) => unknown;
  readonly args: unknown[];
  readonly interval: boolean;
  readonly delay: number;
}

export default function installTimers(host: TimersValues, hostDelay: HostReference): void {
  const internals = (globalThis as SandboxGlobal).__runtimeInternals;
  const assertRequestScope = internals.assertRequestScope;
  const reportException = internals.reportException;
  const apply = Reflect.apply;
  const applyDelay = hostDelay.apply;
  // Option objects isolated-vm reads have no prototype: it looks an option it does not find up the
  // prototype chain, where a program's getter (`reference`, `arguments`, `timeout`...) would set it.
  const PROMISE_RESULT = { __proto__: null, result: { __proto__: null, promise: true } } as object;
  const then = Promise.prototype.then;
  const resolved = Promise.resolve();
  const TypeError_ = TypeError;
  const Error_ = Error;
  const Map_ = Map;
  const mapGet = Map.prototype.get;
  const mapSet = Map.prototype.set;
  const mapHas = Map.prototype.has;
  const mapDelete = Map.prototype.delete;
  const timers = new Map_<number, Timer>();
  const held = new Map_<number, number>();
  let nextId = 1;
  let delivered = 0;
  let pendingDelays = 0;
  const LIMIT = host.limit;
  const callbackMessage = host.callbackMessage;
  const runLater = (task: () => void) => apply(then, resolved, [task]);
  const run = (timer: Timer) => {
    try {
      apply(timer.callback, undefined, timer.args);
    } catch (error) {
      reportException(error);
    }
  };
  const fire = (id: number) => {
    const timer: Timer | undefined = apply(mapGet, timers, [id]);
    if (timer === undefined) return;
    if (timer.interval) schedule(id, timer.delay);
    else apply(mapDelete, timers, [id]);
    runLater(() => run(timer));
  };
  const applyDelaySync = hostDelay.applySync;
  const clock = internals.virtualClock;
  const settle = (count: number, id: number) => {
    pendingDelays--;
    if (clock.now !== undefined) {
      // A durable run: the expiry takes its place in the sequence of observed settlements
      // (inside/dispatch.ts), and the clock moves to the time the host gives it.
      const sequence = (clock.observe as () => number)();
      const time: unknown = apply(applyDelaySync, hostDelay, [undefined, ['observed', count, sequence]]);
      if (typeof time === 'number' && time > clock.now) clock.now = time;
    }
    apply(mapSet, held, [count, id]);
    while (apply(mapHas, held, [delivered + 1])) {
      delivered++;
      const next: number = apply(mapGet, held, [delivered]);
      apply(mapDelete, held, [delivered]);
      fire(next);
    }
  };
  const schedule = (id: number, delay: number) => {
    if (pendingDelays >= LIMIT) {
      apply(mapDelete, timers, [id]);
      throw new Error_(`Too many timers are pending: one execution may have at most ${LIMIT} at once.`);
    }
    pendingDelays++;
    apply(then, apply(applyDelay, hostDelay, [undefined, [delay], PROMISE_RESULT]), [
      (count: number) => settle(count, id),
    ]);
  };
  const add = (method: string, interval: boolean, callback: unknown, delay: unknown, args: unknown[]) => {
    assertRequestScope();
    if (typeof callback !== 'function') throw new TypeError_(callbackMessage.replace('setTimeout', method));
    const ms = +(delay as number) || 0;
    const id = nextId++;
    apply(mapSet, timers, [id, { callback, args, interval, delay: ms }]);
    schedule(id, ms);
    return id;
  };
  const clear = (method: string, count: number, id: unknown) => {
    assertRequestScope();
    if (count === 0)
      throw new TypeError_(
        `Failed to execute '${method}' on 'ServiceWorkerGlobalScope': parameter 1 is not of type 'Number'.`,
      );
    apply(mapDelete, timers, [+(id as number)]);
  };
  // Rest parameters give each workerd's length 0, and nativeSource its native source: workerd's shape.
  const slice = Array.prototype.slice;
  const define = (name: string, value: unknown) => {
    internals.nativeSource(value, name);
    Object.defineProperty(globalThis, name, { value, writable: true, enumerable: true, configurable: true });
  };
  define('setTimeout', function setTimeout(...values: unknown[]) {
    return add('setTimeout', false, values[0], values[1], apply(slice, values, [2]));
  });
  define('setInterval', function setInterval(...values: unknown[]) {
    return add('setInterval', true, values[0], values[1], apply(slice, values, [2]));
  });
  define('clearTimeout', function clearTimeout(...values: unknown[]) {
    clear('clearTimeout', values.length, values[0]);
  });
  define('clearInterval', function clearInterval(...values: unknown[]) {
    clear('clearInterval', values.length, values[0]);
  });
  define('queueMicrotask', function queueMicrotask(...values: unknown[]) {
    const callback = values[0];
    if (typeof callback !== 'function')
      throw new TypeError_(
        "Failed to execute 'queueMicrotask' on 'ServiceWorkerGlobalScope': parameter 1 is not of type 'function'.",
      );
    runLater(() => {
      try {
        apply(callback, undefined, []);
      } catch (error) {
        // An error event for listeners, as workerd fires; no console line, as the chapter drops it.
        reportException(error, false);
      }
    });
  });
}
