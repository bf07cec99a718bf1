/**
 * URLSearchParams (https://url.spec.whatwg.org/#interface-urlsearchparams): a list of name-value
 * pairs, kept in a #private field, that a URL object's `searchParams` keeps in step with its query.
 * The iterators have workerd's shape: one class per kind (KeyIterator, ValueIterator,
 * EntryIterator) whose prototype inherits %IteratorPrototype%.
 */

import { markNative } from '../global-scope.ts';
import {
  ArrayPrototypePush,
  ArrayPrototypeSort,
  ArrayPrototypeSplice,
  IteratorPrototype,
  ObjectDefineProperty,
  ObjectSetPrototypeOf,
  ReflectApply,
  ReflectGetOwnPropertyDescriptor,
  ReflectOwnKeys,
  StringPrototypeCharCodeAt,
  StringPrototypeSlice,
  SymbolIterator,
  SymbolToStringTag,
  TypeErrorCtor,
} from '../primordials.ts';
import { argumentTypeError, defineWorkerdInterface, illegalInvocation, toUSVString } from '../webidl.ts';
import { type NameValueList, parseUrlencodedString, serializeUrlencoded } from './whatwg-url.ts';

/** workerd's texts for an init sequence whose element is not a sequence, or not a pair. */
export const NOT_A_SEQUENCE_MESSAGE = "Incorrect type: the provided value is not of type 'Sequence'.";
export const INVALID_SEQUENCE_MESSAGE = 'Invalid URL search params sequence.';

const OWNER = 'URLSearchParams';

/** The first argument an operation requires that the call left out, named as workerd names it. */
function requireUSVStrings(count: number, required: number, operation: string): void {
  if (count < required) throw argumentTypeError(operation, OWNER, count + 1, 'USVString');
}

/** Creates a URLSearchParams for a URL object (the URL constructor's steps 5 to 7). */
export let searchParamsForURL: (
  query: string | null,
  update: (query: string | null) => void,
) => URLSearchParams;
/** Sets the list of a URL object's query object to the parse of its new query. */
export let setSearchParamsQuery: (params: URLSearchParams, query: string | null) => void;
let listOf: (params: URLSearchParams) => NameValueList;

export class URLSearchParams {
  #list: NameValueList = [];
  /** The URL object's part of the update steps: set its URL's query; null for no URL object. */
  #urlQuery: ((query: string | null) => void) | null = null;

