/**
 * The clock as workerd shows it at a module's top level (global scope): frozen at the epoch, so
 * Date.now() is 0 and new Date() is 1970-01-01T00:00:00.000Z there (workerd's Spectre mitigation).
 * Inside the program's run the clock reads the time. The global Date is a Proxy of the built-in
 * that only changes what a read of the current time answers; everything else reaches the built-in.
 *
 * A durable run (docs/durable.md) reads a virtual clock instead: the sandbox sets it when the run
 * starts and advances it with the time each host settlement carries, so a replay reads the same
 * times the original run read.
 */
import { nativeSource } from './global-scope.ts';
import { scope } from './internals.ts';
import { DateNow, ObjectDefineProperty, ReflectApply, ReflectConstruct } from './primordials.ts';

const BuiltinDate = Date;
const DatePrototypeToString = BuiltinDate.prototype.toString;

/**
 * A durable run's clock: `now` is undefined for every other run, which reads the host's time.
 * `observe` answers the next sequence of the run's observed settlements (the sandbox's dispatch
 * installs it), which fetch takes when its answer arrives, as tool calls and timers do.
 */
export const virtualClock: { now: number | undefined; observe: (() => number) | undefined } = {
  now: undefined,
  observe: undefined,
};

/** The current time in milliseconds since the epoch, or 0 in global scope. */
export function clockNow(): number {
  if (scope.global) return 0;
  const now = virtualClock.now;
  return now === undefined ? DateNow() : now;
}

export function installDate(): void {
  const FrozenDate = new Proxy(BuiltinDate, {
    construct: (target, args, newTarget) =>
      ReflectConstruct(target, args.length === 0 ? [clockNow()] : args, newTarget),
    // Date() called as a function ignores its arguments and describes the current time.
    apply: () => ReflectApply(DatePrototypeToString, new BuiltinDate(clockNow()), []),
  });
  const { now } = {
    now(): number {
      return clockNow();
    },
  };
  nativeSource(FrozenDate, 'Date');
  nativeSource(now, 'now');
  ObjectDefineProperty(BuiltinDate, 'now', {
    value: now,
    writable: true,
    enumerable: false,
    configurable: true,
  });
  ObjectDefineProperty(BuiltinDate.prototype, 'constructor', {
    value: FrozenDate,
    writable: true,
    enumerable: false,
    configurable: true,
  });
  ObjectDefineProperty(globalThis, 'Date', {
    value: FrozenDate,
    writable: true,
    enumerable: false,
    configurable: true,
  });
}
