/**
 * workerd's error texts for the streams web-streams-polyfill implements. The polyfill's own texts
 * differ ("This stream has already been locked for exclusive reading by another reader" where
 * workerd says "This ReadableStream is currently locked to a reader."), so the runtime wraps the
 * classes it publishes, at their boundary: each constructor, method and accessor translates what
 * it throws or rejects with. The polyfill itself is untouched, and only its own texts are
 * translated: an error a program raised (a source's `start` throwing) passes through as it was.
 *
 * The interfaces are made before the polyfill is loaded (it is a runtime piece, ./index.ts): each
 * member looks its polyfill function up on its first call.
 */

import { nativeSource } from '../global-scope.ts';
import {
  ObjectCreate,
  ObjectDefineProperty,
  ObjectGetPrototypeOf,
  PromisePrototypeThen,
  ReflectApply,
  ReflectConstruct,
  ReflectGetOwnPropertyDescriptor,
  RegExpPrototypeExec,
  TypeErrorCtor,
} from '../primordials.ts';
import { ILLEGAL_INVOCATION_MESSAGE } from '../webidl.ts';
import type { InterfaceShape, MemberKind } from './shape.ts';

const READER_LOCKED = 'This ReadableStream is currently locked to a reader.';
const WRITER_LOCKED = 'This WritableStream is currently locked to a writer.';
const READER_RELEASED = 'This ReadableStream reader has been released.';
const WRITER_RELEASED = 'This WritableStream writer has been released.';
const WRITABLE_CLOSED = 'This WritableStream has been closed.';

/** The polyfill's fixed texts, and workerd's for the same failure (observed on workerd 2026-11-17). */
const FIXED: Record<string, string> = {
  __proto__: null,
  'This stream has already been locked for exclusive reading by another reader': READER_LOCKED,
  'Cannot cancel a stream that already has a reader': READER_LOCKED,
  'ReadableStream.prototype.pipeTo cannot be used on a locked ReadableStream': READER_LOCKED,
  'ReadableStream.prototype.pipeThrough cannot be used on a locked ReadableStream': READER_LOCKED,
  'ReadableStream.prototype.pipeTo cannot be used on a locked WritableStream':
    'This WritableStream is currently locked to a writer',
  'ReadableStream.prototype.pipeThrough cannot be used on a locked WritableStream': WRITER_LOCKED,
  'This stream has already been locked for exclusive writing by another writer': WRITER_LOCKED,
  'Cannot abort a stream that already has a writer': WRITER_LOCKED,
  'Cannot close a stream that already has a writer': WRITER_LOCKED,
  "Reader was released and can no longer be used to monitor the stream's closedness": READER_RELEASED,
  "Writer was released and can no longer be used to monitor the stream's closedness": WRITER_RELEASED,
  'The stream is not in a state that permits enqueue': 'Unable to enqueue',
  'The stream is not in a state that permits close': 'This ReadableStream is closed.',
  'The stream (in closed state) is not in the readable state and cannot be enqueued to':
    'This ReadableByteStreamController is closed.',
  'The stream is closing or closed and cannot be written to': WRITABLE_CLOSED,
  'The stream (in closed state) is not in the writable state and cannot be closed': WRITABLE_CLOSED,
  'Readable side is not in a state that permits enqueue':
    'The readable side of this TransformStream is no longer readable.',
  'Cannot construct a ReadableStreamBYOBReader for a stream not constructed with a byte source':
    'This ReadableStream does not support BYOB reads.',
  "ReadableStream.prototype.pipeTo's first argument must be a WritableStream":
    "Failed to execute 'pipeTo' on 'ReadableStream': parameter 1 is not of type 'WritableStream'.",
  "Parameter 1 is required in 'pipeTo'.":
    "Failed to execute 'pipeTo' on 'ReadableStream': parameter 1 is not of type 'WritableStream'.",
  'view must be an array buffer view':
    "Failed to execute 'read' on 'ReadableStreamBYOBReader': parameter 1 is not of type 'ArrayBufferView'.",
  'view must have non-zero byteLength':
    'You must call read() on a "byob" reader with a positive-sized TypedArray object.',
  'chunk must be an array buffer view':
    "Failed to execute 'enqueue' on 'ReadableByteStreamController': parameter 1 is not of type 'BufferSource'.",
  "Second parameter has member 'signal' that is not an AbortSignal.":
    "Incorrect type for the 'signal' field on 'PipeToOptions': the provided value is not of type 'AbortSignal'.",
} as unknown as Record<string, string>;

/** What a wrapped constructor or method is: its interface, its name and its parameters' types. */
interface Operation {
  readonly owner: string;
  readonly name: string;
  readonly types: readonly string[];
}

const POSITIONS: Record<string, number> = { __proto__: null, First: 1, Second: 2, Third: 3 } as never;

