/**
 * atob and btoa (HTML, https://html.spec.whatwg.org/multipage/webappapis.html#atob), with the
 * forgiving-base64 decode of https://infra.spec.whatwg.org/#forgiving-base64-decode.
 */
import { DOMException } from './dom-exception.ts';
import { StringFromCharCode, StringPrototypeCharCodeAt } from './primordials.ts';
import { argumentTypeError, GLOBAL_SCOPE, toDOMString } from './webidl.ts';

/** workerd's texts for the two failures. */
export const ATOB_INVALID_MESSAGE =
  "atob() called with invalid base64-encoded data. (Only whitespace, '+', '/', alphanumeric ASCII, and up to two terminal '=' signs when the input data length is divisible by 4 are allowed.)";
export const BTOA_INVALID_MESSAGE =
  'btoa() can only operate on characters in the Latin1 (ISO/IEC 8859-1) range.';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
/** The 6-bit value of each code unit below 128, or -1 for one outside the alphabet. */
// A plain array, not a typed one: the snapshot must hold no buffer over 64 bytes
// (test/runtime/snapshot-limits.test.ts says why).
const DECODE: number[] = [];
for (let index = 0; index < 128; index++) DECODE[index] = -1;
for (let index = 0; index < ALPHABET.length; index++) DECODE[ALPHABET.charCodeAt(index)] = index;

/** ASCII whitespace: TAB, LF, FF, CR, SPACE. */
function isAsciiWhitespace(unit: number): boolean {
  return unit === 0x09 || unit === 0x0a || unit === 0x0c || unit === 0x0d || unit === 0x20;
}

/** Forgiving-base64 decode into a binary string, or undefined on failure. */
export function forgivingBase64Decode(input: string): string | undefined {
  // 1. Remove all ASCII whitespace.
  const units: number[] = [];
  for (let index = 0; index < input.length; index++) {
    const unit = StringPrototypeCharCodeAt(input, index);
    if (!isAsciiWhitespace(unit)) units[units.length] = unit;
  }
  let length = units.length;
  // 2. When the length divides by 4, drop one or two trailing '='.
  if (length % 4 === 0 && length > 0 && units[length - 1] === 0x3d) {
    length--;
    if (units[length - 1] === 0x3d) length--;
  }
  // 3. A remainder of 1 cannot hold a whole byte.
  if (length % 4 === 1) return undefined;
  // 4 to 8. Every unit must be in the alphabet; accumulate 6 bits at a time.
  let output = '';
  let buffer = 0;
  let bits = 0;
  for (let index = 0; index < length; index++) {
    const unit = units[index] as number;
    const value = unit < 128 ? (DECODE[unit] as number) : -1;
    if (value < 0) return undefined;
    buffer = (buffer << 6) | value;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      output += StringFromCharCode((buffer >> bits) & 0xff);
    }
  }
  return output;
}

/** https://html.spec.whatwg.org/multipage/webappapis.html#dom-atob */
export function atob(data: unknown = undefined): string {
  // workerd names a missing argument as 'string' here, and gives atob a length of 0.
  // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
  if (arguments.length < 1) throw argumentTypeError('atob', GLOBAL_SCOPE, 1, 'string');
  // 1. Let decodedData be the result of running forgiving-base64 decode on data.
  const decoded = forgivingBase64Decode(toDOMString(data));
  // 2. If decodedData is failure, then throw an "InvalidCharacterError" DOMException.
  if (decoded === undefined) throw new DOMException(ATOB_INVALID_MESSAGE, 'InvalidCharacterError');
  // 3. Return decodedData.
  return decoded;
}

/** https://html.spec.whatwg.org/multipage/webappapis.html#dom-btoa */
export function btoa(data: unknown = undefined): string {
  // workerd names a missing argument as 'String' here (capitalized, unlike atob's).
  // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
  if (arguments.length < 1) throw argumentTypeError('btoa', GLOBAL_SCOPE, 1, 'String');
  // 1-2. Throw an "InvalidCharacterError" DOMException for a code point above U+00FF (byteAt);
  //      otherwise return the forgiving-base64 encoding of the bytes.
  const input = toDOMString(data);
  let output = '';
  let index = 0;
  for (; index + 2 < input.length; index += 3) {
    const triple = (byteAt(input, index) << 16) | (byteAt(input, index + 1) << 8) | byteAt(input, index + 2);
    output +=
      ALPHABET[triple >> 18] +
      (ALPHABET[(triple >> 12) & 63] as string) +
      ALPHABET[(triple >> 6) & 63] +
      ALPHABET[triple & 63];
  }
  const rest = input.length - index;
  if (rest === 1) {
    const single = byteAt(input, index) << 16;
    output += `${ALPHABET[single >> 18]}${ALPHABET[(single >> 12) & 63]}==`;
  } else if (rest === 2) {
    const pair = (byteAt(input, index) << 16) | (byteAt(input, index + 1) << 8);
    output += `${ALPHABET[pair >> 18]}${ALPHABET[(pair >> 12) & 63]}${ALPHABET[(pair >> 6) & 63]}=`;
  }
  return output;
}

function byteAt(input: string, index: number): number {
  const unit = StringPrototypeCharCodeAt(input, index);
  if (unit > 0xff) throw new DOMException(BTOA_INVALID_MESSAGE, 'InvalidCharacterError');
  return unit;
}
