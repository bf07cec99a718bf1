/**
 * Intrinsics captured when the runtime bundle loads, before any user code exists. Runtime code
 * calls these instead of reaching through globals or prototypes at call time, so a program that
 * replaces Array.prototype.push or String.prototype.slice changes only its own code, never the
 * runtime's behaviour underneath it.
 *
 * The rule is checked, not only promised: packages/runtime/lint/primordials-rule.ts refuses a call
 * that reaches a built-in a program can replace (`list.push(x)`, `text.slice(1)`, `map.get(key)`,
 * `Object.keys(o)` in a function, iteration of an array or a string) and names the capture to use.
 * A capture missing here is added here, in the section of its built-in, named the way Node's
 * primordials name it: `ArrayPrototypePush(list, x)` for `list.push(x)`.
 *
 * A prototype method is captured with uncurryThis, which binds Function.prototype.call to it once:
 * calling the capture is one call of a bound built-in, with no array of arguments made per call.
 */

const { apply, construct, defineProperty, getOwnPropertyDescriptor, ownKeys } = Reflect;

/** `fn.call(self, ...args)`, with `call` bound to `fn` once, when the bundle loads. */
export const uncurryThis = Function.prototype.bind.bind(Function.prototype.call) as <
  This,
  Args extends unknown[],
  Result,
>(
  fn: (this: This, ...args: Args) => Result,
) => (self: This, ...args: Args) => Result;

/** The getter of `key` on `target` (a built-in's prototype), uncurried. */
function getter(target: object, key: PropertyKey): (value: unknown) => unknown {
  return uncurryThis(getOwnPropertyDescriptor(target, key)?.get as (this: unknown) => unknown);
}

export const ReflectApply = apply;
export const ReflectConstruct = construct;
export const ReflectDefineProperty = defineProperty;
export const ReflectGetOwnPropertyDescriptor = getOwnPropertyDescriptor;
export const ReflectOwnKeys = ownKeys;

// Object.

export const ObjectCtor = Object;
export const ObjectCreate = Object.create;
export const ObjectDefineProperty = Object.defineProperty;
export const ObjectFreeze = Object.freeze;
export const ObjectGetPrototypeOf = Object.getPrototypeOf;
export const ObjectSetPrototypeOf = Object.setPrototypeOf;
export const ObjectHasOwn = Object.hasOwn;
export const ObjectGetOwnPropertyNames = Object.getOwnPropertyNames;
export const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
export const ObjectKeys = Object.keys;
export const ObjectEntries = Object.entries;
export const ObjectPrototypeToString = uncurryThis(Object.prototype.toString);

// Function.

export const FunctionPrototypeBind = uncurryThis(Function.prototype.bind) as <
  T extends (...args: never[]) => unknown,
>(
  fn: T,
  self: unknown,
) => T;

// Array.

export const ArrayCtor = Array;
export const ArrayIsArray = Array.isArray;
export const ArrayPrototypePush = uncurryThis(Array.prototype.push) as <T>(
  array: T[],
  ...items: T[]
) => number;
export const ArrayPrototypeJoin = uncurryThis(Array.prototype.join) as (
  array: readonly unknown[],
  separator?: string,
) => string;
export const ArrayPrototypeIncludes = uncurryThis(Array.prototype.includes) as <T>(
  array: readonly T[],
  item: T,
) => boolean;
export const ArrayPrototypeIndexOf = uncurryThis(Array.prototype.indexOf) as <T>(
  array: readonly T[],
  item: T,
) => number;
export const ArrayPrototypeSplice = uncurryThis(Array.prototype.splice) as <T>(
  array: T[],
  start: number,
  deleteCount?: number,
  ...items: T[]
) => T[];
export const ArrayPrototypeSort = uncurryThis(Array.prototype.sort) as <T>(
  array: T[],
  compare?: (a: T, b: T) => number,
) => T[];

// String.

export const StringCtor = String;
export const StringFromCharCode = String.fromCharCode;
export const StringPrototypeCharCodeAt = uncurryThis(String.prototype.charCodeAt);
export const StringPrototypeSlice = uncurryThis(String.prototype.slice);
export const StringPrototypeToWellFormed = uncurryThis(String.prototype.toWellFormed);
export const StringPrototypeIndexOf = uncurryThis(String.prototype.indexOf);
export const StringPrototypeIncludes = uncurryThis(String.prototype.includes);
export const StringPrototypeStartsWith = uncurryThis(String.prototype.startsWith);
export const StringPrototypeTrim = uncurryThis(String.prototype.trim);
export const StringPrototypeToUpperCase = uncurryThis(String.prototype.toUpperCase);
export const StringPrototypeToLowerCase = uncurryThis(String.prototype.toLowerCase);
/** With a string separator only: a RegExp's split reads members of RegExp.prototype a program can replace. */
export const StringPrototypeSplit = uncurryThis(String.prototype.split) as unknown as (
  text: string,
  separator: string,
  limit?: number,
) => string[];
export const StringPrototypeValueOf = uncurryThis(String.prototype.valueOf) as (value: unknown) => string;

