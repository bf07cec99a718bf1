/**
 * Headers (Fetch, https://fetch.spec.whatwg.org/#headers-class): a header list with a guard, names
 * compared case-insensitively, values normalized, iteration sorted and combined with set-cookie
 * kept apart. Texts follow workerd.
 */
import { TypeErrorCtor } from '../primordials.ts';
import { defineInterface, illegalInvocation, requireArguments, toDOMString } from '../webidl.ts';

export type Guard = 'none' | 'request' | 'response' | 'immutable';

const INVALID_NAME = 'Invalid header name.';
const INVALID_VALUE = 'Invalid header value.';
const IMMUTABLE = "Can't modify immutable headers.";

/** RFC 9110 token characters. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export function isToken(text: string): boolean {
  return TOKEN.test(text);
}

/** Strips leading and trailing HTTP whitespace (tab, LF, CR, space). */
function normalizeValue(value: string): string {
  return value.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
}

function validName(name: unknown): string {
  const text = toDOMString(name);
  if (!isToken(text)) throw new TypeErrorCtor(INVALID_NAME);
  return text;
}

function validValue(value: unknown): string {
  const text = normalizeValue(toDOMString(value));
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit === 0 || unit === 0x0a || unit === 0x0d || unit > 0xff) throw new TypeErrorCtor(INVALID_VALUE);
  }
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

  /** https://fetch.spec.whatwg.org/#concept-headers-fill */
  #fill(init: unknown): void {
    if (typeof init !== 'object' || init === null) {
      throw new TypeErrorCtor(
        "Failed to construct 'Headers': The provided value is not of type '(record<ByteString, ByteString> or sequence<sequence<ByteString>>)'.",
      );
    }
    const iterator = (init as { [Symbol.iterator]?: unknown })[Symbol.iterator];
    if (typeof iterator === 'function') {
      for (const pair of init as Iterable<unknown>) {
        const items =
          typeof pair === 'object' && pair !== null ? [...(pair as Iterable<unknown>)] : undefined;
        if (items === undefined || items.length !== 2) {
          throw new TypeErrorCtor('Header pairs must contain exactly two items.');
        }
        this.#append(items[0], items[1]);
      }
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
    const key = validName(name).toLowerCase();
    headers.#writable();
    headers.#list = headers.#list.filter(([existing]) => existing.toLowerCase() !== key);
  }

  get(name: string): string | null {
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 1, 'get', 'Headers');
    const headers = Headers.#check(this);
    const key = validName(name).toLowerCase();
    const values = headers.#list
      .filter(([existing]) => existing.toLowerCase() === key)
      .map(([, value]) => value);
    return values.length === 0 ? null : values.join(', ');
  }

  getSetCookie(): string[] {
    return Headers.#check(this)
      .#list.filter(([name]) => name.toLowerCase() === 'set-cookie')
      .map(([, value]) => value);
  }

  getAll(name: string): string[] {
    const key = validName(name).toLowerCase();
    if (key !== 'set-cookie')
      throw new TypeErrorCtor('getAll() can only be used with the header name "Set-Cookie".');
    return this.getSetCookie();
  }

  has(name: string): boolean {
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 1, 'has', 'Headers');
    const headers = Headers.#check(this);
    const key = validName(name).toLowerCase();
    return headers.#list.some(([existing]) => existing.toLowerCase() === key);
  }

  set(name: string, value: string): void {
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 2, 'set', 'Headers');
    const headers = Headers.#check(this);
    const validatedName = validName(name);
    const validatedValue = validValue(value);
    headers.#writable();
    const key = validatedName.toLowerCase();
    const index = headers.#list.findIndex(([existing]) => existing.toLowerCase() === key);
    if (index === -1) {
      headers.#list.push([validatedName, validatedValue]);
      return;
    }
    headers.#list[index] = [(headers.#list[index] as [string, string])[0], validatedValue];
    headers.#list = headers.#list.filter(
      ([existing], position) => position <= index || existing.toLowerCase() !== key,
    );
  }

  /** https://fetch.spec.whatwg.org/#concept-header-list-sort-and-combine */
  #sorted(): [string, string][] {
    const names = [...new Set(this.#list.map(([name]) => name.toLowerCase()))].sort();
    const out: [string, string][] = [];
    for (const name of names) {
      if (name === 'set-cookie') {
        for (const [existing, value] of this.#list)
          if (existing.toLowerCase() === name) out.push([name, value]);
      } else {
        out.push([
          name,
          this.#list
            .filter(([existing]) => existing.toLowerCase() === name)
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
    return this.entries();
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
Object.defineProperty(Headers.prototype, Symbol.iterator, {
  value: Headers.prototype.entries,
  writable: true,
  enumerable: false,
  configurable: true,
});
