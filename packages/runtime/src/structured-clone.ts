/**
 * structuredClone (HTML, https://html.spec.whatwg.org/multipage/structured-data.html#structured-cloning):
 * a deep copy through the serializable types, cycles and shared references preserved, and a
 * DataCloneError (with workerd's "<value> could not be cloned." text) for what cannot be copied.
 */
import { DOMException } from './dom-exception.ts';
import {
  ArrayBufferPrototypeGetByteLength,
  ArrayBufferPrototypeSlice,
  ArrayIsArray,
  ObjectGetPrototypeOf,
  ObjectKeys,
  ObjectPrototypeToString,
  TypedArrayPrototypeGetBuffer,
  TypedArrayPrototypeGetByteLength,
  TypedArrayPrototypeGetByteOffset,
  TypedArrayPrototypeGetSymbolToStringTag,
  TypeErrorCtor,
} from './primordials.ts';
import { GLOBAL_SCOPE } from './webidl.ts';

const ERROR_TYPES: Record<string, ErrorConstructor> = {
  __proto__: null as unknown as ErrorConstructor,
  Error,
  EvalError,
  RangeError,
  ReferenceError,
  SyntaxError,
  TypeError,
  URIError,
};

/** Prototypes of the runtime's own interfaces: platform objects, which are not serializable here. */
const platformPrototypes = new Set<object>();

export function registerPlatformInterface(platformInterface: { prototype: object }): void {
  platformPrototypes.add(platformInterface.prototype);
}

function isPlatformObject(value: object): boolean {
  for (
    let prototype = ObjectGetPrototypeOf(value);
    prototype !== null;
    prototype = ObjectGetPrototypeOf(prototype)
  ) {
    if (platformPrototypes.has(prototype)) return true;
  }
  return false;
}

function cannotClone(value: unknown): DOMException {
  let text: string;
  if (typeof value === 'function' || typeof value === 'symbol') {
    text = String(value);
  } else {
    const tag = ObjectPrototypeToString(value as object).slice(8, -1);
    text = `#<${tag}>`;
  }
  return new DOMException(`${text} could not be cloned.`, 'DataCloneError');
}

/** Whether `check` accepts `value`: the internal-slot test of one built-in type, which a tag cannot fake. */
function has(check: (value: unknown) => unknown, value: unknown): boolean {
  try {
    check(value);
    return true;
  } catch {
    return false;
  }
}

const getterOf = (target: object, key: string) => {
  const get = Object.getOwnPropertyDescriptor(target, key)?.get as (this: unknown) => unknown;
  return (value: unknown) => Reflect.apply(get, value, []);
};
const regExpSource = getterOf(RegExp.prototype, 'source');
const regExpFlags = getterOf(RegExp.prototype, 'flags');
const dataViewBuffer = getterOf(DataView.prototype, 'buffer');
const dataViewOffset = getterOf(DataView.prototype, 'byteOffset');
const dataViewLength = getterOf(DataView.prototype, 'byteLength');
const BRANDS: [string, (value: unknown) => unknown][] = [
  ['ArrayBuffer', ArrayBufferPrototypeGetByteLength],
  ['DataView', dataViewLength],
  ['Map', getterOf(Map.prototype, 'size')],
  ['Set', getterOf(Set.prototype, 'size')],
  ['Date', (value) => Reflect.apply(Date.prototype.getTime, value, [])],
  ['RegExp', (value) => value !== RegExp.prototype && regExpSource(value)],
  ['Boolean', (value) => Reflect.apply(Boolean.prototype.valueOf, value, [])],
  ['Number', (value) => Reflect.apply(Number.prototype.valueOf, value, [])],
  ['String', (value) => Reflect.apply(String.prototype.valueOf, value, [])],
  ['BigInt', (value) => Reflect.apply(BigInt.prototype.valueOf, value, [])],
];

/** The built-in type of `value`, read from its internal slots; Error and Array from the language's own tests. */
function brand(value: object): string {
  for (const [name, check] of BRANDS) if (has(check, value)) return name;
  if (ArrayIsArray(value)) return 'Array';
  const tag = ObjectPrototypeToString(value).slice(8, -1);
  return tag === 'Error' ? 'Error' : tag === 'Object' || tag === 'Arguments' ? 'Object' : `exotic ${tag}`;
}

export function structuredClone(value: unknown, options?: { transfer?: Iterable<unknown> }): unknown {
  // biome-ignore lint/complexity/noArguments: WebIDL tells a missing argument from an explicit undefined.
  if (arguments.length === 0) {
    throw new TypeErrorCtor(
      `Failed to execute 'structuredClone' on '${GLOBAL_SCOPE}': parameter 1 is not of type 'Value'.`,
    );
  }
  const transferred = new Map<object, ArrayBuffer>();
  if (options !== undefined && options !== null && options.transfer !== undefined) {
    for (const item of options.transfer) {
      if (typeof item !== 'object' || item === null || brand(item) !== 'ArrayBuffer') throw cannotClone(item);
      if (transferred.has(item as object)) {
        throw new DOMException(
          'An ArrayBuffer is listed more than once in the transfer list.',
          'DataCloneError',
        );
      }
      transferred.set(item as object, undefined as unknown as ArrayBuffer);
    }
  }
  const memory = new Map<object, unknown>();
  const copy = cloneValue(value, memory, transferred);
  // Transfer last: a buffer is detached only once the whole value has been copied.
  for (const [buffer] of transferred) {
    (buffer as ArrayBuffer & { transfer(): ArrayBuffer }).transfer();
  }
  return copy;
}

