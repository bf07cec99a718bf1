/**
 * Memory the isolate's limit does not see: resizable ArrayBuffers, growable SharedArrayBuffers and
 * WebAssembly memories. isolated-vm meters backing stores through the ArrayBuffer allocator it
 * gives V8 (its LimitedAllocator), but V8 makes these three by reserving address space for their
 * maximum and committing pages itself as they grow, outside that allocator: measured under a 64 MB
 * limit, each committed 1 GiB and returned normally. So their maximum is charged here, when one is
 * made, against a budget of RESERVED_MEMORY_SHARE of the isolate's memory limit; past it the
 * constructor throws a RangeError naming the bound. Nothing that stays within the maximum it was
 * admitted with can grow past it (V8 refuses resize and grow beyond maxByteLength), so what these
 * can commit is bounded by the budget.
 *
 * A charge is never given back: an isolate serves one execution, and giving back on collection
 * would make a refusal depend on when the collector last ran. A retained execution keeps its
 * budget for its lifetime.
 *
 * The constructors are replaced everywhere a program can reach them: the globals, the prototype's
 * `constructor` (so `new Uint8Array(0).buffer.constructor` is the guarded one), and through them
 * Reflect.construct, subclasses (`class X extends ArrayBuffer` calls the guarded one in super())
 * and Symbol.species, which reads `constructor`. Buffers the engine makes on its own path keep a
 * maximum already charged (transfer() of a resizable buffer keeps its maxByteLength and detaches
 * the original) or have none (slice, transferToFixedLength, typed arrays, structuredClone here).
 * ArrayBuffer's guard is installed once, as the bundle's last step, so it lives in the snapshot;
 * SharedArrayBuffer's in the second step of every isolate, with the budget: SharedArrayBuffer and
 * WebAssembly do not exist while the snapshot is made, and the limit is known only then.
 */
import { standIn } from './global-scope.ts';
import { memoryLimitBytes } from './memory-limit.ts';
import {
  MathMax,
  MathTrunc,
  NumberIsNaN,
  ObjectDefineProperty,
  RangeErrorCtor,
  ReflectConstruct,
  ReflectGetOwnPropertyDescriptor,
  ReflectOwnKeys,
  TypeErrorCtor,
} from './primordials.ts';

/** The part of the memory limit that resizable buffers and WebAssembly memories may reserve. */
export const RESERVED_MEMORY_SHARE = 0.5;

/**
 * The smallest charge of one buffer: V8 commits whole pages, so a buffer with a maximum of one
 * byte still holds a page (measured: 100,000 of them, 426 MiB). 64 KiB covers every page size the
 * engine runs on (4, 16 and 64 KiB) and is WebAssembly's page.
 */
export const RESERVATION_UNIT = 65536;

/** The text of the RangeError a reservation past the budget throws. */
export function reservedMemoryMessage(requested: number, budget: number, remaining: number): string {
  return `Cannot reserve ${requested} bytes: resizable ArrayBuffers, growable SharedArrayBuffers and WebAssembly memories may reserve ${budget} bytes in all in this execution (half its memory limit), and ${remaining} bytes remain.`;
}

/** The budget, in bytes, for an isolate whose memory limit is `memoryLimitMB`. */
export function reservedMemoryBudget(memoryLimitMB: number): number {
  return MathTrunc(memoryLimitMB * 2 ** 20 * RESERVED_MEMORY_SHARE);
}

let budget = 0;
let remaining = 0;

/** `bytes` rounded up to whole RESERVATION_UNITs, one at least. */
function charge(bytes: number): number {
  const units = MathMax(1, MathTrunc((bytes + RESERVATION_UNIT - 1) / RESERVATION_UNIT));
  return units * RESERVATION_UNIT;
}

/**
 * Takes `bytes` of the budget, runs `make`, and gives them back only if `make` throws. Taken
 * first, so a construction that re-enters (a Proxy as new.target) cannot pass the same check twice.
 */
export function withReservation<T>(bytes: number, make: () => T): T {
  const charged = charge(bytes);
  if (charged > remaining) throw new RangeErrorCtor(reservedMemoryMessage(charged, budget, remaining));
  remaining -= charged;
  try {
    return make();
  } catch (error) {
    remaining += charged;
    throw error;
  }
}

/** ToIndex's integer part of a number (NaN is 0), or undefined when ToIndex would throw. */
export function indexOf(number: number): number | undefined {
  const integer = NumberIsNaN(number) ? 0 : MathTrunc(number);
  return integer >= 0 && integer <= 2 ** 53 - 1 ? integer : undefined;
}

/**
 * A replacement for `Original` that reads its arguments once, charges a maxByteLength, and
 * constructs the original with the same new.target, so instances, subclasses and `instanceof`
 * are what they were.
 */
function guardedBufferConstructor(Original: ArrayBufferConstructor, name: string): ArrayBufferConstructor {
  const Guarded = {
    [name]: function (this: unknown, length: unknown, options?: unknown) {
      if (new.target === undefined) throw new TypeErrorCtor(`Constructor ${name} requires 'new'`);
      // ToNumber once, here: the original then converts a number, with no getter to call again.
      const byteLength = +(length as number);
      if ((typeof options !== 'object' || options === null) && typeof options !== 'function')
        return ReflectConstruct(Original, [byteLength], new.target);
      const requested = (options as { maxByteLength?: unknown }).maxByteLength;
      if (requested === undefined) return ReflectConstruct(Original, [byteLength], new.target);
      const maxNumber = +(requested as number);
      const max = indexOf(maxNumber);
      const args = [byteLength, { maxByteLength: maxNumber }];
      // An invalid maximum is the original's RangeError to throw; it reserves nothing.
      if (max === undefined) return ReflectConstruct(Original, args, new.target);
      return withReservation(max, () => ReflectConstruct(Original, args, new.target));
    },
  }[name] as unknown as ArrayBufferConstructor;
  const keys = ReflectOwnKeys(Original);
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as PropertyKey;
    if (key === 'prototype') continue;
    ObjectDefineProperty(Guarded, key, ReflectGetOwnPropertyDescriptor(Original, key) as PropertyDescriptor);
  }
  standIn(Guarded, Original, name);
  return Guarded;
}

/** Replaces the global constructor `name` with its guard, when the context has it. */
function guardBufferConstructor(name: 'ArrayBuffer' | 'SharedArrayBuffer'): void {
  const global = globalThis as Record<string, unknown>;
  const Original = global[name] as ArrayBufferConstructor | undefined;
  if (Original === undefined) return;
  ObjectDefineProperty(global, name, {
    value: guardedBufferConstructor(Original, name),
    writable: true,
    enumerable: false,
    configurable: true,
  });
}

/** Replaces ArrayBuffer; called once, as the bundle's last step, so the guard is in the snapshot. */
export function guardArrayBuffer(): void {
  guardBufferConstructor('ArrayBuffer');
}

/**
 * Sets this isolate's budget and replaces SharedArrayBuffer, which V8 adds only to a context it
 * restores; called once per isolate, before user code, after setMemoryLimit.
 */
export function limitReservedMemory(): void {
  budget = MathTrunc(memoryLimitBytes() * RESERVED_MEMORY_SHARE);
  remaining = budget;
  guardBufferConstructor('SharedArrayBuffer');
}
