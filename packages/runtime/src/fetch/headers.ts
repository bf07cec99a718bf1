/**
 * Headers (Fetch, https://fetch.spec.whatwg.org/#headers-class): a header list with a guard, names
 * compared case-insensitively, values normalized, iteration sorted and combined with set-cookie
 * kept apart. Which names and values are valid, how an init converts, and the texts follow workerd.
 */
import { TypeErrorCtor } from '../primordials.ts';
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
  return TOKEN.test(text);
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
    const unit = text.charCodeAt(index);
    if (unit <= 0x20 || unit === 0x7f || SEPARATORS.includes(text[index] as string)) return false;
  }
  return true;
}

/** Byte-lowercase (Fetch): names compare case-insensitively in ASCII only, as workerd's do. */
function lowerName(name: string): string {
  return name.replace(/[A-Z]+/g, (upper) => upper.toLowerCase());
}

/** Strips leading and trailing HTTP whitespace (tab, LF, CR, space). */
function normalizeValue(value: string): string {
  return value.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
}

function validName(name: unknown): string {
  const text = toDOMString(name);
  if (!isHeaderName(text)) throw new TypeErrorCtor(INVALID_NAME);
  return text;
}

/** A value may hold anything but NUL, CR and LF once trimmed (workerd's rule: no header splitting). */
function validValue(value: unknown): string {
  const text = normalizeValue(toDOMString(value));
  if (/[\0\r\n]/.test(text)) throw new TypeErrorCtor(INVALID_VALUE);
  return text;
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
        if (pairs) for (const [name, value] of pairs) headers.#list.push([name, value]);
        headers.#guard = guard;
        return headers;
      },
      setGuard: (headers, guard) => {
        headers.#guard = guard;
      },
      guard: (headers) => headers.#guard,
      pairs: (headers) => headers.#list.map(([name, value]) => [name, value] as [string, string]),
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
      for (const [name, value] of (init as Headers).#list) this.#append(name, value);
      return;
    }
    const iterator = (init as { [Symbol.iterator]?: unknown })[Symbol.iterator];
    if (typeof iterator === 'function') {
      const pairs: unknown[][] = [];
      for (const pair of init as Iterable<unknown>) {
        if ((typeof pair !== 'object' && typeof pair !== 'function') || pair === null) {
          throw new TypeErrorCtor(NOT_A_SEQUENCE);
        }
        if (typeof (pair as { [Symbol.iterator]?: unknown })[Symbol.iterator] !== 'function') {
          throw new TypeErrorCtor(NOT_A_SEQUENCE);
        }
        pairs.push([...(pair as Iterable<unknown>)]);
      }
      for (const pair of pairs) if (pair.length !== 2) throw new TypeErrorCtor(PAIR_LENGTH);
      for (const [name, value] of pairs) this.#append(name, value);
      return;
    }
    for (const key of Reflect.ownKeys(init)) {
      const descriptor = Reflect.getOwnPropertyDescriptor(init, key);
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
    this.#list.push([validatedName, validatedValue]);
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
    headers.#list = headers.#list.filter(([existing]) => lowerName(existing) !== key);
  }

  get(name: string): string | null {
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 1, 'get', 'Headers');
    const headers = Headers.#check(this);
    const key = lowerName(validName(name));
    const values = headers.#list
      .filter(([existing]) => lowerName(existing) === key)
      .map(([, value]) => value);
    return values.length === 0 ? null : values.join(', ');
  }

  getSetCookie(): string[] {
    return Headers.#check(this)
      .#list.filter(([name]) => lowerName(name) === 'set-cookie')
      .map(([, value]) => value);
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
    return headers.#list.some(([existing]) => lowerName(existing) === key);
  }

  set(name: string, value: string): void {
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 2, 'set', 'Headers');
    const headers = Headers.#check(this);
    const validatedName = validName(name);
    const validatedValue = validValue(value);
    headers.#writable();
    const key = lowerName(validatedName);
    const index = headers.#list.findIndex(([existing]) => lowerName(existing) === key);
    if (index === -1) {
      headers.#list.push([validatedName, validatedValue]);
      return;
    }
    headers.#list[index] = [(headers.#list[index] as [string, string])[0], validatedValue];
    headers.#list = headers.#list.filter(
      ([existing], position) => position <= index || lowerName(existing) !== key,
    );
  }

  /** https://fetch.spec.whatwg.org/#concept-header-list-sort-and-combine */
  #sorted(): [string, string][] {
    const names = [...new Set(this.#list.map(([name]) => lowerName(name)))].sort();
    const out: [string, string][] = [];
    for (const name of names) {
      if (name === 'set-cookie') {
        for (const [existing, value] of this.#list) if (lowerName(existing) === name) out.push([name, value]);
      } else {
        out.push([
          name,
          this.#list
            .filter(([existing]) => lowerName(existing) === name)
            .map(([, value]) => value)
            .join(', '),
        ]);
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
    for (const [name, value] of headers.#sorted()) Reflect.apply(callback, thisArg, [value, name, headers]);
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
Object.setPrototypeOf(
  HeadersIterator.prototype,
  Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]())),
);
Object.defineProperty(HeadersIterator.prototype, Symbol.toStringTag, {
  value: 'Headers Iterator',
  configurable: true,
});

defineInterface(Headers);
// workerd's @@iterator is a function of its own, not entries, and named "".
Object.defineProperty(Headers.prototype[Symbol.iterator], 'name', { value: '' });
