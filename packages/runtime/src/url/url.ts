/**
 * URL (https://url.spec.whatwg.org/#url-class): a URL record in a #private field, parsed and
 * serialized by whatwg-url's algorithms (whatwg-url.ts), with workerd's shape and error texts.
 * The query object (`searchParams`) is made on first read: until then nothing can observe it, and
 * most URLs are never asked for one.
 */
import {
  ObjectPrototypeToString,
  StringPrototypeCharCodeAt,
  StringPrototypeSlice,
  TypeErrorCtor,
} from '../primordials.ts';
import {
  argumentTypeError,
  constructorArgumentTypeError,
  defineWorkerdInterface,
  illegalInvocation,
  toUSVString,
} from '../webidl.ts';
import { searchParamsForURL, setSearchParamsQuery, type URLSearchParams } from './url-search-params.ts';
import {
  basicURLParse,
  cannotHaveAUsernamePasswordPort,
  hasAnOpaquePath,
  serializeHost,
  serializeInteger,
  serializePath,
  serializeURL,
  serializeURLOrigin,
  setThePassword,
  setTheUsername,
  type URLRecord,
} from './whatwg-url.ts';

/** workerd's text when the URL constructor's parse fails (for the URL or for the base). */
export const INVALID_URL_MESSAGE = 'Invalid URL string.';
/** workerd's text when the href setter's parse fails. */
export const INVALID_HREF_MESSAGE =
  "Failed to set the 'href' property on 'URL': the provided value is not of type 'valid URL string'.";
export const CREATE_OBJECT_URL_MESSAGE = 'URL.createObjectURL() is not implemented';
export const REVOKE_OBJECT_URL_MESSAGE = 'URL.revokeObjectURL() is not implemented';

/**
 * The API URL parser (https://url.spec.whatwg.org/#api-url-parser): parse `base` first when given,
 * then `url` against it; null for failure. Both are USVStrings already.
 */
function apiURLParse(url: string, base: string | undefined): URLRecord | null {
  // 1-2. If base is given, let parsedBase be the result of running the basic URL parser on base;
  //      if parsedBase is failure, then return failure.
  let parsedBase: URLRecord | null = null;
  if (base !== undefined) {
    parsedBase = basicURLParse(base);
    if (parsedBase === null) return null;
  }
  // 3. Return the result of running the basic URL parser on url with parsedBase.
  return basicURLParse(url, { baseURL: parsedBase });
}

/** The URL and base arguments of the constructor and the statics, converted as WebIDL does. */
function toArguments(
  count: number,
  url: unknown,
  base: unknown,
  fail: () => TypeError,
): { input: string; baseInput: string | undefined } {
  if (count < 1) throw fail();
  return { input: toUSVString(url), baseInput: base === undefined ? undefined : toUSVString(base) };
}

export class URL {
  #url: URLRecord;
  #query: URLSearchParams | undefined;

  /** https://url.spec.whatwg.org/#dom-url-url */
  constructor(url: unknown, base: unknown = undefined) {
    // URL.parse() hands over the URL record it parsed already (newURL below).
    if (handedOver !== undefined) {
      this.#url = handedOver;
      handedOver = undefined;
      return;
    }
    const { input, baseInput } = toArguments(
      // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
      arguments.length,
      url,
      base,
      () => constructorArgumentTypeError('URL', 1, 'USVString'),
    );
    // 1-2. Let parsedURL be the result of running the API URL parser; failure is a TypeError.
    const parsed = apiURLParse(input, baseInput);
    if (parsed === null) throw new TypeErrorCtor(INVALID_URL_MESSAGE);
    // 3. Initialize this with parsedURL (its query object is made on first read of searchParams).
    this.#url = parsed;
  }

  /** https://url.spec.whatwg.org/#dom-url-canparse */
  static canParse(url: unknown, base: unknown = undefined): boolean {
    const { input, baseInput } = toArguments(
      // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
      arguments.length,
      url,
      base,
      () => argumentTypeError('canParse', 'URL', 1, 'USVString'),
    );
    return apiURLParse(input, baseInput) !== null;
  }

  /** https://url.spec.whatwg.org/#dom-url-parse */
  static parse(url: unknown, base: unknown = undefined): URL | null {
    const { input, baseInput } = toArguments(
      // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
      arguments.length,
      url,
      base,
      () => argumentTypeError('parse', 'URL', 1, 'USVString'),
    );
    // 1-2. Let parsedURL be the result of running the API URL parser; failure returns null.
    const parsed = apiURLParse(input, baseInput);
    if (parsed === null) return null;
    // 3-4. Return a new URL initialized with parsedURL.
    return newURL(parsed);
  }

