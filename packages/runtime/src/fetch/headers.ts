/**
 * Headers (Fetch, https://fetch.spec.whatwg.org/#headers-class): a header list with a guard, names
 * compared case-insensitively, values normalized, iteration sorted and combined with set-cookie
 * kept apart. Which names and values are valid, how an init converts, and the texts follow workerd.
 */
import { asciiLowercase, trimHttpWhitespace } from '../infra.ts';
import {
  ArrayPrototypePush,
  ArrayPrototypeSort,
  IteratorPrototype,
  ObjectDefineProperty,
  ObjectSetPrototypeOf,
  ReflectApply,
  ReflectGetOwnPropertyDescriptor,
  ReflectOwnKeys,
  RegExpTest,
  SafeSet,
  StringPrototypeCharCodeAt,
  StringPrototypeIncludes,
  SymbolIterator,
  SymbolToStringTag,
  TypeErrorCtor,
} from '../primordials.ts';
import { defineInterface, illegalInvocation, requireArguments, toDOMString } from '../webidl.ts';

export type Guard = 'none' | 'request' | 'response' | 'immutable';

const INVALID_NAME = 'Invalid header name.';
const INVALID_VALUE = 'Invalid header value.';
const IMMUTABLE = "Can't modify immutable headers.";
const PAIR_LENGTH =
  'To initialize a Headers object from a sequence, each inner sequence must have exactly two elements.';
const NOT_A_SEQUENCE = "Incorrect type: the provided value is not of type 'Sequence'.";
const BAD_INIT =
  "Failed to construct 'Headers': constructor parameter 1 is not of type 'Headers or Sequence or object'.";

/** RFC 9110 token characters: what a method must consist of. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export function isToken(text: string): boolean {
  return RegExpTest(TOKEN, text);
}

const SEPARATORS = '()<>@,;:\\"/[]?={}';

/**
 * A header name as workerd accepts it (RFC 2616's token read over bytes): no control character,
 * DEL, whitespace or separator, so nothing that could split a header line; characters past ASCII
 * are allowed, where the Fetch standard's RFC 9110 token refuses them. workerd also accepts an
 * empty name, which no HTTP message can carry; that stays refused.
 */
function isHeaderName(text: string): boolean {
  if (text === '') return false;
  for (let index = 0; index < text.length; index++) {
    const unit = StringPrototypeCharCodeAt(text, index);
    if (unit <= 0x20 || unit === 0x7f || StringPrototypeIncludes(SEPARATORS, text[index] as string))
      return false;
  }
  return true;
}

/** Byte-lowercase (Fetch): names compare case-insensitively in ASCII only, as workerd's do. */
const lowerName = asciiLowercase;

function validName(name: unknown): string {
  const text = toDOMString(name);
  if (!isHeaderName(text)) throw new TypeErrorCtor(INVALID_NAME);
  return text;
}

/** A value may hold anything but NUL, CR and LF once trimmed (workerd's rule: no header splitting). */
function validValue(value: unknown): string {
  const text = trimHttpWhitespace(toDOMString(value));
  for (let index = 0; index < text.length; index++) {
    const unit = StringPrototypeCharCodeAt(text, index);
    if (unit === 0x00 || unit === 0x0a || unit === 0x0d) throw new TypeErrorCtor(INVALID_VALUE);
  }
  return text;
}

/** The values of the headers named `key` (lowercase), in order. */
function valuesNamed(list: readonly (readonly [string, string])[], key: string): string[] {
  const values: string[] = [];
  for (let index = 0; index < list.length; index++) {
    const pair = list[index] as readonly [string, string];
    if (lowerName(pair[0]) === key) ArrayPrototypePush(values, pair[1]);
  }
  return values;
}

/** The headers of `list` not named `key` (lowercase), except that the first `keep` stay whatever their name. */
function withoutName(list: readonly [string, string][], key: string, keep = 0): [string, string][] {
  const kept: [string, string][] = [];
  for (let index = 0; index < list.length; index++) {
    const pair = list[index] as [string, string];
    if (index < keep || lowerName(pair[0]) !== key) ArrayPrototypePush(kept, pair);
  }
  return kept;
}

/** The values joined as a combined header value is: `a, b`. */
function combine(values: readonly string[]): string {
  let combined = values[0] as string;
  for (let index = 1; index < values.length; index++) combined += `, ${values[index] as string}`;
  return combined;
}