/** The polyfill's templated texts, each with the function that writes workerd's. */
const PATTERNS: readonly (readonly [RegExp, (match: string[], operation: Operation) => string])[] = [
  [/^Cannot [a-zA-Z ]+ a stream using a released reader$/, () => READER_RELEASED],
  [/^Cannot [a-zA-Z ]+ a stream using a released writer$/, () => WRITER_RELEASED],
  [/^[A-Za-z]+\.prototype\.[A-Za-z]+ can only be used on a [A-Za-z]+$/, () => ILLEGAL_INVOCATION_MESSAGE],
  [
    /^First parameter has member 'type' that '(.*)' is not a valid enumeration value for ReadableStreamType$/s,
    (match) => `"${match[1]}" is not a valid type of ReadableStream.`,
  ],
  [
    /^First parameter has member 'mode' that /,
    () => "mode must be undefined or 'byob' in call to getReader().",
  ],
  [
    /^(First|Second|Third) parameter has member '([A-Za-z]+)' that is not a function\.$/,
    (match, operation) =>
      `Incorrect type for the '${match[2]}' field on '${operation.types[(POSITIONS[match[1] as string] as number) - 1] ?? 'Object'}': the provided value is not of type 'function'.`,
  ],
  [
    /^(First|Second|Third) parameter is not (an object|a [A-Za-z]+)\.$|^Parameter (1) is required in '[A-Za-z]+'\.$/,
    (match, operation) => {
      const position = match[3] === undefined ? (POSITIONS[match[1] as string] as number) : 1;
      const type = operation.types[position - 1] ?? 'Object';
      return operation.name === 'constructor'
        ? `Failed to construct '${operation.owner}': constructor parameter ${position} is not of type '${type}'.`
        : `Failed to execute '${operation.name}' on '${operation.owner}': parameter ${position} is not of type '${type}'.`;
    },
  ],
];

function workerdText(text: string, operation: Operation): string | undefined {
  const fixed = FIXED[text];
  // workerd's tee ends this one text with a comma.
  if (fixed === READER_LOCKED && operation.name === 'tee')
    return 'This ReadableStream is currently locked to a reader,';
  if (fixed !== undefined) return fixed;
  for (let index = 0; index < PATTERNS.length; index++) {
    const entry = PATTERNS[index] as (typeof PATTERNS)[number];
    const match = RegExpPrototypeExec(entry[0], text);
    if (match !== null) return entry[1](match, operation);
  }
  return undefined;
}

/**
 * The error the program sees for `error`, which the polyfill raised in `operation`: the same error
 * with workerd's text in place of the polyfill's (the stack is formatted when first read, so it
 * reads the new text too). The polyfill rejects a pipeTo without arguments with a bare string,
 * which becomes a TypeError.
 */
function translate(error: unknown, operation: Operation): unknown {
  if (typeof error === 'string') {
    const text = workerdText(error, operation);
    return text === undefined ? error : new TypeErrorCtor(text);
  }
  if (typeof error !== 'object' || error === null) return error;
  const message = ReflectGetOwnPropertyDescriptor(error, 'message');
  if (typeof message?.value !== 'string') return error;
  const text = workerdText(message.value, operation);
  if (text !== undefined) ObjectDefineProperty(error, 'message', { ...message, value: text });
  return error;
}

const PromisePrototype = Promise.prototype;
const isPromise = (value: unknown): value is Promise<unknown> =>
  typeof value === 'object' && value !== null && ObjectGetPrototypeOf(value) === PromisePrototype;

/**
 * Calls a polyfill function and translates its failure: a throw, or the rejection of the promise
 * it answers. `sameResult` keeps the answer's identity (an accessor such as `closed` answers the
 * same promise on every read), so its rejection is translated in place instead.
 */
function call(
  fn: (...args: never[]) => unknown,
  self: unknown,
  args: unknown,
  operation: Operation,
  sameResult: boolean,
) {
  let result: unknown;
  try {
    result = ReflectApply(fn, self, args as never[]);
  } catch (error) {
    throw translate(error, operation);
  }
  if (!isPromise(result)) return result;
  if (sameResult) {
    PromisePrototypeThen(result, undefined, (error) => void translate(error, operation));
    return result;
  }
  return PromisePrototypeThen(result, undefined, (error) => {
    throw translate(error, operation);
  });
}

/** What an interface needs of its polyfill class once the piece is loaded (./index.ts, connect). */
export interface PolyfillClass {
  readonly polyfillClass: new (...args: unknown[]) => object;
  /** The polyfill's own prototype, holding the functions the interface's members call. */
  readonly polyfillPrototype: object;
}

const SYMBOL_KEYS: Record<string, symbol> = {
  __proto__: null,
  '@@asyncIterator': Symbol.asyncIterator,
} as never;

/** The property key a shape names: `@@name` is the well-known symbol. */
export const keyOf = (key: string): PropertyKey => SYMBOL_KEYS[key] ?? key;

/** The polyfill's function behind the member `key` of `holder`. */
function memberOf(holder: object, key: PropertyKey, kind: MemberKind): (...args: never[]) => unknown {
  const descriptor = ReflectGetOwnPropertyDescriptor(holder, key) as PropertyDescriptor;
  return (kind === 'getter' ? descriptor.get : descriptor.value) as (...args: never[]) => unknown;
}

