/**
 * The WebIDL pieces every interface shares (https://webidl.spec.whatwg.org/#es-type-mapping):
 * argument counts, conversions, brand checks and the shape an interface presents to user code,
 * with the error texts workerd writes. Interfaces call these instead of converting by hand, so
 * a TypeError reads the same everywhere.
 */
import {
  ArrayBufferPrototypeGetByteLength,
  DataViewPrototypeGetBuffer,
  DataViewPrototypeGetByteLength,
  DataViewPrototypeGetByteOffset,
  MathFloor,
  MathMax,
  MathMin,
  MathTrunc,
  NumberIsFinite,
  NumberIsNaN,
  ObjectDefineProperty,
  ObjectGetOwnPropertyNames,
  ReflectGetOwnPropertyDescriptor,
  ReflectOwnKeys,
  StringPrototypeCharCodeAt,
  StringPrototypeToWellFormed,
  SymbolToStringTag,
  TypedArrayPrototypeGetBuffer,
  TypedArrayPrototypeGetByteLength,
  TypedArrayPrototypeGetByteOffset,
  TypedArrayPrototypeGetSymbolToStringTag,
  TypeErrorCtor,
  Uint8ArrayCtor,
} from './primordials.ts';

export const GLOBAL_SCOPE = 'ServiceWorkerGlobalScope';

/** workerd's text for a method called on an object that is not an instance of its interface. */
export const ILLEGAL_INVOCATION_MESSAGE =
  'Illegal invocation: function called with incorrect `this` reference. See https://developers.cloudflare.com/workers/observability/errors/#illegal-invocation-errors for details.';

export function illegalInvocation(): TypeError {
  return new TypeErrorCtor(ILLEGAL_INVOCATION_MESSAGE);
}

/**
 * Throws workerd's TypeError when an operation got fewer arguments than it requires. workerd
 * converts a missing argument as undefined, so its text names the first missing parameter that
 * undefined does not convert to, and that parameter's type: `Failed to execute 'get' on 'Headers':
 * parameter 1 is not of type 'string'.`, or for a constructor `Failed to construct 'Event':
 * constructor parameter 1 is not of type 'string'.` `types` lists the parameters' types (null for
 * one that accepts undefined); without it every parameter is a 'string'.
 */
export function requireArguments(
  count: number,
  required: number,
  operation: string,
  owner: string,
  types?: readonly (string | null)[],
): void {
  if (count >= required) return;
  let position = count;
  while (position < required - 1 && types?.[position] === null) position++;
  const type = types?.[position] ?? 'string';
  throw operation === 'constructor'
    ? constructorArgumentTypeError(owner, position + 1, type)
    : argumentTypeError(operation, owner, position + 1, type);
}

/** The TypeError for an argument that is not of the type an operation requires. */
export function argumentTypeError(
  operation: string,
  owner: string,
  position: number,
  type: string,
): TypeError {
  return new TypeErrorCtor(
    `Failed to execute '${operation}' on '${owner}': parameter ${position} is not of type '${type}'.`,
  );
}

/** DOMString: ToString, which throws a TypeError for a Symbol as the language does. */
export function toDOMString(value: unknown): string {
  return `${value as string}`;
}

/** USVString: a DOMString with lone surrogates replaced by U+FFFD. */
export function toUSVString(value: unknown): string {
  return StringPrototypeToWellFormed(toDOMString(value));
}

/** ByteString: a DOMString whose every code unit is at most 0xFF. */
export function toByteString(value: unknown, onInvalid: () => Error): string {
  const text = toDOMString(value);
  for (let index = 0; index < text.length; index++) {
    if (StringPrototypeCharCodeAt(text, index) > 0xff) throw onInvalid();
  }
  return text;
}

export function toBoolean(value: unknown): boolean {
  return !!value;
}

/**
 * The integer types (https://webidl.spec.whatwg.org/#abstract-opdef-converttoint): modulo
 * conversion by default, or the [EnforceRange] / [Clamp] variants.
 */
