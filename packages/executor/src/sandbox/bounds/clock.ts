/**
 * The run clock: the time a run has spent of its bound. Time the run spends waiting on the caller
 * (a tool call, a proxied fetch) counts only as far as the isolate itself executes meanwhile, so
 * a slow tool does not time the program out while guest compute during the wait still does.
 */
import { PAUSED_RECHECK } from '@supolka/codemode-protocol/wire';
import type ivm from 'isolated-vm';
import { monotonicNow } from './monotonic.ts';

export interface RunClockOptions {
  /** Count host waits in full, as wall time. */
  readonly countHostWaits?: boolean;
  /** Called on the outermost edges of host waits: true when the first opens, false when the last closes. */
  readonly onHostWaitChanged?: (waiting: boolean) => void;
}

export class RunClock {
  readonly #isolate: ivm.Isolate;
  readonly #countHostWaits: boolean;
  readonly #onHostWaitChanged: ((waiting: boolean) => void) | undefined;
  /** Milliseconds counted in segments already closed. */
  #closed = 0;
  /** When the open wall-time segment began (monotonicNow()). */
  #openedAt = monotonicNow();
  /** Nesting depth of host waits. */
  #waits = 0;
  /** isolate.wallTime, in ms, when the outermost wait opened. */
  #waitOpenedAtWall = 0;
  /** The last wallTime read that succeeded, for when the isolate is gone. */
  #lastWall = 0;
  #released = false;
  readonly #timers = new Set<NodeJS.Timeout>();

  constructor(isolate: ivm.Isolate, options: RunClockOptions = {}) {
    this.#isolate = isolate;
    this.#countHostWaits = options.countHostWaits ?? false;
    this.#onHostWaitChanged = options.onHostWaitChanged;
  }

  /** The isolate's own execution time in ms. A memory-limit disposal can make the getter throw at any moment. */
  #wallTime(): number {
    try {
      this.#lastWall = Number(this.#isolate.wallTime) / 1e6;
    } catch {
      // Keep the last reading: a disposed isolate executes nothing more.
    }
    return this.#lastWall;
  }

  get paused(): boolean {
    return this.#waits > 0 && !this.#countHostWaits;
  }

  /** Milliseconds counted so far: the closed segments plus the open one. */
  elapsed(): number {
    if (this.paused) return this.#closed + (this.#wallTime() - this.#waitOpenedAtWall);
    return this.#closed + (monotonicNow() - this.#openedAt);
  }

  enterHostWait(): void {
    if (this.#waits++ > 0) return;
    if (!this.#countHostWaits) {
      this.#closed += monotonicNow() - this.#openedAt;
      this.#waitOpenedAtWall = this.#wallTime();
    }
    this.#notify(true);
  }

  leaveHostWait(): void {
    if (this.#waits === 0 || --this.#waits > 0) return;
    if (!this.#countHostWaits) {
      this.#closed += this.#wallTime() - this.#waitOpenedAtWall;
      this.#openedAt = monotonicNow();
    }
    this.#notify(false);
  }

  #notify(waiting: boolean): void {
    try {
      this.#onHostWaitChanged?.(waiting);
    } catch {
      // An observer must not fail the tool call it observes.
    }
  }

  /**
   * Resolves once the counted time reaches `bound`. Each timer fires at the earliest moment the
   * bound could be reached; while paused the count grows at the isolate's pace, so the check then
   * reschedules on what was actually counted, no more often than PAUSED_RECHECK.
   */
  expire(bound: number): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (this.#released) return;
        const remaining = bound - this.elapsed();
        if (remaining <= 0) {
          resolve();
          return;
        }
        const delay = this.paused ? Math.max(remaining, PAUSED_RECHECK) : remaining;
        const timer = setTimeout(() => {
          this.#timers.delete(timer);
          check();
        }, Math.ceil(delay));
        this.#timers.add(timer);
      };
      check();
    });
  }

  /** Clears every pending expiry; their promises stay unresolved, as a cancelled timer never fires. */
  release(): void {
    this.#released = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }
}

/** Which clock owns the run now: wrapped host functions pause whatever clock the slot holds. */
export class ClockSlot {
  #clock: RunClock | undefined;

  get current(): RunClock | undefined {
    return this.#clock;
  }

  set(clock: RunClock): void {
    this.#clock = clock;
  }

  clear(): void {
    this.#clock = undefined;
  }
}

/**
 * Wraps a host function so every call opens a host wait before the function sees it and closes
 * it when the call settles either way, on the clock that opened it.
 */
export function wrapHostWait<Args extends unknown[], Result>(
  slot: ClockSlot,
  fn: (...args: Args) => Result | Promise<Result>,
): (...args: Args) => Promise<Result> {
  return async (...args: Args) => {
    const clock = slot.current;
    clock?.enterHostWait();
    try {
      return await fn(...args);
    } finally {
      clock?.leaveHostWait();
    }
  };
}
