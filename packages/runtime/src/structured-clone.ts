/**
 * structuredClone (HTML, https://html.spec.whatwg.org/multipage/structured-data.html#structured-cloning):
 * a deep copy through the serializable types, cycles and shared references preserved, and a
 * DataCloneError (with workerd's "<value> could not be cloned." text) for what cannot be copied.
 */
import { DOMException } from './dom-exception.ts';
import { functionSource } from './global-scope.ts';
import {
  ArrayBufferPrototypeGetByteLength,
  ArrayBufferPrototypeSlice,
  ArrayBufferPrototypeTransfer,
  ArrayCtor,
  ArrayIsArray,
  ArrayPrototypePush,
  BigIntPrototypeValueOf,
  BooleanPrototypeValueOf,
  DataViewCtor,
  DataViewPrototypeGetBuffer,
  DataViewPrototypeGetByteLength,
  DataViewPrototypeGetByteOffset,
  DateCtor,
  DatePrototypeGetTime,
  ErrorCtor,
  EvalErrorCtor,
  MapCtor,
  MapPrototypeForEach,
  MapPrototypeGetSize,
  MapPrototypeSet,
  NumberPrototypeValueOf,
  ObjectCtor,
  ObjectDefineProperty,
  ObjectGetPrototypeOf,
  ObjectKeys,
  ObjectPrototypeToString,
  RangeErrorCtor,
  ReferenceErrorCtor,
  RegExpCtor,
  RegExpPrototypeGetFlags,
  RegExpPrototypeGetSource,
  SafeMap,
  SafeSet,
  SetCtor,
  SetPrototypeAdd,
  SetPrototypeForEach,
  SetPrototypeGetSize,
  StringCtor,
  StringPrototypeSlice,
  StringPrototypeValueOf,
  SyntaxErrorCtor,
  TypedArrayConstructors,
  TypedArrayPrototypeGetBuffer,
  TypedArrayPrototypeGetByteLength,
  TypedArrayPrototypeGetByteOffset,
  TypedArrayPrototypeGetSymbolToStringTag,
  TypeErrorCtor,
  URIErrorCtor,
} from './primordials.ts';
import { GLOBAL_SCOPE } from './webidl.ts';

const ERROR_TYPES: Record<string, ErrorConstructor> = {
  __proto__: null as unknown as ErrorConstructor,
  Error: ErrorCtor,
  EvalError: EvalErrorCtor,
  RangeError: RangeErrorCtor,
  ReferenceError: ReferenceErrorCtor,
  SyntaxError: SyntaxErrorCtor,
  TypeError: TypeErrorCtor,
  URIError: URIErrorCtor,
};

/** Prototypes of the runtime's own interfaces: platform objects, which are not serializable here. */
const platformPrototypes = new SafeSet<object>();

