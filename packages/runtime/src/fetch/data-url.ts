/**
 * data: URLs for fetch: the Fetch standard's data: URL processor
 * (https://fetch.spec.whatwg.org/#data-url-processor) and the MIME type parser and serializer it
 * uses (https://mimesniff.spec.whatwg.org/#parsing-a-mime-type). One step follows workerd instead
 * of the standard: base64 is decoded permissively (below), where forgiving-base64 would fail.
 *
 * A runtime piece (../pieces.ts), kept out of the startup snapshot: the first data: URL fetched
 * loads it (./fetch.ts). Every module it imports is the snapshot's (scripts/build-runtime-piece.mjs).
 */
import { Uint8ArrayCtor } from '../primordials.ts';
import { utf8Encode } from '../utf8.ts';

const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const QUOTED_STRING_TOKEN = /^[\t\x20-\x7e\x80-\xff]*$/;
const HTTP_WHITESPACE = /[\t\n\r ]/;
const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** https://mimesniff.spec.whatwg.org/#parse-a-mime-type, serialized again; null on failure. */
export function parseMimeType(input: string): string | null {
  const text = input.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
  const slash = text.indexOf('/');
  if (slash === -1) return null;
  const type = text.slice(0, slash);
  let position = text.indexOf(';', slash);
  if (position === -1) position = text.length;
  const subtype = text.slice(slash + 1, position).replace(/[\t\n\r ]+$/, '');
  if (!HTTP_TOKEN.test(type) || !HTTP_TOKEN.test(subtype)) return null;
  const parameters = new Map<string, string>();
  while (position < text.length) {
    position++;
    while (position < text.length && HTTP_WHITESPACE.test(text[position] as string)) position++;
    let end = position;
    while (end < text.length && text[end] !== ';' && text[end] !== '=') end++;
    const name = text.slice(position, end).toLowerCase();
    position = end;
    if (position >= text.length) break;
    if (text[position] === ';') continue;
    position++;
    if (position >= text.length) break;
    let value: string;
    if (text[position] === '"') {
      [value, position] = quotedString(text, position);
      while (position < text.length && text[position] !== ';') position++;
    } else {
      end = text.indexOf(';', position);
      if (end === -1) end = text.length;
      value = text.slice(position, end).replace(/[\t\n\r ]+$/, '');
      position = end;
      if (value === '') continue;
    }
    if (HTTP_TOKEN.test(name) && QUOTED_STRING_TOKEN.test(value) && !parameters.has(name)) {
      parameters.set(name, value);
    }
  }
  let serialized = `${type.toLowerCase()}/${subtype.toLowerCase()}`;
  for (const [name, value] of parameters) {
    serialized += `;${name}=`;
    serialized += HTTP_TOKEN.test(value) ? value : `"${value.replace(/["\\]/g, '\\$&')}"`;
  }
  return serialized;
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

function percentDecode(text: string): Uint8Array {
  const input = utf8Encode(text);
  const output = new Uint8ArrayCtor(input.length);
  let length = 0;
  for (let index = 0; index < input.length; index++) {
    const byte = input[index] as number;
    const hex = byte === 0x25 ? String.fromCharCode(input[index + 1] ?? 0, input[index + 2] ?? 0) : '';
    if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
      output[length++] = Number.parseInt(hex, 16);
      index += 2;
    } else {
      output[length++] = byte;
    }
  }
  return output.slice(0, length);
}

/**
 * workerd's base64 for data: URLs: bytes outside the alphabet (padding included) are skipped, and
 * the bits left over at the end (a lone final character's, or a short tail's) are ignored. The
 * standard's forgiving-base64 fails on most such inputs and makes the fetch a network error.
 */
function decodeBase64(bytes: Uint8Array): Uint8Array {
  const output = new Uint8ArrayCtor(Math.floor((bytes.length * 3) / 4));
  let length = 0;
  let bits = 0;
  let count = 0;
  for (const byte of bytes) {
    const digit = BASE64_ALPHABET.indexOf(String.fromCharCode(byte));
    if (digit === -1) continue;
    bits = ((bits << 6) | digit) & 0xfff;
    count += 6;
    if (count >= 8) {
      count -= 8;
      output[length++] = (bits >> count) & 0xff;
    }
  }
  return output.slice(0, length);
}

/** https://fetch.spec.whatwg.org/#data-url-processor: the MIME type and body, or null on failure. */
export function processDataUrl(href: string): { mimeType: string; body: Uint8Array } | null {
  const hash = href.indexOf('#');
  const input = (hash === -1 ? href : href.slice(0, hash)).slice('data:'.length);
  const comma = input.indexOf(',');
  if (comma === -1) return null;
  let mimeType = input.slice(0, comma).replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, '');
  let body = percentDecode(input.slice(comma + 1));
  const base64 = /;[ ]*base64$/i.exec(mimeType);
  if (base64 !== null) {
    body = decodeBase64(body);
    mimeType = mimeType.slice(0, base64.index);
  }
  if (mimeType.startsWith(';')) mimeType = `text/plain${mimeType}`;
  return { mimeType: parseMimeType(mimeType) ?? 'text/plain;charset=US-ASCII', body };
}
