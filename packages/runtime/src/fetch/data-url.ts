/**
 * data: URLs for fetch: the Fetch standard's data: URL processor
 * (https://fetch.spec.whatwg.org/#data-url-processor) and the MIME type parser and serializer it
 * uses (https://mimesniff.spec.whatwg.org/#parsing-a-mime-type). One step follows workerd instead
 * of the standard: base64 is decoded permissively (below), where forgiving-base64 would fail.
 *
 * A runtime piece (../pieces.ts), kept out of the startup snapshot: the first data: URL fetched
 * loads it (./fetch.ts). Every module it imports is the snapshot's (scripts/build-runtime-piece.mjs).
 */
import { utf8Encode } from '../encoding/utf8.ts';
import {
  isHttpWhitespace,
  trimAsciiWhitespace,
  trimHttpWhitespace,
  trimTrailingHttpWhitespace,
} from '../infra.ts';
import {
  ArrayPrototypePush,
  MathFloor,
  RegExpPrototypeExec,
  RegExpTest,
  SafeSet,
  StringPrototypeCharCodeAt,
  StringPrototypeIndexOf,
  StringPrototypeSlice,
  StringPrototypeStartsWith,
  StringPrototypeToLowerCase,
  TypedArrayPrototypeSlice,
  Uint8ArrayCtor,
} from '../primordials.ts';

const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const QUOTED_STRING_TOKEN = /^[\t\x20-\x7e\x80-\xff]*$/;
const BASE64_SUFFIX = /;[ ]*base64$/i;

/** https://mimesniff.spec.whatwg.org/#parse-a-mime-type, serialized again; null on failure. */
export function parseMimeType(input: string): string | null {
  const text = trimHttpWhitespace(input);
  const slash = StringPrototypeIndexOf(text, '/');
  if (slash === -1) return null;
  const type = StringPrototypeSlice(text, 0, slash);
  let position = StringPrototypeIndexOf(text, ';', slash);
  if (position === -1) position = text.length;
  const subtype = trimTrailingHttpWhitespace(StringPrototypeSlice(text, slash + 1, position));
  if (!RegExpTest(HTTP_TOKEN, type) || !RegExpTest(HTTP_TOKEN, subtype)) return null;
  const parameters: [string, string][] = [];
  const named = new SafeSet<string>();
  while (position < text.length) {
    position++;
    while (position < text.length && isHttpWhitespace(StringPrototypeCharCodeAt(text, position))) position++;
    let end = position;
    while (end < text.length && text[end] !== ';' && text[end] !== '=') end++;
    const name = StringPrototypeToLowerCase(StringPrototypeSlice(text, position, end));
    position = end;
    if (position >= text.length) break;
    if (text[position] === ';') continue;
    position++;
    if (position >= text.length) break;
    let value: string;
    if (text[position] === '"') {
      const quoted = quotedString(text, position);
      value = quoted[0];
      position = quoted[1];
      while (position < text.length && text[position] !== ';') position++;
    } else {
      end = StringPrototypeIndexOf(text, ';', position);
      if (end === -1) end = text.length;
      value = trimTrailingHttpWhitespace(StringPrototypeSlice(text, position, end));
      position = end;
      if (value === '') continue;
    }
    if (RegExpTest(HTTP_TOKEN, name) && RegExpTest(QUOTED_STRING_TOKEN, value) && !named.has(name)) {
      named.add(name);
      ArrayPrototypePush(parameters, [name, value]);
    }
  }
  let serialized = `${StringPrototypeToLowerCase(type)}/${StringPrototypeToLowerCase(subtype)}`;
  for (let index = 0; index < parameters.length; index++) {
    const pair = parameters[index] as [string, string];
    const name = pair[0];
    const value = pair[1];
    serialized += `;${name}=`;
    serialized += RegExpTest(HTTP_TOKEN, value) ? value : `"${escapeQuoted(value)}"`;
  }
  return serialized;
}

/** A parameter value for a quoted-string: each quote and backslash escaped with a backslash. */
function escapeQuoted(value: string): string {
  let escaped = '';
  for (let index = 0; index < value.length; index++) {
    const character = value[index] as string;
    escaped += character === '"' || character === '\\' ? `\\${character}` : character;
  }
  return escaped;
}

