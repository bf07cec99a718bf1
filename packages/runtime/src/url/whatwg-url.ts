/**
 * The URL Standard's algorithms from whatwg-url 17 (generated/whatwg-url.generated.ts, built by
 * scripts/build-whatwg-url.mjs), typed. url.ts and url-search-params.ts are the interfaces user code sees;
 * this module is the only one that touches the library.
 */
import * as whatwgUrl from './generated/whatwg-url.generated.ts';

/** A URL record (https://url.spec.whatwg.org/#concept-url), as whatwg-url represents it. */
export interface URLRecord {
  scheme: string;
  username: string;
  password: string;
  /** A domain or opaque host (string), an IPv4 address (number) or an IPv6 address (8 pieces). */
  host: string | number | number[] | null;
  port: number | null;
  /** A list of segments, or an opaque path (string). */
  path: string[] | string;
  query: string | null;
  fragment: string | null;
}

/** The basic URL parser's state overrides the URL setters use. */
export type StateOverride =
  | 'scheme start'
  | 'host'
  | 'hostname'
  | 'port'
  | 'path start'
  | 'query'
  | 'fragment';

export interface BasicURLParseOptions {
  baseURL?: URLRecord | null;
  url?: URLRecord;
  stateOverride?: StateOverride;
}

/** The list of name-value tuples of a URLSearchParams object. */
export type NameValueList = [name: string, value: string][];

const library = whatwgUrl as unknown as {
  basicURLParse(input: string, options?: BasicURLParseOptions): URLRecord | null;
  serializeURL(url: URLRecord, excludeFragment?: boolean): string;
  serializeURLOrigin(url: URLRecord): string;
  serializeHost(host: NonNullable<URLRecord['host']>): string;
  serializeInteger(integer: number): string;
  serializePath(url: URLRecord): string;
  setTheUsername(url: URLRecord, username: string): void;
  setThePassword(url: URLRecord, password: string): void;
  cannotHaveAUsernamePasswordPort(url: URLRecord): boolean;
  hasAnOpaquePath(url: URLRecord): boolean;
  parseUrlencodedString(input: string): NameValueList;
  serializeUrlencoded(tuples: NameValueList): string;
};

/** The basic URL parser (https://url.spec.whatwg.org/#concept-basic-url-parser); null for failure. */
export const basicURLParse = library.basicURLParse;
/** The URL serializer (https://url.spec.whatwg.org/#concept-url-serializer). */
export const serializeURL = library.serializeURL;
/** The serialization of a URL's origin (https://url.spec.whatwg.org/#concept-url-origin). */
export const serializeURLOrigin = library.serializeURLOrigin;
/** The host serializer (https://url.spec.whatwg.org/#concept-host-serializer). */
export const serializeHost = library.serializeHost;
export const serializeInteger = library.serializeInteger;
/** The URL path serializer (https://url.spec.whatwg.org/#url-path-serializer). */
export const serializePath = library.serializePath;
/** https://url.spec.whatwg.org/#set-the-username */
export const setTheUsername = library.setTheUsername;
/** https://url.spec.whatwg.org/#set-the-password */
export const setThePassword = library.setThePassword;
/** https://url.spec.whatwg.org/#cannot-have-a-username-password-port */
export const cannotHaveAUsernamePasswordPort = library.cannotHaveAUsernamePasswordPort;
/** https://url.spec.whatwg.org/#url-opaque-path */
export const hasAnOpaquePath = library.hasAnOpaquePath;
/** The application/x-www-form-urlencoded string parser (https://url.spec.whatwg.org/#concept-urlencoded-string-parser). */
export const parseUrlencodedString = library.parseUrlencodedString;
/** The application/x-www-form-urlencoded serializer (https://url.spec.whatwg.org/#concept-urlencoded-serializer). */
export const serializeUrlencoded = library.serializeUrlencoded;
