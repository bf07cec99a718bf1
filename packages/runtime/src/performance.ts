/**
 * performance.now and performance.timeOrigin (High Resolution Time, https://w3c.github.io/hr-time/)
 * as workerd has them: the time origin is 0, so now() is the time since the epoch, and at a
 * module's top level (global scope) it reads 0, as Date.now() does there (date.ts).
 */
import { clockNow } from './date.ts';
import { ObjectDefineProperty } from './primordials.ts';
import { defineInterface } from './webidl.ts';

class Performance {
  get timeOrigin(): number {
    return 0;
  }
  now(): number {
    return clockNow();
  }
  toJSON(): { timeOrigin: number } {
    return { timeOrigin: 0 };
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
