/**
 * setTimeout, setInterval, their clear functions and queueMicrotask, over host timers. A bare V8
 * context has no timer of its own, so each delay waits on the host and comes back as a settlement.
 */
import { MAX_DELAY, TIMER_LIMIT, timerCallbackMessage } from '@supolka/codemode-protocol/wire';
import { TIMERS_INSTALL_SOURCE } from './generated/sandbox-sources.generated.ts';
import type { TimersValues } from './inside/timers.ts';
import { bindValues } from './setup/bound-source.ts';

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
 * microtask of its own, so the ones behind a throwing callback still run. The code is inside/timers.ts.
 */
export const TIMERS_SOURCE = bindValues(
  TIMERS_INSTALL_SOURCE,
  { limit: TIMER_LIMIT, callbackMessage: timerCallbackMessage('setTimeout') } satisfies TimersValues,
  ['hostDelay'],
);
