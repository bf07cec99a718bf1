/**
 * Builtins that size their result array before checking it. V8 holds an array's elements in one
 * FixedArray of at most MAX_ARRAY_ELEMENTS; most builtins check a computed size against it and
 * throw a RangeError, but String.prototype.split allocates its pieces unchecked, and past the
 * maximum V8 ends the whole process ("Fatal JavaScript invalid size error", SIGTRAP), with no
 * callback isolated-vm could report: every isolate in the child dies with the one program that
 * asked. Measured with isolated-vm 6.2.0 on Node 24, under any memory limit: 2 ** 27 pieces
 * return, 2 ** 27 + 1 end the process, whether the separator is empty, one character or longer,
 * and for one-byte and two-byte strings alike.
 *
 * The guard throws the RangeError V8 throws on its checked paths, before calling the builtin,
 * only when the result is certain to pass the maximum. A split has at most `length + 1` pieces, so
 * a string shorter than the maximum goes straight to the builtin; only a longer one has its
 * pieces counted first (a scan of the string the split itself would make). Everything else the
 * specification defines (the order of the @@split lookup and the conversions, each done once, the
 * limit) is kept, so no input that did not abort behaves differently. Installed before the
 * snapshot is made; the runtime's own `.split` calls go through it too.
 */
import { nativeSource } from './global-scope.ts';
import {
  MathMin,
  ObjectDefineProperty,
  RangeErrorCtor,
  ReflectApply,
  StringPrototypeIndexOf,
} from './primordials.ts';

/** The most elements one array's backing store holds (V8's FixedArray::kMaxLength on 64-bit). */
export const MAX_ARRAY_ELEMENTS = 2 ** 27;

/** The text of V8's own RangeError for an array past its maximum length. */
export const INVALID_ARRAY_LENGTH_MESSAGE = 'Invalid array length';

const originalSplit = String.prototype.split;
const callSplit = Function.prototype.call.bind(originalSplit) as (
  text: unknown,
  separator: unknown,
  limit: unknown,
) => string[];
const SymbolSplit = Symbol.split;

/** How many pieces `text.split(separator, limit)` makes, counted no further than MAX_ARRAY_ELEMENTS + 1. */
function countPieces(text: string, separator: string, limit: number): number {
  if (separator.length === 0) return MathMin(text.length, limit);
  let pieces = 1;
  let at = StringPrototypeIndexOf(text, separator);
  while (at !== -1 && pieces < limit && pieces <= MAX_ARRAY_ELEMENTS) {
    pieces++;
    at = StringPrototypeIndexOf(text, separator, at + separator.length);
  }
  return MathMin(pieces, limit);
}

/** The specification's steps for a receiver that is not a short string, each conversion done once. */
function splitChecked(receiver: unknown, separator: unknown, limit: unknown): unknown {
  // The builtin throws its own TypeError for these, before anything else is looked at.
  if (receiver === undefined || receiver === null) return callSplit(receiver, separator, limit);
  if (separator !== undefined && separator !== null) {
    const splitter = (separator as { [SymbolSplit]?: unknown })[SymbolSplit];
    if (typeof splitter === 'function') return ReflectApply(splitter, separator, [receiver, limit]);
    // Not callable: the builtin's TypeError, with its text.
    if (splitter !== undefined && splitter !== null) return callSplit(receiver, separator, limit);
  }
  const text = `${receiver as string}`;
  const bound = limit === undefined ? 2 ** 32 - 1 : (limit as number) >>> 0;
  if (separator === undefined) return callSplit(text, undefined, bound);
  const pattern = `${separator as string}`;
  if (text.length >= MAX_ARRAY_ELEMENTS && countPieces(text, pattern, bound) > MAX_ARRAY_ELEMENTS)
    throw new RangeErrorCtor(INVALID_ARRAY_LENGTH_MESSAGE);
  return callSplit(text, pattern, bound);
}

// A method, so it has no prototype and cannot be constructed, as the builtin it replaces; its
// `length` is the builtin's 2.
const { split } = {
  split(this: unknown, separator: unknown, limit: unknown): unknown {
    // The common call: a string too short to make MAX_ARRAY_ELEMENTS + 1 pieces.
    if (typeof this === 'string' && this.length < MAX_ARRAY_ELEMENTS)
      return callSplit(this, separator, limit);
    return splitChecked(this, separator, limit);
  },
};

export function limitArraySizes(): void {
  ObjectDefineProperty(String.prototype, 'split', {
    value: split,
    writable: true,
    enumerable: false,
    configurable: true,
  });
  nativeSource(split, 'split');
}