// RegExp. Only exec is safe: test, and String.prototype's replace, split and match with a RegExp,
// call the RegExp's `exec` (and read its flags) through RegExp.prototype, which a program can replace.

export const RegExpCtor = RegExp;
export const RegExpPrototypeExec = uncurryThis(RegExp.prototype.exec) as (
  pattern: RegExp,
  text: string,
) => RegExpExecArray | null;
/** Whether `pattern` matches `text`: RegExp.prototype.test without its read of `exec`. */
export const RegExpTest = (pattern: RegExp, text: string): boolean =>
  RegExpPrototypeExec(pattern, text) !== null;
export const RegExpPrototypeGetSource = getter(RegExp.prototype, 'source') as (value: unknown) => string;
export const RegExpPrototypeGetFlags = getter(RegExp.prototype, 'flags') as (value: unknown) => string;

// Number, Boolean, BigInt, Math, Date.

export const NumberIsNaN = Number.isNaN;
export const NumberIsFinite = Number.isFinite;
export const NumberParseInt = Number.parseInt;
export const NumberPrototypeToString = uncurryThis(Number.prototype.toString) as (
  value: number,
  radix?: number,
) => string;
export const NumberPrototypeValueOf = uncurryThis(Number.prototype.valueOf) as (value: unknown) => number;
export const BooleanPrototypeValueOf = uncurryThis(Boolean.prototype.valueOf) as (value: unknown) => boolean;
export const BigIntPrototypeValueOf = uncurryThis(BigInt.prototype.valueOf) as (value: unknown) => bigint;
export const MathTrunc = Math.trunc;
export const MathFloor = Math.floor;
export const MathMin = Math.min;
export const MathMax = Math.max;

export const DateCtor = Date;
export const DateNow = Date.now;
export const DatePrototypeGetTime = uncurryThis(Date.prototype.getTime) as (value: unknown) => number;

// Promise.

export const PromiseCtor = Promise;
export const PromiseResolve = Promise.resolve.bind(Promise) as <T>(value: T) => Promise<Awaited<T>>;
export const PromiseReject = Promise.reject.bind(Promise) as <T = never>(reason?: unknown) => Promise<T>;
export const PromisePrototypeThen = uncurryThis(Promise.prototype.then) as <T, R1 = T, R2 = never>(
  promise: Promise<T>,
  onFulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
  onRejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
) => Promise<R1 | R2>;

// Errors.

export const ErrorCtor = Error;
export const EvalErrorCtor = EvalError;
export const TypeErrorCtor = TypeError;
export const RangeErrorCtor = RangeError;
export const SyntaxErrorCtor = SyntaxError;
export const ReferenceErrorCtor = ReferenceError;
export const URIErrorCtor = URIError;

// Typed arrays, ArrayBuffer and DataView.

export const Uint8ArrayCtor = Uint8Array;
export const Uint16ArrayCtor = Uint16Array;
export const DataViewCtor = DataView;
const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype) as object;
/** The typed array's kind (`Uint8Array`, ...), or undefined for anything that is not a typed array. */
export const TypedArrayPrototypeGetSymbolToStringTag = getter(TypedArrayPrototype, Symbol.toStringTag) as (
  value: unknown,
) => string | undefined;
export const TypedArrayPrototypeGetByteLength = getter(TypedArrayPrototype, 'byteLength') as (
  value: unknown,
) => number;
export const TypedArrayPrototypeGetByteOffset = getter(TypedArrayPrototype, 'byteOffset') as (
  value: unknown,
) => number;
export const TypedArrayPrototypeGetBuffer = getter(TypedArrayPrototype, 'buffer') as (
  value: unknown,
) => ArrayBufferLike;
export const TypedArrayPrototypeSet = uncurryThis(
  (TypedArrayPrototype as { set: (this: Uint8Array, source: ArrayLike<number>, offset?: number) => void })
    .set,
);
export const TypedArrayPrototypeSubarray = uncurryThis(
  (TypedArrayPrototype as { subarray: (this: Uint8Array, begin?: number, end?: number) => Uint8Array })
    .subarray,
);
export const TypedArrayPrototypeSlice = uncurryThis(
  (TypedArrayPrototype as { slice: (this: Uint8Array, begin?: number, end?: number) => Uint8Array }).slice,
);
export const TypedArrayPrototypeIndexOf = uncurryThis(
  (TypedArrayPrototype as { indexOf: (this: Uint8Array, value: number, from?: number) => number }).indexOf,
);
/** Each typed array constructor, by its name (`Uint8Array`...). */
export const TypedArrayConstructors: Readonly<
  Record<string, new (buffer: ArrayBuffer, offset: number, length: number) => object>
> = ObjectFreeze({
  __proto__: null,
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
  ...(typeof (globalThis as { Float16Array?: unknown }).Float16Array === 'function'
    ? { Float16Array: (globalThis as unknown as { Float16Array: Uint8ArrayConstructor }).Float16Array }
    : {}),
}) as never;

