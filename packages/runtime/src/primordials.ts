/**
 * Intrinsics captured when the runtime bundle loads, before any user code exists. Runtime code
 * calls these instead of reaching through globals or prototypes at call time, so a program that
 * replaces Array.prototype.push or String.prototype.slice changes only its own code, never the
 * runtime's behaviour underneath it.
 */

const { apply, construct, defineProperty, getOwnPropertyDescriptor, ownKeys } = Reflect;

/** `fn.call(self, ...args)` without reading `call` off Function.prototype at call time. */
export const uncurryThis =
  <This, Args extends unknown[], Result>(fn: (this: This, ...args: Args) => Result) =>
  (self: This, ...args: Args): Result =>
    apply(fn, self, args);

export const ReflectApply = apply;
export const ReflectConstruct = construct;
export const ReflectDefineProperty = defineProperty;
export const ReflectGetOwnPropertyDescriptor = getOwnPropertyDescriptor;
export const ReflectOwnKeys = ownKeys;

export const ObjectCreate = Object.create;
export const ObjectDefineProperty = Object.defineProperty;
export const ObjectFreeze = Object.freeze;
export const ObjectGetPrototypeOf = Object.getPrototypeOf;
export const ObjectSetPrototypeOf = Object.setPrototypeOf;
export const ObjectHasOwn = Object.hasOwn;
export const ObjectGetOwnPropertyNames = Object.getOwnPropertyNames;
export const ObjectKeys = Object.keys;
export const ObjectEntries = Object.entries;
export const ObjectFromEntries = Object.fromEntries;
export const ObjectPrototypeToString = uncurryThis(Object.prototype.toString);

export const ArrayIsArray = Array.isArray;
export const ArrayPrototypePush = uncurryThis(Array.prototype.push) as <T>(
  array: T[],
  ...items: T[]
) => number;
export const ArrayPrototypeJoin = uncurryThis(Array.prototype.join) as (
  array: unknown[],
  separator?: string,
) => string;

export const StringFromCharCode = String.fromCharCode;
export const StringPrototypeCharCodeAt = uncurryThis(String.prototype.charCodeAt);
export const StringPrototypeSlice = uncurryThis(String.prototype.slice);
export const StringPrototypeToWellFormed = uncurryThis(String.prototype.toWellFormed);
export const StringPrototypeIndexOf = uncurryThis(String.prototype.indexOf);
export const StringPrototypeStartsWith = uncurryThis(String.prototype.startsWith);
export const StringPrototypeTrim = uncurryThis(String.prototype.trim);
export const StringPrototypeToUpperCase = uncurryThis(String.prototype.toUpperCase);
export const StringPrototypeSplit = uncurryThis(String.prototype.split) as (
  text: string,
  separator: string | RegExp,
  limit?: number,
) => string[];
export const StringPrototypeToLowerCase = uncurryThis(String.prototype.toLowerCase);
export const StringPrototypeReplace = uncurryThis(String.prototype.replace) as unknown as (
  text: string,
  pattern: RegExp | string,
  replacement: string,
) => string;

export const RegExpPrototypeTest = uncurryThis(RegExp.prototype.test);
export const RegExpPrototypeExec = uncurryThis(RegExp.prototype.exec) as (
  pattern: RegExp,
  text: string,
) => RegExpExecArray | null;

export const NumberIsNaN = Number.isNaN;
export const NumberIsFinite = Number.isFinite;
export const MathTrunc = Math.trunc;
export const MathFloor = Math.floor;
export const MathMin = Math.min;
export const MathMax = Math.max;

export const DateNow = Date.now;

export const PromiseCtor = Promise;
export const PromiseResolve = Promise.resolve.bind(Promise) as <T>(value: T) => Promise<Awaited<T>>;
export const PromisePrototypeThen = uncurryThis(Promise.prototype.then) as <T, R1 = T, R2 = never>(
  promise: Promise<T>,
  onFulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
  onRejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
) => Promise<R1 | R2>;

export const ErrorCtor = Error;
export const TypeErrorCtor = TypeError;
export const RangeErrorCtor = RangeError;
export const SyntaxErrorCtor = SyntaxError;
export const ReferenceErrorCtor = ReferenceError;

export const Uint8ArrayCtor = Uint8Array;
const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype) as object;
const typedArrayGetter = (key: PropertyKey) =>
  uncurryThis(getOwnPropertyDescriptor(TypedArrayPrototype, key)?.get as (this: unknown) => unknown);
/** The typed array's kind (`Uint8Array`, ...), or undefined for anything that is not a typed array. */
export const TypedArrayPrototypeGetSymbolToStringTag = typedArrayGetter(Symbol.toStringTag) as (
  value: unknown,
) => string | undefined;
export const TypedArrayPrototypeGetByteLength = typedArrayGetter('byteLength') as (value: unknown) => number;
export const TypedArrayPrototypeGetByteOffset = typedArrayGetter('byteOffset') as (value: unknown) => number;
export const TypedArrayPrototypeGetBuffer = typedArrayGetter('buffer') as (value: unknown) => ArrayBufferLike;

export const TypedArrayPrototypeSet = uncurryThis(
  (TypedArrayPrototype as { set: (this: Uint8Array, source: ArrayLike<number>, offset?: number) => void })
    .set,
);

const getter = (target: object, key: PropertyKey) =>
  uncurryThis(getOwnPropertyDescriptor(target, key)?.get as (this: unknown) => unknown);
export const ArrayBufferPrototypeGetByteLength = getter(ArrayBuffer.prototype, 'byteLength') as (
  value: unknown,
) => number;
export const ArrayBufferPrototypeSlice = uncurryThis(ArrayBuffer.prototype.slice) as (
  buffer: ArrayBuffer,
  begin?: number,
  end?: number,
) => ArrayBuffer;
export const DataViewPrototypeGetBuffer = getter(DataView.prototype, 'buffer') as (
  value: unknown,
) => ArrayBufferLike;
export const DataViewPrototypeGetByteOffset = getter(DataView.prototype, 'byteOffset') as (
  value: unknown,
) => number;
export const DataViewPrototypeGetByteLength = getter(DataView.prototype, 'byteLength') as (
  value: unknown,
) => number;
export const TypedArrayPrototypeSubarray = uncurryThis(
  (TypedArrayPrototype as { subarray: (this: Uint8Array, begin?: number, end?: number) => Uint8Array })
    .subarray,
);
export const TypedArrayPrototypeSlice = uncurryThis(
  (TypedArrayPrototype as { slice: (this: Uint8Array, begin?: number, end?: number) => Uint8Array }).slice,
);

export const MapCtor = Map;
export const SetCtor = Set;
export const WeakMapCtor = WeakMap;
export const SymbolCtor = Symbol;
export const SymbolIterator = Symbol.iterator;
export const SymbolAsyncIterator = Symbol.asyncIterator;

export const JSONStringify = JSON.stringify;
export const JSONParse = JSON.parse;

export const SymbolToStringTag = Symbol.toStringTag;

// Encoding and URL (encoding/, url/).
export const Uint16ArrayCtor = Uint16Array;
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
/** %IteratorPrototype%, which every built-in iterator's prototype inherits. */
export const IteratorPrototype = Object.getPrototypeOf(
  Object.getPrototypeOf([][Symbol.iterator]()),
) as object;
