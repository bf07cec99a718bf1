/**
 * Records the crypto runtime builds for itself. A record made with an object literal and then
 * assigned to would run a setter user code put on Object.prototype, and a read of a missing member
 * would find a value user code put there; these helpers do neither.
 */
import { ObjectCreate, ObjectDefineProperty, ObjectHasOwn } from '../primordials.ts';

/** A record with no prototype: nothing user code did to Object.prototype reaches it. */
export function dataRecord<T = Record<string, unknown>>(): T {
  return ObjectCreate(null) as T;
}

/** CreateDataProperty: an own, writable, enumerable, configurable member, whatever the prototype holds. */
export function defineData(target: object, key: string, value: unknown): void {
  ObjectDefineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/** An own member of a record the host answered with, or undefined. */
export function ownValue(source: unknown, key: string): unknown {
  return typeof source === 'object' && source !== null && ObjectHasOwn(source, key)
    ? (source as Record<string, unknown>)[key]
    : undefined;
}