/** https://fetch.spec.whatwg.org/#collect-an-http-quoted-string, extracting the value. */
function quotedString(text: string, start: number): [string, number] {
  let value = '';
  let position = start + 1;
  for (;;) {
    while (position < text.length && text[position] !== '"' && text[position] !== '\\') {
      value += text[position];
      position++;
    }
    if (position >= text.length) break;
    const quoteOrBackslash = text[position];
    position++;
    if (quoteOrBackslash !== '\\') break;
    if (position >= text.length) {
      value += '\\';
      break;
    }
    value += text[position];
    position++;
  }
  return [value, position];
}

/** The value of an ASCII hex digit, or -1 for any other byte (or none). */
function hexValue(byte: number | undefined): number {
  if (byte === undefined) return -1;
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57;
  return -1;
}

function percentDecode(text: string): Uint8Array {
  const input = utf8Encode(text);
  const output = new Uint8ArrayCtor(input.length);
  let length = 0;
  for (let index = 0; index < input.length; index++) {
    const byte = input[index] as number;
    const high = byte === 0x25 ? hexValue(input[index + 1]) : -1;
    const low = high === -1 ? -1 : hexValue(input[index + 2]);
    if (low !== -1) {
      output[length++] = high * 16 + low;
      index += 2;
    } else {
      output[length++] = byte;
    }
  }
  return TypedArrayPrototypeSlice(output, 0, length);
}

/** A byte's value in base64's alphabet (A-Z, a-z, 0-9, +, /), or -1 for any other. */
function base64Digit(byte: number): number {
  if (byte >= 0x41 && byte <= 0x5a) return byte - 0x41;
  if (byte >= 0x61 && byte <= 0x7a) return byte - 0x47;
  if (byte >= 0x30 && byte <= 0x39) return byte + 4;
  if (byte === 0x2b) return 62;
  if (byte === 0x2f) return 63;
  return -1;
}

/**
 * workerd's base64 for data: URLs: bytes outside the alphabet (padding included) are skipped, and
 * the bits left over at the end (a lone final character's, or a short tail's) are ignored. The
 * standard's forgiving-base64 fails on most such inputs and makes the fetch a network error.
 */
function decodeBase64(bytes: Uint8Array): Uint8Array {
  const output = new Uint8ArrayCtor(MathFloor((bytes.length * 3) / 4));
  let length = 0;
  let bits = 0;
  let count = 0;
  for (let index = 0; index < bytes.length; index++) {
    const digit = base64Digit(bytes[index] as number);
    if (digit === -1) continue;
    bits = ((bits << 6) | digit) & 0xfff;
    count += 6;
    if (count >= 8) {
      count -= 8;
      output[length++] = (bits >> count) & 0xff;
    }
  }
  return TypedArrayPrototypeSlice(output, 0, length);
}

/** https://fetch.spec.whatwg.org/#data-url-processor: the MIME type and body, or null on failure. */
export function processDataUrl(href: string): { mimeType: string; body: Uint8Array } | null {
  const hash = StringPrototypeIndexOf(href, '#');
  const input = StringPrototypeSlice(
    hash === -1 ? href : StringPrototypeSlice(href, 0, hash),
    'data:'.length,
  );
  const comma = StringPrototypeIndexOf(input, ',');
  if (comma === -1) return null;
  let mimeType = trimAsciiWhitespace(StringPrototypeSlice(input, 0, comma));
  let body = percentDecode(StringPrototypeSlice(input, comma + 1));
  const base64 = RegExpPrototypeExec(BASE64_SUFFIX, mimeType);
  if (base64 !== null) {
    body = decodeBase64(body);
    mimeType = StringPrototypeSlice(mimeType, 0, base64.index);
  }
  if (StringPrototypeStartsWith(mimeType, ';')) mimeType = `text/plain${mimeType}`;
  return { mimeType: parseMimeType(mimeType) ?? 'text/plain;charset=US-ASCII', body };
}
