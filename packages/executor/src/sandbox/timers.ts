/**
 * setTimeout, setInterval, their clear functions and queueMicrotask, over host timers. A bare V8
 * context has no timer of its own, so each delay waits on the host and comes back as a settlement.
 */
import { MAX_DELAY, TIMER_LIMIT, timerCallbackMessage } from '@supolka/codemode-protocol';

export { MAX_DELAY };

/** A promise that never settles: what a cancelled or orphaned delay resolves to. */
export function never<T = never>(): Promise<T> {
  return new Promise<T>(() => {});
}

/** The pending host timers of one execution. */
export class TimerRegistry {
  readonly #handles = new Set<NodeJS.Timeout>();
  #expired = 0;
  #cancelled = false;

  /**
   * Resolves after `ms` with the count of delays this registry has expired, this one included.
   * Equal delays expire in the order they were set, so the count is the host's order.
   */
  delay(ms: number): Promise<number> {
    if (this.#cancelled) return never();
    const clamped = Math.min(Math.max(Number.isFinite(ms) ? ms : MAX_DELAY, 0), MAX_DELAY);
    return new Promise((resolve) => {
      const handle = setTimeout(() => {
        this.#handles.delete(handle);
        resolve(++this.#expired);
      }, clamped);
      this.#handles.add(handle);
    });
  }

  get pending(): number {
    return this.#handles.size;
  }

  /** Clears every pending timer; after this the registry never sets one again. */
  cancelAll(): void {
    this.#cancelled = true;
    for (const handle of this.#handles) clearTimeout(handle);
    this.#handles.clear();
  }
}

/**
 * Publishes the timer globals over the delay reference it is called with. One id space and one
 * cancel set serve both kinds. Settlements can reach the isolate out of order, so each carries the
 * host's expiry count and is held until every lower count has run; each callback then runs in a
 * microtask of its own, so the ones behind a throwing callback still run.
 */
export const TIMERS_SOURCE = `((hostDelay) => {
  const internals = globalThis.__runtimeInternals;
  const assertRequestScope = internals.assertRequestScope;
  const reportException = internals.reportException;
  const apply = Reflect.apply;
  const applyDelay = hostDelay.apply;
  const then = Promise.prototype.then;
  const resolved = Promise.resolve();
  const TypeError_ = TypeError;
  const Error_ = Error;
  const Map_ = Map;
  const mapGet = Map.prototype.get;
  const mapSet = Map.prototype.set;
  const mapHas = Map.prototype.has;
  const mapDelete = Map.prototype.delete;
  const timers = new Map_();
  const held = new Map_();
  let nextId = 1;
  let delivered = 0;
  let pendingDelays = 0;
  const LIMIT = ${TIMER_LIMIT};
  const runLater = (task) => apply(then, resolved, [task]);
  const run = (timer) => {
    try {
      apply(timer.callback, undefined, timer.args);
    } catch (error) {
      reportException(error);
    }
  };
  const fire = (id) => {
    const timer = apply(mapGet, timers, [id]);
    if (timer === undefined) return;
    if (timer.interval) schedule(id, timer.delay);
    else apply(mapDelete, timers, [id]);
    runLater(() => run(timer));
  };
  const settle = (count, id) => {
    pendingDelays--;
    apply(mapSet, held, [count, id]);
    while (apply(mapHas, held, [delivered + 1])) {
      delivered++;
      const next = apply(mapGet, held, [delivered]);
      apply(mapDelete, held, [delivered]);
      fire(next);
    }
  };
  const schedule = (id, delay) => {
    if (pendingDelays >= LIMIT) {
      apply(mapDelete, timers, [id]);
      throw new Error_('Too many timers are pending: one execution may have at most ' + LIMIT + ' at once.');
    }
    pendingDelays++;
    apply(then, apply(applyDelay, hostDelay, [undefined, [delay], { result: { promise: true } }]), [(count) => settle(count, id)]);
  };
  const add = (method, interval, callback, delay, args) => {
    assertRequestScope();
    if (typeof callback !== 'function') throw new TypeError_(${JSON.stringify(timerCallbackMessage('setTimeout'))}.replace('setTimeout', method));
    const ms = +delay || 0;
    const id = nextId++;
    apply(mapSet, timers, [id, { callback, args, interval, delay: ms }]);
    schedule(id, ms);
    return id;
  };
  const clear = (method, count, id) => {
    assertRequestScope();
    if (count === 0) throw new TypeError_("Failed to execute '" + method + "' on 'ServiceWorkerGlobalScope': parameter 1 is not of type 'Number'.");
    apply(mapDelete, timers, [+id]);
  };
  // Rest parameters give each workerd's length 0, and nativeSource its native source: workerd's shape.
  const slice = Array.prototype.slice;
  const define = (name, value) => {
    internals.nativeSource(value, name);
    Object.defineProperty(globalThis, name, { value, writable: true, enumerable: true, configurable: true });
  };
  define('setTimeout', function setTimeout(...values) { return add('setTimeout', false, values[0], values[1], apply(slice, values, [2])); });
  define('setInterval', function setInterval(...values) { return add('setInterval', true, values[0], values[1], apply(slice, values, [2])); });
  define('clearTimeout', function clearTimeout(...values) { clear('clearTimeout', values.length, values[0]); });
  define('clearInterval', function clearInterval(...values) { clear('clearInterval', values.length, values[0]); });
  define('queueMicrotask', function queueMicrotask(...values) {
    const callback = values[0];
    if (typeof callback !== 'function') throw new TypeError_("Failed to execute 'queueMicrotask' on 'ServiceWorkerGlobalScope': parameter 1 is not of type 'function'.");
    runLater(() => {
      try {
        apply(callback, undefined, []);
      } catch (error) {
        // An error event for listeners, as workerd fires; no console line, as the chapter drops it.
        reportException(error, false);
      }
    });
  });
})`;