function cloneValue(
  value: unknown,
  memory: Map<object, unknown>,
  transferred: Map<object, ArrayBuffer>,
): unknown {
  if (typeof value === 'symbol' || typeof value === 'function') throw cannotClone(value);
  if (typeof value !== 'object' || value === null) return value;
  if (memory.has(value)) return memory.get(value);
  const kind = TypedArrayPrototypeGetSymbolToStringTag(value);
  if (kind !== undefined) {
    const buffer = cloneValue(TypedArrayPrototypeGetBuffer(value), memory, transferred) as ArrayBuffer;
    const View = (
      globalThis as unknown as Record<
        string,
        new (
          buffer: ArrayBuffer,
          offset: number,
          length: number,
        ) => object
      >
    )[kind];
    const size = (View as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT;
    const view = new (View as new (buffer: ArrayBuffer, offset: number, length: number) => object)(
      buffer,
      TypedArrayPrototypeGetByteOffset(value),
      TypedArrayPrototypeGetByteLength(value) / size,
    );
    memory.set(value, view);
    return view;
  }
  const type = brand(value);
  let copy: unknown;
  switch (type) {
    case 'ArrayBuffer': {
      if (transferred.has(value)) {
        // The copy gets the bytes; the original is detached once cloning finishes.
        copy = ArrayBufferPrototypeSlice(value as ArrayBuffer, 0, ArrayBufferPrototypeGetByteLength(value));
      } else {
        copy = ArrayBufferPrototypeSlice(value as ArrayBuffer, 0);
      }
      memory.set(value, copy);
      return copy;
    }
    case 'DataView': {
      const buffer = cloneValue(dataViewBuffer(value), memory, transferred) as ArrayBuffer;
      copy = new DataView(buffer, dataViewOffset(value) as number, dataViewLength(value) as number);
      memory.set(value, copy);
      return copy;
    }
    case 'Boolean':
      copy = Object(Boolean.prototype.valueOf.call(value));
      break;
    case 'Number':
      copy = Object(Number.prototype.valueOf.call(value));
      break;
    case 'String':
      copy = Object(String.prototype.valueOf.call(value));
      break;
    case 'BigInt':
      copy = Object(BigInt.prototype.valueOf.call(value));
      break;
    case 'Date':
      copy = new Date(Date.prototype.getTime.call(value));
      break;
    case 'RegExp': {
      const source = regExpSource(value) as string;
      const flags = regExpFlags(value) as string;
      copy = new RegExp(source, flags);
      break;
    }
    case 'Map': {
      const map = new Map();
      memory.set(value, map);
      const entries: [unknown, unknown][] = [];
      Map.prototype.forEach.call(value, (item: unknown, key: unknown) => entries.push([key, item]));
      for (const [key, item] of entries)
        map.set(cloneValue(key, memory, transferred), cloneValue(item, memory, transferred));
      return map;
    }
    case 'Set': {
      const set = new Set();
      memory.set(value, set);
      const items: unknown[] = [];
      Set.prototype.forEach.call(value, (item: unknown) => items.push(item));
      for (const item of items) set.add(cloneValue(item, memory, transferred));
      return set;
    }
    case 'Error': {
      const error = value as Error;
      const name = error.name;
      const Constructor = ERROR_TYPES[typeof name === 'string' ? name : 'Error'] ?? Error;
      const message = error.message;
      const clone = message === undefined ? new Constructor() : new Constructor(String(message));
      const stack = error.stack;
      if (typeof stack === 'string')
        Object.defineProperty(clone, 'stack', { value: stack, writable: true, configurable: true });
      memory.set(value, clone);
      return clone;
    }
    case 'Array': {
      const array: unknown[] = new Array((value as unknown[]).length);
      memory.set(value, array);
      for (const key of ObjectKeys(value)) {
        (array as unknown as Record<string, unknown>)[key] = cloneValue(
          (value as Record<string, unknown>)[key],
          memory,
          transferred,
        );
      }
      return array;
    }
    default: {
      if (type !== 'Object' || isPlatformObject(value)) throw cannotClone(value);
      const object: Record<string, unknown> = {};
      memory.set(value, object);
      for (const key of ObjectKeys(value)) {
        object[key] = cloneValue((value as Record<string, unknown>)[key], memory, transferred);
      }
      return object;
    }
  }
  memory.set(value, copy);
  return copy;
}