/** Module-only access for Request, Response and fetch. */
export let headerSlots: {
  create(guard: Guard, pairs?: readonly (readonly [string, string])[]): Headers;
  setGuard(headers: Headers, guard: Guard): void;
  guard(headers: Headers): Guard;
  pairs(headers: Headers): [string, string][];
  fill(headers: Headers, init: unknown): void;
};

export class Headers {
  /** The header list: names as given, in insertion order. */
  #list: [string, string][] = [];
  #guard: Guard = 'none';

  constructor(init?: unknown) {
    if (init !== undefined) this.#fill(init);
  }

  static {
    headerSlots = {
      create: (guard, pairs) => {
        const headers = new Headers();
        if (pairs)
          for (let index = 0; index < pairs.length; index++) {
            const pair = pairs[index] as readonly [string, string];
            ArrayPrototypePush(headers.#list, [pair[0], pair[1]]);
          }
        headers.#guard = guard;
        return headers;
      },
      setGuard: (headers, guard) => {
        headers.#guard = guard;
      },
      guard: (headers) => headers.#guard,
      pairs: (headers) => {
        const list = headers.#list;
        const pairs: [string, string][] = [];
        for (let index = 0; index < list.length; index++) {
          const pair = list[index] as [string, string];
          ArrayPrototypePush(pairs, [pair[0], pair[1]]);
        }
        return pairs;
      },
      fill: (headers, init) => headers.#fill(init),
    };
  }

  static #check(value: unknown): Headers {
    if (typeof value !== 'object' || value === null || !(#list in value)) throw illegalInvocation();
    return value as Headers;
  }

  /**
   * https://fetch.spec.whatwg.org/#concept-headers-fill, converting as workerd does: another
   * Headers is copied as it stands, a sequence is converted whole (every pair an object, then
   * every pair of length two) before its first header is appended, anything else is a record.
   */
  #fill(init: unknown): void {
    if ((typeof init !== 'object' && typeof init !== 'function') || init === null) {
      throw new TypeErrorCtor(BAD_INIT);
    }
    if (#list in init) {
      const list = (init as Headers).#list;
      for (let index = 0; index < list.length; index++) {
        const pair = list[index] as [string, string];
        this.#append(pair[0], pair[1]);
      }
      return;
    }
    const iterator = (init as { [SymbolIterator]?: unknown })[SymbolIterator];
    if (typeof iterator === 'function') {
      // The program's sequence, iterated through its own iterators, as WebIDL converts one.
      const pairs: unknown[][] = [];
      for (const pair of init as Iterable<unknown>) {
        if ((typeof pair !== 'object' && typeof pair !== 'function') || pair === null) {
          throw new TypeErrorCtor(NOT_A_SEQUENCE);
        }
        if (typeof (pair as { [SymbolIterator]?: unknown })[SymbolIterator] !== 'function') {
          throw new TypeErrorCtor(NOT_A_SEQUENCE);
        }
        ArrayPrototypePush(pairs, [...(pair as Iterable<unknown>)]);
      }
      for (let index = 0; index < pairs.length; index++)
        if ((pairs[index] as unknown[]).length !== 2) throw new TypeErrorCtor(PAIR_LENGTH);
      for (let index = 0; index < pairs.length; index++) {
        const pair = pairs[index] as unknown[];
        this.#append(pair[0], pair[1]);
      }
      return;
    }
    const keys = ReflectOwnKeys(init);
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index] as string | symbol;
      const descriptor = ReflectGetOwnPropertyDescriptor(init, key);
      if (descriptor === undefined || !descriptor.enumerable) continue;
      if (typeof key === 'symbol') throw new TypeErrorCtor(INVALID_NAME);
      this.#append(key, (init as Record<string, unknown>)[key]);
    }
  }

  #writable(): void {
    if (this.#guard === 'immutable') throw new TypeErrorCtor(IMMUTABLE);
  }

  #append(name: unknown, value: unknown): void {
    const validatedName = validName(name);
    const validatedValue = validValue(value);
    this.#writable();
    ArrayPrototypePush(this.#list, [validatedName, validatedValue]);
  }

  append(name: string, value: string): void {
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 2, 'append', 'Headers');
    Headers.#check(this).#append(name, value);
  }

  delete(name: string): void {
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 1, 'delete', 'Headers');
    const headers = Headers.#check(this);
    const key = lowerName(validName(name));
    headers.#writable();
    headers.#list = withoutName(headers.#list, key);
  }

  get(name: string): string | null {
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 1, 'get', 'Headers');
    const headers = Headers.#check(this);
    const key = lowerName(validName(name));
    const values = valuesNamed(headers.#list, key);
    return values.length === 0 ? null : combine(values);
  }

  getSetCookie(): string[] {
    return valuesNamed(Headers.#check(this).#list, 'set-cookie');
  }

  getAll(name: string): string[] {
    const key = lowerName(validName(name));
    if (key !== 'set-cookie')
      throw new TypeErrorCtor('getAll() can only be used with the header name "Set-Cookie".');
    return this.getSetCookie();
  }

  has(name: string): boolean {
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 1, 'has', 'Headers');
    const headers = Headers.#check(this);
    const key = lowerName(validName(name));
    const list = headers.#list;
    for (let index = 0; index < list.length; index++)
      if (lowerName((list[index] as [string, string])[0]) === key) return true;
    return false;
  }

  set(name: string, value: string): void {
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 2, 'set', 'Headers');
    const headers = Headers.#check(this);
    const validatedName = validName(name);
    const validatedValue = validValue(value);
    headers.#writable();
    const key = lowerName(validatedName);
    const list = headers.#list;
    let index = 0;
    while (index < list.length && lowerName((list[index] as [string, string])[0]) !== key) index++;
    if (index === list.length) {
      ArrayPrototypePush(list, [validatedName, validatedValue]);
      return;
    }
    list[index] = [(list[index] as [string, string])[0], validatedValue];
    headers.#list = withoutName(list, key, index + 1);
  }

  /** https://fetch.spec.whatwg.org/#concept-header-list-sort-and-combine */
  #sorted(): [string, string][] {
    const list = this.#list;
    const seen = new SafeSet<string>();
    const names: string[] = [];
    for (let index = 0; index < list.length; index++) {
      const name = lowerName((list[index] as [string, string])[0]);
      if (seen.has(name)) continue;
      seen.add(name);
      ArrayPrototypePush(names, name);
    }
    ArrayPrototypeSort(names);
    const out: [string, string][] = [];
    for (let index = 0; index < names.length; index++) {
      const name = names[index] as string;
      const values = valuesNamed(list, name);
      if (name === 'set-cookie') {
        for (let value = 0; value < values.length; value++)
          ArrayPrototypePush(out, [name, values[value] as string]);
      } else {
        ArrayPrototypePush(out, [name, combine(values)]);
      }
    }
    return out;
  }

  forEach(callback: (value: string, name: string, headers: Headers) => void, thisArg?: unknown): void {
    const headers = Headers.#check(this);
    if (typeof callback !== 'function') {
      throw new TypeErrorCtor(
        "Failed to execute 'forEach' on 'Headers': parameter 1 is not of type 'Function'.",
      );
    }
    const sorted = headers.#sorted();
    for (let index = 0; index < sorted.length; index++) {
      const pair = sorted[index] as [string, string];
      ReflectApply(callback, thisArg, [pair[1], pair[0], headers]);
    }
  }

  entries(): IterableIterator<[string, string]> {
    return new HeadersIterator(Headers.#check(this).#sorted(), 'entries');
  }

  keys(): IterableIterator<string> {
    return new HeadersIterator(Headers.#check(this).#sorted(), 'keys');
  }

  values(): IterableIterator<string> {
    return new HeadersIterator(Headers.#check(this).#sorted(), 'values');
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return new HeadersIterator(Headers.#check(this).#sorted(), 'entries');
  }
}

/** The pair iterator WebIDL gives an iterable interface; its prototype's tag is "Headers Iterator". */
class HeadersIterator<T> implements IterableIterator<T> {
  #pairs: [string, string][];
  #kind: 'entries' | 'keys' | 'values';
  #index = 0;

  constructor(pairs: [string, string][], kind: 'entries' | 'keys' | 'values') {
    this.#pairs = pairs;
    this.#kind = kind;
  }

  next(): IteratorResult<T> {
    const pair = this.#pairs[this.#index++];
    if (pair === undefined) return { value: undefined, done: true } as IteratorResult<T>;
    const value = this.#kind === 'keys' ? pair[0] : this.#kind === 'values' ? pair[1] : [pair[0], pair[1]];
    return { value: value as T, done: false };
  }

  [Symbol.iterator](): IterableIterator<T> {
    return this;
  }
}
ObjectSetPrototypeOf(HeadersIterator.prototype, IteratorPrototype);
ObjectDefineProperty(HeadersIterator.prototype, SymbolToStringTag, {
  value: 'Headers Iterator',
  configurable: true,
});

defineInterface(Headers);
// workerd's @@iterator is a function of its own, not entries, and named "".
ObjectDefineProperty(Headers.prototype[Symbol.iterator], 'name', { value: '' });
