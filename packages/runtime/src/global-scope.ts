/**
 * How the runtime publishes its globals: the descriptors WebIDL gives them, so what user code
 * observes through Object.getOwnPropertyDescriptor(globalThis, name) matches workerd, and the
 * shape workerd's native functions have.
 */
import {
  ArrayPrototypePush,
  ObjectDefineProperty,
  ObjectGetPrototypeOf,
  ReflectApply,
  ReflectGetOwnPropertyDescriptor,
  ReflectOwnKeys,
  WeakMapCtor,
} from './primordials.ts';

/** Every value published on the global object, for markNative once the bundle has loaded. */
const published: unknown[] = [];

/** An interface object (a class): writable, configurable, not enumerable. */
export function exposeInterface(name: string, value: unknown): void {
  ObjectDefineProperty(globalThis, name, { value, writable: true, enumerable: false, configurable: true });
  ArrayPrototypePush(published, value);
}

/** An operation or attribute of the global scope (atob, fetch, crypto): writable, enumerable, configurable. */
export function exposeMember(name: string, value: unknown): void {
  ObjectDefineProperty(globalThis, name, { value, writable: true, enumerable: true, configurable: true });
  ArrayPrototypePush(published, value);
}

/** Gives a class the `Symbol.toStringTag` WebIDL gives every interface prototype. */
export function tagInterface(target: { prototype: object }, name: string): void {
  ObjectDefineProperty(target.prototype, Symbol.toStringTag, {
    value: name,
    writable: false,
    enumerable: false,
    configurable: true,
  });
}

/**
 * The runtime's functions and the name each shows as native code. workerd's functions are native,
 * so String(fetch) reads `function fetch() { [native code] }`; the runtime's are JavaScript, and
 * their source is nobody's business but the runtime's. A WeakMap keeps no function alive.
 */
const nativeNames = new WeakMapCtor<object, string>();
const WeakMapGet = WeakMapCtor.prototype.get;
const WeakMapSet = WeakMapCtor.prototype.set;
const originalToString = Function.prototype.toString;

/** Shows `fn` as a native function named `name` to Function.prototype.toString. */
export function nativeSource(fn: unknown, name: string): void {
  ReflectApply(WeakMapSet, nativeNames, [fn, name]);
}

/**
 * Makes `Guarded` take the place of the built-in constructor `Original`: the same prototype, not
 * writable as a class's, whose `constructor` is now `Guarded`, and native code as its source, so
 * instances and `instanceof` are what they were.
 */
export function standIn(Guarded: object, Original: { prototype: object }, name: string): void {
  ObjectDefineProperty(Guarded, 'prototype', {
    value: Original.prototype,
    writable: false,
    enumerable: false,
    configurable: false,
  });
  ObjectDefineProperty(Original.prototype, 'constructor', {
    value: Guarded,
    writable: true,
    enumerable: false,
    configurable: true,
  });
  nativeSource(Guarded, name);
}

// A method, so it has no prototype and cannot be constructed, as the built-in it replaces.
const { toString: nativeToString } = {
  toString(this: unknown): string {
    const name = ReflectApply(WeakMapGet, nativeNames, [this]) as string | undefined;
    if (name !== undefined) return `function ${name}() { [native code] }`;
    return ReflectApply(originalToString, this, []) as string;
  },
};
/** What Function.prototype.toString shows of `fn`, read without whatever a program put in its place. */
export function functionSource(fn: unknown): string {
  return ReflectApply(nativeToString, fn, []) as string;
}

ObjectDefineProperty(Function.prototype, 'toString', {
  value: nativeToString,
  writable: true,
  enumerable: false,
  configurable: true,
});
nativeSource(nativeToString, 'toString');

/** A function as workerd's native functions are: `length` 0, and native code as its source. */
function markFunction(fn: (...args: never[]) => unknown): void {
  if (ReflectApply(WeakMapGet, nativeNames, [fn]) !== undefined) return;
  const name = ReflectGetOwnPropertyDescriptor(fn, 'name')?.value;
  nativeSource(fn, typeof name === 'string' ? name : '');
  // Redefining length gives the function a map of its own: only where it is not 0 already.
  if (ReflectGetOwnPropertyDescriptor(fn, 'length')?.value !== 0)
    ObjectDefineProperty(fn, 'length', { value: 0 });
}

/**
 * Gives a published value, and every function reachable from it through its own members and its
 * prototype's, workerd's native shape (markFunction). An object that is not a function (crypto,
 * performance, console) has its members and its prototype's members marked; `constructor` keys
 * are not followed, since one of them leads back to Object. It runs before any user code.
 */
export function markNative(value: unknown, depth = 0): void {
  if (depth > 3 || value === globalThis || (typeof value !== 'object' && typeof value !== 'function')) return;
  if (value === null) return;
  if (typeof value === 'function') markFunction(value as (...args: never[]) => unknown);
  const visitMembers = (target: object) => {
    const keys = ReflectOwnKeys(target);
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index] as PropertyKey;
      if (key === 'constructor' || key === 'prototype') continue;
      const descriptor = ReflectGetOwnPropertyDescriptor(target, key);
      if (descriptor === undefined) continue;
      if (descriptor.get !== undefined) markFunction(descriptor.get);
      if (descriptor.set !== undefined) markFunction(descriptor.set);
      if (typeof descriptor.value === 'function') markFunction(descriptor.value);
      else if (typeof descriptor.value === 'object') markNative(descriptor.value, depth + 1);
    }
  };
  visitMembers(value);
  if (typeof value === 'function') {
    const prototype = ReflectGetOwnPropertyDescriptor(value, 'prototype')?.value;
    if (typeof prototype === 'object' && prototype !== null) visitMembers(prototype);
  } else if (depth === 0) {
    // A published instance's class may not be published itself (performance's is not). Deeper
    // down only own members are marked, so no walk ever reaches a built-in prototype.
    const prototype = ObjectGetPrototypeOf(value) as object | null;
    if (prototype !== null && prototype !== Object.prototype) visitMembers(prototype);
  }
}

/** Marks everything exposeInterface and exposeMember published; the last step of loading the bundle. */
export function markPublishedNative(): void {
  for (let index = 0; index < published.length; index++) markNative(published[index]);
}