  /** Blob URLs need a blob URL store, which a Worker does not have; workerd throws the same. */
  static createObjectURL(object: unknown): never {
    const tag = typeof object === 'object' && object !== null ? ObjectPrototypeToString(object) : '';
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    if (arguments.length < 1 || (tag !== '[object Blob]' && tag !== '[object File]')) {
      throw argumentTypeError('createObjectURL', 'URL', 1, 'File or Blob');
    }
    throw new Error(CREATE_OBJECT_URL_MESSAGE);
  }

  static revokeObjectURL(url: unknown): never {
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    if (arguments.length < 1) throw argumentTypeError('revokeObjectURL', 'URL', 1, 'USVString');
    toUSVString(url);
    throw new Error(REVOKE_OBJECT_URL_MESSAGE);
  }

  get origin(): string {
    if (!(#url in this)) throw illegalInvocation();
    return serializeURLOrigin(this.#url);
  }

  /** https://url.spec.whatwg.org/#dom-url-href */
  get href(): string {
    if (!(#url in this)) throw illegalInvocation();
    return serializeURL(this.#url);
  }

  set href(value: unknown) {
    if (!(#url in this)) throw illegalInvocation();
    // 1-2. Let parsedURL be the result of running the basic URL parser on the given value; failure
    //      is a TypeError.
    const parsed = basicURLParse(toUSVString(value));
    if (parsed === null) throw new TypeErrorCtor(INVALID_HREF_MESSAGE);
    // 3. Set this's URL to parsedURL.
    this.#url = parsed;
    // 4-6. Empty this's query object's list, and parse the new query into it when there is one.
    if (this.#query !== undefined) setSearchParamsQuery(this.#query, parsed.query);
  }

  /** https://url.spec.whatwg.org/#dom-url-protocol */
  get protocol(): string {
    if (!(#url in this)) throw illegalInvocation();
    return `${this.#url.scheme}:`;
  }

  set protocol(value: unknown) {
    if (!(#url in this)) throw illegalInvocation();
    // Basic URL parse the given value, followed by U+003A (:), with this's URL as url and scheme
    // start state as state override.
    basicURLParse(`${toUSVString(value)}:`, { url: this.#url, stateOverride: 'scheme start' });
  }

  /** https://url.spec.whatwg.org/#dom-url-username */
  get username(): string {
    if (!(#url in this)) throw illegalInvocation();
    return this.#url.username;
  }

  set username(value: unknown) {
    if (!(#url in this)) throw illegalInvocation();
    const text = toUSVString(value);
    // 1. If this's URL cannot have a username/password/port, then return.
    if (cannotHaveAUsernamePasswordPort(this.#url)) return;
    // 2. Set the username given this's URL and the given value.
    setTheUsername(this.#url, text);
  }

  /** https://url.spec.whatwg.org/#dom-url-password */
  get password(): string {
    if (!(#url in this)) throw illegalInvocation();
    return this.#url.password;
  }

  set password(value: unknown) {
    if (!(#url in this)) throw illegalInvocation();
    const text = toUSVString(value);
    if (cannotHaveAUsernamePasswordPort(this.#url)) return;
    setThePassword(this.#url, text);
  }

  /** https://url.spec.whatwg.org/#dom-url-host */
  get host(): string {
    if (!(#url in this)) throw illegalInvocation();
    const url = this.#url;
    // 2. If url's host is null, then return the empty string.
    if (url.host === null) return '';
    // 3. If url's port is null, return url's host, serialized.
    if (url.port === null) return serializeHost(url.host);
    // 4. Return url's host, serialized, followed by ":" and url's port, serialized.
    return `${serializeHost(url.host)}:${serializeInteger(url.port)}`;
  }

  set host(value: unknown) {
    if (!(#url in this)) throw illegalInvocation();
    const text = toUSVString(value);
    // 1. If this's URL has an opaque path, then return.
    if (hasAnOpaquePath(this.#url)) return;
    // 2. Basic URL parse the given value with this's URL as url and host state as state override.
    basicURLParse(text, { url: this.#url, stateOverride: 'host' });
  }

  /** https://url.spec.whatwg.org/#dom-url-hostname */
  get hostname(): string {
    if (!(#url in this)) throw illegalInvocation();
    const host = this.#url.host;
    return host === null ? '' : serializeHost(host);
  }

  set hostname(value: unknown) {
    if (!(#url in this)) throw illegalInvocation();
    const text = toUSVString(value);
    if (hasAnOpaquePath(this.#url)) return;
    basicURLParse(text, { url: this.#url, stateOverride: 'hostname' });
  }

  /** https://url.spec.whatwg.org/#dom-url-port */
  get port(): string {
    if (!(#url in this)) throw illegalInvocation();
    const port = this.#url.port;
    return port === null ? '' : serializeInteger(port);
  }

  set port(value: unknown) {
    if (!(#url in this)) throw illegalInvocation();
    const text = toUSVString(value);
    // 1. If this's URL cannot have a username/password/port, then return.
    if (cannotHaveAUsernamePasswordPort(this.#url)) return;
    // 2. If the given value is the empty string, then set this's URL's port to null.
    if (text === '') this.#url.port = null;
    // 3. Otherwise, basic URL parse the given value with port state as state override.
    else basicURLParse(text, { url: this.#url, stateOverride: 'port' });
  }

  /** https://url.spec.whatwg.org/#dom-url-pathname */
  get pathname(): string {
    if (!(#url in this)) throw illegalInvocation();
    return serializePath(this.#url);
  }

  set pathname(value: unknown) {
    if (!(#url in this)) throw illegalInvocation();
    const text = toUSVString(value);
    // 1. If this's URL has an opaque path, then return.
    if (hasAnOpaquePath(this.#url)) return;
    // 2. Empty this's URL's path.
    this.#url.path = [];
    // 3. Basic URL parse the given value with path start state as state override.
    basicURLParse(text, { url: this.#url, stateOverride: 'path start' });
  }

  /** https://url.spec.whatwg.org/#dom-url-search */
  get search(): string {
    if (!(#url in this)) throw illegalInvocation();
    const query = this.#url.query;
    return query === null || query === '' ? '' : `?${query}`;
  }

  set search(value: unknown) {
    if (!(#url in this)) throw illegalInvocation();
    const text = toUSVString(value);
    const url = this.#url;
    // 2. If the given value is the empty string: set url's query to null, empty this's query
    //    object's list, and return.
    if (text === '') {
      url.query = null;
      if (this.#query !== undefined) setSearchParamsQuery(this.#query, null);
      return;
    }
    // 3. Let input be the given value with a single leading "?" removed, if any.
    const input = StringPrototypeCharCodeAt(text, 0) === 0x3f ? StringPrototypeSlice(text, 1) : text;
    // 4-5. Set url's query to the empty string and basic URL parse input with query state.
    url.query = '';
    basicURLParse(input, { url, stateOverride: 'query' });
    // 6. Set this's query object's list to the result of parsing input.
    if (this.#query !== undefined) setSearchParamsQuery(this.#query, url.query);
  }

  /** https://url.spec.whatwg.org/#dom-url-hash */
  get hash(): string {
    if (!(#url in this)) throw illegalInvocation();
    const fragment = this.#url.fragment;
    return fragment === null || fragment === '' ? '' : `#${fragment}`;
  }

  set hash(value: unknown) {
    if (!(#url in this)) throw illegalInvocation();
    const text = toUSVString(value);
    // 1. If the given value is the empty string, set this's URL's fragment to null and return.
    if (text === '') {
      this.#url.fragment = null;
      return;
    }
    // 2-4. Remove a single leading "#", set the fragment to the empty string, and basic URL parse
    //      input with fragment state as state override.
    const input = StringPrototypeCharCodeAt(text, 0) === 0x23 ? StringPrototypeSlice(text, 1) : text;
    this.#url.fragment = '';
    basicURLParse(input, { url: this.#url, stateOverride: 'fragment' });
  }

  /** https://url.spec.whatwg.org/#dom-url-searchparams: the same object every time. */
  get searchParams(): URLSearchParams {
    if (!(#url in this)) throw illegalInvocation();
    if (this.#query === undefined) {
      this.#query = searchParamsForURL(this.#url.query, (query) => {
        this.#url.query = query;
      });
    }
    return this.#query;
  }

  /** https://url.spec.whatwg.org/#dom-url-tojson */
  toJSON(): string {
    if (!(#url in this)) throw illegalInvocation();
    return serializeURL(this.#url);
  }

  /** The stringifier: the href getter's steps. */
  toString(): string {
    if (!(#url in this)) throw illegalInvocation();
    return serializeURL(this.#url);
  }
}

/** A URL record on its way from URL.parse() into a new URL, read by the constructor's first step. */
let handedOver: URLRecord | undefined;

/**
 * A new URL initialized with `record`, for the static parse(). Outside the class on purpose: a
 * class that names itself in its own body is bundled as `var URL = class _URL`, and the engine
 * then calls it "_URL" in its errors.
 */
function newURL(record: URLRecord): URL {
  handedOver = record;
  try {
    return new URL('');
  } finally {
    handedOver = undefined;
  }
}

defineWorkerdInterface(URL);
