/**
 * The bytes crypto.subtle hands to the host, measured before they cross. Every argument is
 * copied out of the isolate into the host's heap, where the memory limit does not meter it, and
 * waits there on the execution's chain of operations until its turn: a program that asks for a
 * thousand digests of one 32 MiB buffer holds one buffer itself and would queue 32 GB on the
 * host. So the operations in flight may hold at most the isolate's own memory limit of bytes
 * between them, each counted at least CROSSING_FLOOR (what an operation costs the host beyond its
 * arguments); an operation past that rejects with a QuotaExceededError before anything is copied.
 * Bytes are given back when the host's answer arrives.
 */
import { DOMException } from '../dom-exception.ts';
import { memoryLimitBytes } from '../memory-limit.ts';
import {
  ArrayBufferPrototypeGetByteLength,
  ArrayIsArray,
  MathMax,
  ObjectKeys,
  TypedArrayPrototypeGetByteLength,
  TypedArrayPrototypeGetSymbolToStringTag,
} from '../primordials.ts';

/** What one operation is counted at least. */
export const CROSSING_FLOOR = 4096;

/** The text of the QuotaExceededError an operation past the budget rejects with. */
export function crossingLimitMessage(bytes: number, limit: number, inFlight: number): string {
  return `This crypto.subtle operation would hand ${bytes} bytes to the host while ${inFlight} are in flight; operations in flight may hold at most ${limit} bytes (the execution's memory limit).`;
}

let inFlight = 0;

/** The bytes `value` takes once copied: strings at two bytes a unit, buffers and views their length. */
function sizeOf(value: unknown, depth: number): number {
  if (typeof value === 'string') return value.length * 2;
  if (typeof value !== 'object' || value === null || depth > 8) return 8;
  if (TypedArrayPrototypeGetSymbolToStringTag(value) !== undefined)
    return TypedArrayPrototypeGetByteLength(value);
  try {
    return ArrayBufferPrototypeGetByteLength(value);
  } catch {}
  let total = 0;
  if (ArrayIsArray(value)) {
    for (let index = 0; index < value.length; index++) total += 8 + sizeOf(value[index], depth + 1);
    return total;
  }
  // The runtime's own records and DataViews' bytes never reach here: what crosses is records,
  // lists, strings, numbers and buffers the runtime built.
  const keys = ObjectKeys(value);
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as string;
    total += key.length * 2 + sizeOf((value as Record<string, unknown>)[key], depth + 1);
  }
  return total;
}

/** Counts an operation's arguments in, or throws the QuotaExceededError; returns what to give back. */
export function admitCrossing(args: readonly unknown[]): number {
  const bytes = MathMax(CROSSING_FLOOR, sizeOf(args, 0));
  const limit = memoryLimitBytes();
  if (inFlight + bytes > limit)
    throw new DOMException(crossingLimitMessage(bytes, limit, inFlight), 'QuotaExceededError');
  inFlight += bytes;
  return bytes;
}

/** Gives back what admitCrossing counted, once the host has answered. */
export function releaseCrossing(bytes: number): void {
  inFlight -= bytes;
}