export const ArrayBufferPrototypeGetByteLength = getter(ArrayBuffer.prototype, 'byteLength') as (
  value: unknown,
) => number;
export const ArrayBufferPrototypeSlice = uncurryThis(ArrayBuffer.prototype.slice) as (
  buffer: ArrayBuffer,
  begin?: number,
  end?: number,
) => ArrayBuffer;
export const ArrayBufferPrototypeTransfer = uncurryThis(
  (ArrayBuffer.prototype as { transfer: (this: ArrayBuffer) => ArrayBuffer }).transfer,
);
export const DataViewPrototypeGetBuffer = getter(DataView.prototype, 'buffer') as (
  value: unknown,
) => ArrayBufferLike;
export const DataViewPrototypeGetByteOffset = getter(DataView.prototype, 'byteOffset') as (
  value: unknown,
) => number;
export const DataViewPrototypeGetByteLength = getter(DataView.prototype, 'byteLength') as (
  value: unknown,
) => number;

// Map, Set, WeakMap, WeakSet.

export const MapCtor = Map;
export const SetCtor = Set;
export const WeakMapCtor = WeakMap;
export const MapPrototypeGetSize = getter(Map.prototype, 'size') as (value: unknown) => number;
export const SetPrototypeGetSize = getter(Set.prototype, 'size') as (value: unknown) => number;
export const MapPrototypeSet = uncurryThis(Map.prototype.set) as <K, V>(
  map: Map<K, V>,
  key: K,
  value: V,
) => Map<K, V>;
export const SetPrototypeAdd = uncurryThis(Set.prototype.add) as <T>(set: Set<T>, value: T) => Set<T>;
/** Visits a Map's entries without its iterator, which a program can replace; forEach uses none. */
export const MapPrototypeForEach = uncurryThis(Map.prototype.forEach) as <K, V>(
  map: Map<K, V>,
  callback: (value: V, key: K) => void,
) => void;
export const SetPrototypeForEach = uncurryThis(Set.prototype.forEach) as <T>(
  set: Set<T>,
  callback: (value: T) => void,
) => void;

/**
 * Copies every member of a built-in collection's prototype onto the prototype of `safe`, a
 * subclass, once: a call on an instance of `safe` then finds the copy, so a program's replacement
 * of Map.prototype.get (or any other) never reaches the runtime's own collections. The runtime
 * never hands one to a program, which could otherwise change the copies.
 */
function makeSafe<T extends abstract new (...args: never[]) => object>(unsafe: T, safe: T): T {
  const source = unsafe.prototype as object;
  const keys = ownKeys(source);
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as PropertyKey;
    if (key === 'constructor') continue;
    defineProperty(
      safe.prototype as object,
      key,
      getOwnPropertyDescriptor(source, key) as PropertyDescriptor,
    );
  }
  ObjectFreeze(safe.prototype);
  return ObjectFreeze(safe);
}

/**
 * A Map for the runtime's own use. A method call on one (`map.get(key)`) is as fast as on a Map
 * and reaches nothing a program can replace. It has no iteration: a Map's iterators are the
 * built-in ones; visit the entries with forEach.
 */
export interface SafeMap<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): this;
  has(key: K): boolean;
  delete(key: K): boolean;
  clear(): void;
  forEach(callback: (value: V, key: K) => void): void;
  readonly size: number;
}
export const SafeMap = makeSafe(Map, class SafeMap extends Map {}) as unknown as new <K, V>() => SafeMap<
  K,
  V
>;

/** A Set for the runtime's own use, as SafeMap is a Map; `items` are added in order. */
export interface SafeSet<T> {
  add(value: T): this;
  has(value: T): boolean;
  delete(value: T): boolean;
  clear(): void;
  forEach(callback: (value: T) => void): void;
  readonly size: number;
}
export const SafeSet = makeSafe(
  Set,
  class SafeSet extends Set {
    constructor(items?: readonly unknown[]) {
      super();
      if (items !== undefined) for (let index = 0; index < items.length; index++) this.add(items[index]);
    }
  },
) as unknown as new <T>(
  items?: readonly T[],
) => SafeSet<T>;

export interface SafeWeakMap<K extends WeakKey, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): this;
  has(key: K): boolean;
  delete(key: K): boolean;
}
export const SafeWeakMap = makeSafe(WeakMap, class SafeWeakMap extends WeakMap {}) as unknown as new <
  K extends WeakKey,
  V,
>() => SafeWeakMap<K, V>;

export interface SafeWeakSet<T extends WeakKey> {
  add(value: T): this;
  has(value: T): boolean;
  delete(value: T): boolean;
}
export const SafeWeakSet = makeSafe(WeakSet, class SafeWeakSet extends WeakSet {}) as unknown as new <
  T extends WeakKey,
>() => SafeWeakSet<T>;

// Symbols, JSON, iterators.

export const SymbolCtor = Symbol;
export const SymbolIterator = Symbol.iterator;
export const SymbolAsyncIterator = Symbol.asyncIterator;
export const SymbolToStringTag = Symbol.toStringTag;

export const JSONStringify = JSON.stringify;
export const JSONParse = JSON.parse;

/** %IteratorPrototype%, which every built-in iterator's prototype inherits. */
export const IteratorPrototype = Object.getPrototypeOf(
  Object.getPrototypeOf([][Symbol.iterator]()),
) as object;
