/** performance.now and performance.timeOrigin (High Resolution Time, https://w3c.github.io/hr-time/). */
import { DateNow } from './primordials.ts';

let timeOrigin = 0;

/** Reads the time origin when the isolate is prepared, never when the snapshot is made. */
export function startClock(): void {
  timeOrigin = DateNow();
}

export function now(): number {
  return DateNow() - timeOrigin;
}

export function origin(): number {
  return timeOrigin;
}
