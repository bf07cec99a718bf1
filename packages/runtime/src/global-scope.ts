/**
 * How the runtime publishes its globals: the descriptors WebIDL gives them, so what user code
 * observes through Object.getOwnPropertyDescriptor(globalThis, name) matches workerd.
 */
import { ObjectDefineProperty } from './primordials.ts';

/** An interface object (a class): writable, configurable, not enumerable. */
export function exposeInterface(name: string, value: unknown): void {
  ObjectDefineProperty(globalThis, name, { value, writable: true, enumerable: false, configurable: true });
}

/** An operation or attribute of the global scope (atob, fetch, crypto): writable, enumerable, configurable. */
export function exposeMember(name: string, value: unknown): void {
  ObjectDefineProperty(globalThis, name, { value, writable: true, enumerable: true, configurable: true });
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