export function toInteger(
  value: unknown,
  bits: 8 | 16 | 32 | 64,
  signed: boolean,
  options: { enforceRange?: boolean; clamp?: boolean; context?: string } = {},
): number {
  const upper = bits === 64 ? 2 ** 53 - 1 : signed ? 2 ** (bits - 1) - 1 : 2 ** bits - 1;
  const lower = bits === 64 ? (signed ? -(2 ** 53) + 1 : 0) : signed ? -(2 ** (bits - 1)) : 0;
  let number = +(value as number);
  if (number === 0) number = 0;
  if (options.enforceRange) {
    if (!NumberIsFinite(number)) {
      throw new TypeErrorCtor(`${options.context ?? 'Value'} is not a finite number.`);
    }
    number = MathTrunc(number);
    if (number < lower || number > upper) {
      throw new TypeErrorCtor(`${options.context ?? 'Value'} is outside the range [${lower}, ${upper}].`);
    }
    return number;
  }
  if (options.clamp && !NumberIsNaN(number)) {
    number = MathMin(MathMax(number, lower), upper);
    const floor = MathFloor(number);
    const rounded = number - floor > 0.5 || (number - floor === 0.5 && floor % 2 !== 0) ? floor + 1 : floor;
    return rounded === 0 ? 0 : rounded;
  }
  if (!NumberIsFinite(number)) return 0;
  number = MathTrunc(number);
  if (bits === 64) return number;
  const modulo = 2 ** bits;
  number = ((number % modulo) + modulo) % modulo;
  if (signed && number >= 2 ** (bits - 1)) number -= modulo;
  return number === 0 ? 0 : number;
}

/** The bytes an ArrayBuffer, typed array or DataView covers, or undefined for anything else. */
export function bufferSourceBytes(value: unknown): Uint8Array | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (TypedArrayPrototypeGetSymbolToStringTag(value) !== undefined) {
    return new Uint8ArrayCtor(
      TypedArrayPrototypeGetBuffer(value) as ArrayBuffer,
      TypedArrayPrototypeGetByteOffset(value),
      TypedArrayPrototypeGetByteLength(value),
    );
  }
  try {
    return new Uint8ArrayCtor(
      DataViewPrototypeGetBuffer(value) as ArrayBuffer,
      DataViewPrototypeGetByteOffset(value),
      DataViewPrototypeGetByteLength(value),
    );
  } catch {}
  try {
    ArrayBufferPrototypeGetByteLength(value);
    return new Uint8ArrayCtor(value as ArrayBuffer);
  } catch {}
  return undefined;
}

/** Whether `value` is an ArrayBuffer, a typed array or a DataView. */
export function isBufferSource(value: unknown): boolean {
  return bufferSourceBytes(value) !== undefined;
}

/**
 * Gives an interface the shape WebIDL gives it: `Symbol.toStringTag` on the prototype, and every
 * method and accessor of the prototype enumerable (classes make them non-enumerable). Call it once,
 * after the class is defined.
 */
export function defineInterface(
  target: { prototype: object; name: string },
  name: string = target.name,
): void {
  const prototype = target.prototype as Record<string, unknown>;
  const keys = ObjectGetOwnPropertyNames(prototype);
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as string;
    if (key === 'constructor') continue;
    const descriptor = ReflectGetOwnPropertyDescriptor(prototype, key);
    if (descriptor === undefined) continue;
    ObjectDefineProperty(prototype, key, { ...descriptor, enumerable: true });
  }
  ObjectDefineProperty(prototype, SymbolToStringTag, {
    value: name,
    writable: false,
    enumerable: false,
    configurable: true,
  });
}

/**
 * Get a copy of the bytes held by the buffer source
 * (https://webidl.spec.whatwg.org/#dfn-get-buffer-source-copy): a new ArrayBuffer with the bytes an
 * ArrayBuffer, typed array or DataView covers now (none for a detached buffer), or undefined for
 * anything else. The copy is made without reading anything user code can replace.
 */
