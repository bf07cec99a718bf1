/** performance.now and performance.timeOrigin (High Resolution Time, https://w3c.github.io/hr-time/). */
import { DateNow, ObjectDefineProperty } from './primordials.ts';
import { defineInterface } from './webidl.ts';

let timeOrigin = 0;

/** Reads the time origin when the isolate is prepared, never when the snapshot is made. */
export function startClock(): void {
  timeOrigin = DateNow();
}

export function now(): number {
  return DateNow() - timeOrigin;
}

class Performance {
  get timeOrigin(): number {
    return timeOrigin;
  }
  now(): number {
    return now();
  }
  toJSON(): { timeOrigin: number } {
    return { timeOrigin };
  }
}
defineInterface(Performance);

/** The one performance object of the global scope; its class is not exposed, as in workerd. */
export const performance: Performance = new Performance();
ObjectDefineProperty(Performance.prototype, 'constructor', {
  value: Object,
  writable: true,
  configurable: true,
});