/** Marks an interface's instances as platform objects, which structuredClone refuses; answers the interface. */
export function registerPlatformInterface<T extends { prototype: object }>(platformInterface: T): T {
  platformPrototypes.add(platformInterface.prototype);
  return platformInterface;
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
  if (typeof value === 'function') {
    // As V8's serializer writes it: the source, calling nothing a program could have replaced.
    text = functionSource(value);
  } else if (typeof value === 'symbol') {
    text = StringCtor(value);
  } else {
    const tag = StringPrototypeSlice(ObjectPrototypeToString(value as object), 8, -1);
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

const RegExpPrototype = RegExpCtor.prototype;
const BRANDS: [string, (value: unknown) => unknown][] = [
  ['ArrayBuffer', ArrayBufferPrototypeGetByteLength],
  ['DataView', DataViewPrototypeGetByteLength],
  ['Map', MapPrototypeGetSize],
  ['Set', SetPrototypeGetSize],
  ['Date', (value) => DatePrototypeGetTime(value)],
  ['RegExp', (value) => value !== RegExpPrototype && RegExpPrototypeGetSource(value)],
  ['Boolean', (value) => BooleanPrototypeValueOf(value)],
  ['Number', (value) => NumberPrototypeValueOf(value)],
  ['String', (value) => StringPrototypeValueOf(value)],
  ['BigInt', (value) => BigIntPrototypeValueOf(value)],
];

/** The built-in type of `value`, read from its internal slots; Error and Array from the language's own tests. */
function brand(value: object): string {
  for (let index = 0; index < BRANDS.length; index++) {
    const entry = BRANDS[index] as [string, (value: unknown) => unknown];
    if (has(entry[1], value)) return entry[0];
  }
  if (ArrayIsArray(value)) return 'Array';
  const tag = StringPrototypeSlice(ObjectPrototypeToString(value), 8, -1);
  return tag === 'Error' ? 'Error' : tag === 'Object' || tag === 'Arguments' ? 'Object' : `exotic ${tag}`;
}

export function structuredClone(value: unknown, options?: { transfer?: Iterable<unknown> }): unknown {
  // biome-ignore lint/complexity/noArguments: WebIDL tells a missing argument from an explicit undefined.
  if (arguments.length === 0) {
    throw new TypeErrorCtor(
      `Failed to execute 'structuredClone' on '${GLOBAL_SCOPE}': parameter 1 is not of type 'Value'.`,
    );
  }
  const transferred = new SafeSet<object>();
  const transferList: ArrayBuffer[] = [];
  if (options !== undefined && options !== null && options.transfer !== undefined) {
    // The program's sequence, iterated through its own iterators, as WebIDL converts one.
    for (const item of options.transfer) {
      if (typeof item !== 'object' || item === null || brand(item) !== 'ArrayBuffer') throw cannotClone(item);
      if (transferred.has(item as object)) {
        throw new DOMException(
          'An ArrayBuffer is listed more than once in the transfer list.',
          'DataCloneError',
        );
      }
      transferred.add(item as object);
      ArrayPrototypePush(transferList, item as ArrayBuffer);
    }
  }
  const memory = new SafeMap<object, unknown>();
  const copy = cloneValue(value, memory, transferred);
  // Transfer last: a buffer is detached only once the whole value has been copied.
  for (let index = 0; index < transferList.length; index++)
    ArrayBufferPrototypeTransfer(transferList[index] as ArrayBuffer);
  return copy;
}

function cloneValue(value: unknown, memory: SafeMap<object, unknown>, transferred: SafeSet<object>): unknown {
  if (typeof value === 'symbol' || typeof value === 'function') throw cannotClone(value);
  if (typeof value !== 'object' || value === null) return value;
  if (memory.has(value)) return memory.get(value);
  const kind = TypedArrayPrototypeGetSymbolToStringTag(value);
  if (kind !== undefined) {
    const buffer = cloneValue(TypedArrayPrototypeGetBuffer(value), memory, transferred) as ArrayBuffer;
    const View = TypedArrayConstructors[kind] as new (
      buffer: ArrayBuffer,
      offset: number,
      length: number,
    ) => object;
    const size = (View as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT;
    const view = new View(
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
      const buffer = cloneValue(DataViewPrototypeGetBuffer(value), memory, transferred) as ArrayBuffer;
      copy = new DataViewCtor(
        buffer,
        DataViewPrototypeGetByteOffset(value),
        DataViewPrototypeGetByteLength(value),
      );
      memory.set(value, copy);
      return copy;
    }
    case 'Boolean':
      copy = ObjectCtor(BooleanPrototypeValueOf(value));
      break;
    case 'Number':
      copy = ObjectCtor(NumberPrototypeValueOf(value));
      break;
    case 'String':
      copy = ObjectCtor(StringPrototypeValueOf(value));
      break;
    case 'BigInt':
      copy = ObjectCtor(BigIntPrototypeValueOf(value));
      break;
    case 'Date':
      copy = new DateCtor(DatePrototypeGetTime(value));
      break;
    case 'RegExp': {
      const source = RegExpPrototypeGetSource(value);
      const flags = RegExpPrototypeGetFlags(value);
      copy = new RegExpCtor(source, flags);
      break;
    }
    case 'Map': {
      // The copy is the program's: a Map of its realm, filled through the captured set.
      const map = new MapCtor();
      memory.set(value, map);
      const entries: unknown[] = [];
      MapPrototypeForEach(value as Map<unknown, unknown>, (item, key) => {
        ArrayPrototypePush(entries, key, item);
      });
      for (let index = 0; index < entries.length; index += 2)
        MapPrototypeSet(
          map,
          cloneValue(entries[index], memory, transferred),
          cloneValue(entries[index + 1], memory, transferred),
        );
      return map;
    }
    case 'Set': {
      const set = new SetCtor();
      memory.set(value, set);
      const items: unknown[] = [];
      SetPrototypeForEach(value as Set<unknown>, (item) => {
        ArrayPrototypePush(items, item);
      });
      for (let index = 0; index < items.length; index++)
        SetPrototypeAdd(set, cloneValue(items[index], memory, transferred));
      return set;
    }
    case 'Error': {
      const error = value as Error;
      const name = error.name;
      const Constructor = ERROR_TYPES[typeof name === 'string' ? name : 'Error'] ?? ErrorCtor;
      const message = error.message;
      const clone = message === undefined ? new Constructor() : new Constructor(StringCtor(message));
      const stack = error.stack;
      if (typeof stack === 'string')
        ObjectDefineProperty(clone, 'stack', { value: stack, writable: true, configurable: true });
      memory.set(value, clone);
      return clone;
    }
    case 'Array': {
      const array: unknown[] = new ArrayCtor((value as unknown[]).length);
      memory.set(value, array);
      const keys = ObjectKeys(value);
      for (let index = 0; index < keys.length; index++) {
        const key = keys[index] as string;
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
      const keys = ObjectKeys(value);
      for (let index = 0; index < keys.length; index++) {
        const key = keys[index] as string;
        object[key] = cloneValue((value as Record<string, unknown>)[key], memory, transferred);
      }
      return object;
    }
  }
  memory.set(value, copy);
  return copy;
}
