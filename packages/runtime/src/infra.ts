/**
 * The string steps of the Infra and Fetch standards that the runtime's HTTP code shares (ASCII
 * lowercase, HTTP and ASCII whitespace), written over code units: a regular expression's replace or test
 * would call the RegExp's `exec` through RegExp.prototype, which a program can replace.
 */
import { StringFromCharCode, StringPrototypeCharCodeAt, StringPrototypeSlice } from './primordials.ts';

function isUpperAlpha(unit: number): boolean {
  return unit >= 0x41 && unit <= 0x5a;
}

/** ASCII lowercase (https://infra.spec.whatwg.org/#ascii-lowercase): A-Z become a-z, nothing else changes. */
export function asciiLowercase(text: string): string {
  const length = text.length;
  let index = 0;
  while (index < length && !isUpperAlpha(StringPrototypeCharCodeAt(text, index))) index++;
  if (index === length) return text;
  let lowered = StringPrototypeSlice(text, 0, index);
  for (; index < length; index++) {
    const unit = StringPrototypeCharCodeAt(text, index);
    lowered += isUpperAlpha(unit) ? StringFromCharCode(unit + 0x20) : (text[index] as string);
  }
  return lowered;
}

/** HTTP whitespace (https://fetch.spec.whatwg.org/#http-whitespace): tab, LF, CR, space. */
export function isHttpWhitespace(unit: number): boolean {
  return unit === 0x09 || unit === 0x0a || unit === 0x0d || unit === 0x20;
}

/** ASCII whitespace (https://infra.spec.whatwg.org/#ascii-whitespace): HTTP whitespace and form feed. */
export function isAsciiWhitespace(unit: number): boolean {
  return isHttpWhitespace(unit) || unit === 0x0c;
}

/** `text` without the code units `isSpace` accepts at its start (when `leading`) and at its end. */
function trim(text: string, isSpace: (unit: number) => boolean, leading: boolean): string {
  let start = 0;
  let end = text.length;
  if (leading) while (start < end && isSpace(StringPrototypeCharCodeAt(text, start))) start++;
  while (end > start && isSpace(StringPrototypeCharCodeAt(text, end - 1))) end--;
  return start === 0 && end === text.length ? text : StringPrototypeSlice(text, start, end);
}

/** `text` without its leading and trailing HTTP whitespace. */
export function trimHttpWhitespace(text: string): string {
  return trim(text, isHttpWhitespace, true);
}

/** `text` without its trailing HTTP whitespace. */
export function trimTrailingHttpWhitespace(text: string): string {
  return trim(text, isHttpWhitespace, false);
}

/** Strip leading and trailing ASCII whitespace (https://infra.spec.whatwg.org/#strip-leading-and-trailing-ascii-whitespace). */
export function trimAsciiWhitespace(text: string): string {
  return trim(text, isAsciiWhitespace, true);
}