export function copyBufferSource(value: unknown): ArrayBuffer | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  let source: Uint8Array | undefined;
  let length = 0;
  if (TypedArrayPrototypeGetSymbolToStringTag(value) !== undefined) {
    length = TypedArrayPrototypeGetByteLength(value);
    if (length > 0) {
      source = new Uint8ArrayCtor(
        TypedArrayPrototypeGetBuffer(value) as ArrayBuffer,
        TypedArrayPrototypeGetByteOffset(value),
        length,
      );
    }
  } else if (isDataView(value)) {
    try {
      length = DataViewPrototypeGetByteLength(value);
    } catch {
      length = 0; // detached
    }
    if (length > 0) {
      source = new Uint8ArrayCtor(
        DataViewPrototypeGetBuffer(value) as ArrayBuffer,
        DataViewPrototypeGetByteOffset(value),
        length,
      );
    }
  } else {
    try {
      length = ArrayBufferPrototypeGetByteLength(value);
    } catch {
      return undefined; // not an ArrayBuffer (a SharedArrayBuffer is not a BufferSource)
    }
    if (length > 0) source = new Uint8ArrayCtor(value as ArrayBuffer);
  }
  // A typed array constructed from a typed array copies its bytes into a new %ArrayBuffer%.
  const copy = source === undefined ? new Uint8ArrayCtor(0) : new Uint8ArrayCtor(source);
  return TypedArrayPrototypeGetBuffer(copy) as ArrayBuffer;
}

function isDataView(value: object): boolean {
  try {
    DataViewPrototypeGetBuffer(value);
    return true;
  } catch {
    return false;
  }
}

/** workerd's TypeError for a constructor argument that is missing or not of the type required. */
export function constructorArgumentTypeError(owner: string, position: number, type: string): TypeError {
  return new TypeErrorCtor(
    `Failed to construct '${owner}': constructor parameter ${position} is not of type '${type}'.`,
  );
}

/**
 * defineInterface, then the details workerd's interfaces show (observed on workerd 2026-11-17):
 * accessors' functions have the name "", static operations are enumerable, and `constructor` comes
 * after the members among the prototype's keys, with Symbol.toStringTag first among its symbols.
 * (`length` 0 and the native source come to every published function at once: markNative in
 * global-scope.ts.) It runs while the bundle loads, before any user code exists, so it may use
 * Reflect and Symbol directly.
 */
export function defineWorkerdInterface(
  target: { prototype: object; name: string },
  name: string = target.name,
): void {
  defineInterface(target, name);
  const prototype = target.prototype as Record<PropertyKey, unknown>;
  const keys = ReflectOwnKeys(prototype);
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as PropertyKey;
    if (key === 'constructor') continue;
    const descriptor = ReflectGetOwnPropertyDescriptor(prototype, key);
    if (descriptor?.get) ObjectDefineProperty(descriptor.get, 'name', { value: '' });
    if (descriptor?.set) ObjectDefineProperty(descriptor.set, 'name', { value: '' });
  }
  const statics = ReflectOwnKeys(target);
  for (let index = 0; index < statics.length; index++) {
    const key = statics[index] as PropertyKey;
    if (key === 'length' || key === 'name' || key === 'prototype') continue;
    const descriptor = ReflectGetOwnPropertyDescriptor(target, key);
    if (typeof descriptor?.value !== 'function') continue;
    ObjectDefineProperty(target, key, { ...descriptor, enumerable: true });
  }
  // Re-adding a key moves it to the end of its kind (strings, then symbols).
  const moveLast = (key: PropertyKey) => {
    const descriptor = ReflectGetOwnPropertyDescriptor(prototype, key);
    if (descriptor === undefined) return;
    delete prototype[key];
    ObjectDefineProperty(prototype, key, descriptor);
  };
  moveLast('constructor');
  const symbols = ReflectOwnKeys(prototype);
  for (let index = 0; index < symbols.length; index++) {
    const key = symbols[index] as PropertyKey;
    if (typeof key === 'symbol' && key !== SymbolToStringTag) moveLast(key);
  }
}