/**
 * A wrapper for the member `key` of `holder()` (the polyfill's prototype or class), looked up on
 * the wrapper's first call, that translates what it throws. Defined in an object literal under
 * `name`, so the engine names it (`getReader`, `get locked`) and no wrapper needs a map of its own
 * for a redefined name; a method or accessor, so it cannot be constructed, as the polyfill's cannot.
 */
function wrapper(
  holder: () => object,
  key: PropertyKey,
  kind: MemberKind,
  name: string,
  operation: Operation,
): (...args: unknown[]) => unknown {
  let target: ((...args: never[]) => unknown) | undefined;
  if (kind === 'getter') {
    const literal = {
      get [name](): unknown {
        target ??= memberOf(holder(), key, kind);
        return call(target, this, [], operation, true);
      },
    };
    return (ReflectGetOwnPropertyDescriptor(literal, name) as PropertyDescriptor).get as () => unknown;
  }
  const literal = {
    [name](this: unknown, ...args: unknown[]): unknown {
      target ??= memberOf(holder(), key, kind);
      return call(target, this, args, operation, false);
    },
  };
  return literal[name] as (...args: unknown[]) => unknown;
}

function defineMembers(
  target: object,
  holder: () => object,
  members: InterfaceShape['prototype'],
  owner: string,
  methodTypes: Record<string, readonly string[]>,
): void {
  for (let index = 0; index < members.length; index++) {
    const member = members[index] as InterfaceShape['prototype'][number];
    const shapeKey = member[0];
    const kind = member[1];
    const key = keyOf(shapeKey);
    // Symbol.asyncIterator is the polyfill's values, by that name.
    const name = typeof key === 'symbol' ? 'values' : shapeKey;
    const operation: Operation = {
      owner,
      name: typeof key === 'symbol' ? '' : shapeKey,
      types: methodTypes[shapeKey] ?? [],
    };
    const made = wrapper(holder, key, kind, name, operation);
    ObjectDefineProperty(
      target,
      key,
      kind === 'getter'
        ? { get: made, enumerable: true, configurable: true }
        : { value: made, writable: true, enumerable: typeof key !== 'symbol', configurable: true },
    );
  }
}

/**
 * The wrapper an internal member of a polyfill prototype gets when the piece connects (a
 * controller's [[PullSteps]]): translated as the published members are, as before they were lazy.
 */
export function wrapInternalMember(
  target: object,
  key: symbol,
  method: (...args: never[]) => unknown,
  owner: string,
): void {
  const operation: Operation = { owner, name: '', types: [] };
  const made = {
    method(this: unknown, ...args: unknown[]) {
      return call(method, this, args, operation, false);
    },
  }.method;
  ObjectDefineProperty(made, 'name', { value: method.name });
  // Made after the snapshot marked the published functions native (global-scope.ts), so marked here.
  nativeSource(made, method.name);
  ObjectDefineProperty(target, key, { value: made, writable: true, enumerable: false, configurable: true });
}

/**
 * The interface object a program sees for a polyfill class, made before the polyfill is loaded:
 * a constructor that loads it (`polyfill()`) and translates, over a prototype of its own whose
 * members call the polyfill's. When the piece connects, the polyfill class's `prototype` becomes
 * this prototype, so the streams the polyfill makes inside (a tee's branches, a TransformStream's
 * sides) are instances of the interface too.
 */
export function lazyInterface(
  owner: string,
  shape: InterfaceShape,
  polyfill: () => PolyfillClass,
  types: readonly string[] = [],
  methodTypes: Record<string, readonly string[]> = {},
): { readonly prototype: object } {
  const operation: Operation = { owner, name: 'constructor', types };
  const Interface = function (this: unknown, ...args: unknown[]) {
    if (new.target === undefined) {
      throw new TypeErrorCtor(
        `Failed to construct '${owner}': Please use the 'new' operator, this object constructor cannot be called as a function.`,
      );
    }
    const { polyfillClass } = polyfill();
    try {
      return ReflectConstruct(polyfillClass, args, new.target);
    } catch (error) {
      throw translate(error, operation);
    }
  };
  const prototype = ObjectCreate(Object.prototype) as object;
  ObjectDefineProperty(Interface, 'name', { value: owner });
  ObjectDefineProperty(Interface, 'prototype', { value: prototype, writable: false });
  ObjectDefineProperty(prototype, 'constructor', {
    value: Interface,
    writable: true,
    enumerable: false,
    configurable: true,
  });
  defineMembers(prototype, () => polyfill().polyfillPrototype, shape.prototype, owner, methodTypes);
  ObjectDefineProperty(prototype, Symbol.toStringTag, { value: owner, configurable: true });
  defineMembers(Interface, () => polyfill().polyfillClass, shape.statics, owner, methodTypes);
  return Interface as unknown as { readonly prototype: object };
}