  /** https://url.spec.whatwg.org/#dom-urlsearchparams-urlsearchparams */
  constructor(init: unknown = undefined) {
    // init: (sequence<sequence<USVString>> or record<USVString, USVString> or USVString) = "".
    if (init === undefined) return;
    if ((typeof init === 'object' && init !== null) || typeof init === 'function') {
      const method = (init as { [SymbolIterator]?: unknown })[SymbolIterator];
      if (method !== undefined && method !== null) {
        // 2. If init is a sequence: each pair must contain exactly two strings.
        const list = this.#list;
        iterate(init, method, (pair) => {
          if ((typeof pair !== 'object' || pair === null) && typeof pair !== 'function') {
            throw new TypeErrorCtor(NOT_A_SEQUENCE_MESSAGE);
          }
          const pairMethod = (pair as { [SymbolIterator]?: unknown })[SymbolIterator];
          if (pairMethod === undefined || pairMethod === null)
            throw new TypeErrorCtor(NOT_A_SEQUENCE_MESSAGE);
          const strings: string[] = [];
          iterate(pair, pairMethod, (item) => ArrayPrototypePush(strings, toUSVString(item)));
          if (strings.length !== 2) throw new TypeErrorCtor(INVALID_SEQUENCE_MESSAGE);
          ArrayPrototypePush(list, [strings[0] as string, strings[1] as string]);
        });
        return;
      }
      // 3. If init is a record: append each of its enumerable own string-keyed properties. A
      //    symbol key would be a TypeError by the standard; workerd skips it, and so does this.
      const keys = ReflectOwnKeys(init);
      for (let index = 0; index < keys.length; index++) {
        const key = keys[index] as string | symbol;
        if (typeof key === 'symbol') continue;
        const descriptor = ReflectGetOwnPropertyDescriptor(init, key);
        if (descriptor === undefined || !descriptor.enumerable) continue;
        const value = toUSVString((init as Record<string, unknown>)[key]);
        ArrayPrototypePush(this.#list, [toUSVString(key), value]);
      }
      return;
    }
    // 1. If init is a string and starts with "?", remove the first code point.
    let text = toUSVString(init);
    if (text.length > 0 && StringPrototypeCharCodeAt(text, 0) === 0x3f) text = StringPrototypeSlice(text, 1);
    // 4. Otherwise, set query's list to the result of parsing init.
    this.#list = parseUrlencodedString(text);
  }

  static {
    // `new this()`, not `new URLSearchParams()`: a class that names itself in its own body is
    // bundled as `var URLSearchParams = class _URLSearchParams`, and the engine's errors then say
    // "_URLSearchParams".
    searchParamsForURL = (query, update) => {
      const params = new this();
      if (query !== null) params.#list = parseUrlencodedString(query);
      params.#urlQuery = update;
      return params;
    };
    setSearchParamsQuery = (params, query) => {
      params.#list = query === null ? [] : parseUrlencodedString(query);
    };
    listOf = (params) => params.#list;
  }

  /** The update steps (https://url.spec.whatwg.org/#concept-urlsearchparams-update). */
  #update(): void {
    // 1. If query's URL object is null, then return.
    if (this.#urlQuery === null) return;
    // 2-4. Serialize the list; the empty string becomes null; set the URL's query to it.
    const serialized = serializeUrlencoded(this.#list);
    this.#urlQuery(serialized === '' ? null : serialized);
  }

  get size(): number {
    if (!(#list in this)) throw illegalInvocation();
    return this.#list.length;
  }

  /** https://url.spec.whatwg.org/#dom-urlsearchparams-append */
  append(name: unknown, value: unknown): void {
    if (!(#list in this)) throw illegalInvocation();
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireUSVStrings(arguments.length, 2, 'append');
    const pair: [string, string] = [toUSVString(name), toUSVString(value)];
    ArrayPrototypePush(this.#list, pair);
    this.#update();
  }

  /** https://url.spec.whatwg.org/#dom-urlsearchparams-delete */
  delete(name: unknown, value: unknown = undefined): void {
    if (!(#list in this)) throw illegalInvocation();
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireUSVStrings(arguments.length, 1, 'delete');
    const key = toUSVString(name);
    const match = value === undefined ? undefined : toUSVString(value);
    // 1-2. Remove every tuple whose name is name (and whose value is value, if given).
    const list = this.#list;
    let index = 0;
    while (index < list.length) {
      const tuple = list[index] as [string, string];
      if (tuple[0] === key && (match === undefined || tuple[1] === match))
        ArrayPrototypeSplice(list, index, 1);
      else index++;
    }
    // 3. Run the update steps.
    this.#update();
  }

  /** https://url.spec.whatwg.org/#dom-urlsearchparams-get */
  get(name: unknown): string | null {
    if (!(#list in this)) throw illegalInvocation();
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireUSVStrings(arguments.length, 1, 'get');
    const key = toUSVString(name);
    const list = this.#list;
    for (let index = 0; index < list.length; index++) {
      const tuple = list[index] as [string, string];
      if (tuple[0] === key) return tuple[1];
    }
    return null;
  }

  /** https://url.spec.whatwg.org/#dom-urlsearchparams-getall */
  getAll(name: unknown): string[] {
    if (!(#list in this)) throw illegalInvocation();
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireUSVStrings(arguments.length, 1, 'getAll');
    const key = toUSVString(name);
    const values: string[] = [];
    const list = this.#list;
    for (let index = 0; index < list.length; index++) {
      const tuple = list[index] as [string, string];
      if (tuple[0] === key) ArrayPrototypePush(values, tuple[1]);
    }
    return values;
  }

  /** https://url.spec.whatwg.org/#dom-urlsearchparams-has */
  has(name: unknown, value: unknown = undefined): boolean {
    if (!(#list in this)) throw illegalInvocation();
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireUSVStrings(arguments.length, 1, 'has');
    const key = toUSVString(name);
    const match = value === undefined ? undefined : toUSVString(value);
    const list = this.#list;
    for (let index = 0; index < list.length; index++) {
      const tuple = list[index] as [string, string];
      if (tuple[0] === key && (match === undefined || tuple[1] === match)) return true;
    }
    return false;
  }

  /** https://url.spec.whatwg.org/#dom-urlsearchparams-set */
  set(name: unknown, value: unknown): void {
    if (!(#list in this)) throw illegalInvocation();
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireUSVStrings(arguments.length, 2, 'set');
    const key = toUSVString(name);
    const text = toUSVString(value);
    // 1. If the list contains a tuple whose name is name, set the first one's value to value and
    //    remove the others; 2. otherwise append a new tuple.
    const list = this.#list;
    let found = false;
    let index = 0;
    while (index < list.length) {
      const tuple = list[index] as [string, string];
      if (tuple[0] !== key) index++;
      else if (found) ArrayPrototypeSplice(list, index, 1);
      else {
        found = true;
        tuple[1] = text;
        index++;
      }
    }
    if (!found) ArrayPrototypePush(list, [key, text]);
    // 3. Run the update steps.
    this.#update();
  }

  /** https://url.spec.whatwg.org/#dom-urlsearchparams-sort */
  sort(): void {
    if (!(#list in this)) throw illegalInvocation();
    // 1. Sort the tuples by their names' code units, keeping the relative order of equal names
    //    (Array.prototype.sort is stable; `<` on strings compares code units).
    ArrayPrototypeSort(this.#list, compareNames);
    // 2. Run the update steps.
    this.#update();
  }

  entries(): URLSearchParamsIterator {
    if (!(#list in this)) throw illegalInvocation();
    return new EntryIterator(ITERATOR_TOKEN, this);
  }

  keys(): URLSearchParamsIterator {
    if (!(#list in this)) throw illegalInvocation();
    return new KeyIterator(ITERATOR_TOKEN, this);
  }

  values(): URLSearchParamsIterator {
    if (!(#list in this)) throw illegalInvocation();
    return new ValueIterator(ITERATOR_TOKEN, this);
  }

  /** https://webidl.spec.whatwg.org/#es-forEach: over the live list, value first. */
  forEach(callback: unknown, thisArg: unknown = undefined): void {
    if (!(#list in this)) throw illegalInvocation();
    if (typeof callback !== 'function') throw argumentTypeError('forEach', OWNER, 1, 'function');
    for (let index = 0; index < this.#list.length; index++) {
      const tuple = this.#list[index] as [string, string];
      ReflectApply(callback, thisArg, [tuple[1], tuple[0], this]);
    }
  }

  /** https://url.spec.whatwg.org/#urlsearchparams-stringification-behavior */
  toString(): string {
    if (!(#list in this)) throw illegalInvocation();
    return serializeUrlencoded(this.#list);
  }

  declare [Symbol.iterator]: () => URLSearchParamsIterator;
}

function compareNames(a: [string, string], b: [string, string]): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

/**
 * GetIterator and IteratorStep over a value whose @@iterator method was read once, as WebIDL's
 * sequence conversion does (https://webidl.spec.whatwg.org/#es-sequence), calling `each` with
 * every value.
 */
function iterate(iterable: unknown, method: unknown, each: (value: unknown) => void): void {
  if (typeof method !== 'function') throw new TypeErrorCtor(NOT_A_SEQUENCE_MESSAGE);
  const iterator = ReflectApply(method, iterable, []) as { next?: unknown };
  if ((typeof iterator !== 'object' || iterator === null) && typeof iterator !== 'function') {
    throw new TypeErrorCtor('Result of the Symbol.iterator method is not an object');
  }
  const next = iterator.next;
  while (true) {
    const result = ReflectApply(next as () => unknown, iterator, []) as { done?: unknown; value?: unknown };
    if ((typeof result !== 'object' || result === null) && typeof result !== 'function') {
      throw new TypeErrorCtor(`Iterator result ${String(result)} is not an object`);
    }
    if (result.done) return;
    each(result.value);
  }
}

interface URLSearchParamsIterator {
  next(): { done: boolean; value: unknown };
}

/** Lets only this module construct the iterators; workerd's throw 'Illegal constructor'. */
const ITERATOR_TOKEN = {};

type Kind = 'key' | 'value' | 'entry';

function iteratorClass(name: string, kind: Kind) {
  const Iterator = class {
    readonly #params: URLSearchParams;
    #index = 0;

    constructor(token: unknown, params: URLSearchParams) {
      if (token !== ITERATOR_TOKEN) throw new TypeErrorCtor('Illegal constructor');
      this.#params = params;
    }

    /** The default iterator object's next() (https://webidl.spec.whatwg.org/#es-iterator-prototype-object). */
    next(): { done: boolean; value: unknown } {
      if (!(#params in this)) throw illegalInvocation();
      const list = listOf(this.#params);
      if (this.#index >= list.length) return { done: true, value: undefined };
      const tuple = list[this.#index++] as [string, string];
      const value = kind === 'key' ? tuple[0] : kind === 'value' ? tuple[1] : [tuple[0], tuple[1]];
      return { done: false, value };
    }
  };
  ObjectDefineProperty(Iterator, 'name', { value: name });
  ObjectSetPrototypeOf(Iterator.prototype, IteratorPrototype);
  const prototype = Iterator.prototype as object;
  ObjectDefineProperty(prototype, 'next', {
    value: Iterator.prototype.next,
    writable: true,
    enumerable: true,
    configurable: true,
  });
  // workerd lists `constructor` after `next`.
  const constructorDescriptor = ReflectGetOwnPropertyDescriptor(
    prototype,
    'constructor',
  ) as PropertyDescriptor;
  delete (prototype as { constructor?: unknown }).constructor;
  ObjectDefineProperty(prototype, 'constructor', constructorDescriptor);
  // workerd gives the iterator prototypes their own tag and @@iterator.
  ObjectDefineProperty(prototype, SymbolToStringTag, {
    value: name,
    writable: true,
    enumerable: false,
    configurable: true,
  });
  const iterator = {
    [SymbolIterator]() {
      return this;
    },
  }[SymbolIterator];
  ObjectDefineProperty(iterator, 'name', { value: '' });
  ObjectDefineProperty(prototype, SymbolIterator, {
    value: iterator,
    writable: true,
    enumerable: false,
    configurable: true,
  });
  // Not published, so the last step of loading never sees it: native shape here.
  markNative(Iterator);
  return Iterator;
}

const KeyIterator = iteratorClass('KeyIterator', 'key');
const ValueIterator = iteratorClass('ValueIterator', 'value');
const EntryIterator = iteratorClass('EntryIterator', 'entry');

// The pair iterator's @@iterator is entries (https://webidl.spec.whatwg.org/#es-iterable).
ObjectDefineProperty(URLSearchParams.prototype, SymbolIterator, {
  value: URLSearchParams.prototype.entries,
  writable: true,
  enumerable: false,
  configurable: true,
});

defineWorkerdInterface(URLSearchParams);
