/**
 * UTF-8 (https://encoding.spec.whatwg.org/#utf-8): the encoder behind TextEncoder and
 * TextEncoderStream, and the decoder behind TextDecoder's default encoding. The URL parser, bodies,
 * blobs and forms use the same functions, so no two parts of the runtime disagree about a byte.
 */
import {
  ReflectApply,
  StringFromCharCode,
  StringPrototypeCharCodeAt,
  TypedArrayPrototypeGetBuffer,
  TypedArrayPrototypeGetByteLength,
  TypedArrayPrototypeGetByteOffset,
  Uint8ArrayCtor,
} from '../primordials.ts';
import { type Decoder, decodeFailure, UNIT_CHUNK, unitBuffer, unitsToString } from './decoder.ts';

/**
 * UTF-8 encode (https://encoding.spec.whatwg.org/#utf-8-encode) a string. A lone surrogate encodes
 * as U+FFFD, which is what converting the string to a USVString first would give.
 */
export function utf8Encode(input: string): Uint8Array {
  const length = input.length;
  // Measure first, so the result is allocated once at its final size.
  let size = 0;
  for (let index = 0; index < length; index++) {
    const unit = StringPrototypeCharCodeAt(input, index);
    if (unit < 0x80) size += 1;
    else if (unit < 0x800) size += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && isTrail(input, index + 1)) {
      size += 4;
      index++;
    } else size += 3;
  }
  const bytes = new Uint8ArrayCtor(size);
  let written = 0;
  for (let index = 0; index < length; index++) {
    let unit = StringPrototypeCharCodeAt(input, index);
    if (unit < 0x80) {
      bytes[written++] = unit;
      continue;
    }
    if (unit < 0x800) {
      bytes[written++] = 0xc0 | (unit >> 6);
      bytes[written++] = 0x80 | (unit & 0x3f);
      continue;
    }
    if (unit >= 0xd800 && unit <= 0xdfff) {
      if (unit <= 0xdbff && isTrail(input, index + 1)) {
        const point =
          0x10000 + ((unit - 0xd800) << 10) + (StringPrototypeCharCodeAt(input, ++index) - 0xdc00);
        bytes[written++] = 0xf0 | (point >> 18);
        bytes[written++] = 0x80 | ((point >> 12) & 0x3f);
        bytes[written++] = 0x80 | ((point >> 6) & 0x3f);
        bytes[written++] = 0x80 | (point & 0x3f);
        continue;
      }
      unit = 0xfffd;
    }
    bytes[written++] = 0xe0 | (unit >> 12);
    bytes[written++] = 0x80 | ((unit >> 6) & 0x3f);
    bytes[written++] = 0x80 | (unit & 0x3f);
  }
  return bytes;
}

function isTrail(input: string, index: number): boolean {
  if (index >= input.length) return false;
  const unit = StringPrototypeCharCodeAt(input, index);
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/**
 * The encodeInto() method steps' loop (https://encoding.spec.whatwg.org/#dom-textencoder-encodeinto):
 * encode whole scalar values into `destination` while they fit, counting the code units read and
 * the bytes written.
 */
export function utf8EncodeInto(source: string, destination: Uint8Array): { read: number; written: number } {
  const capacity = TypedArrayPrototypeGetByteLength(destination);
  const length = source.length;
  let read = 0;
  let written = 0;
  while (read < length) {
    let unit = StringPrototypeCharCodeAt(source, read);
    if (unit < 0x80) {
      if (written >= capacity) break;
      destination[written++] = unit;
      read++;
      continue;
    }
    if (unit < 0x800) {
      if (written + 2 > capacity) break;
      destination[written++] = 0xc0 | (unit >> 6);
      destination[written++] = 0x80 | (unit & 0x3f);
      read++;
      continue;
    }
    if (unit >= 0xd800 && unit <= 0xdfff) {
      if (unit <= 0xdbff && isTrail(source, read + 1)) {
        if (written + 4 > capacity) break;
        const point =
          0x10000 + ((unit - 0xd800) << 10) + (StringPrototypeCharCodeAt(source, read + 1) - 0xdc00);
        destination[written++] = 0xf0 | (point >> 18);
        destination[written++] = 0x80 | ((point >> 12) & 0x3f);
        destination[written++] = 0x80 | ((point >> 6) & 0x3f);
        destination[written++] = 0x80 | (point & 0x3f);
        read += 2;
        continue;
      }
      // A lone surrogate: the USVString conversion made it U+FFFD.
      unit = 0xfffd;
    }
    if (written + 3 > capacity) break;
    destination[written++] = 0xe0 | (unit >> 12);
    destination[written++] = 0x80 | ((unit >> 6) & 0x3f);
    destination[written++] = 0x80 | (unit & 0x3f);
    read++;
  }
  return { read, written };
}

/**
 * The UTF-8 decoder (https://encoding.spec.whatwg.org/#utf-8-decoder), with its state (bytes
 * needed, bytes seen, code point, lower and upper boundary) kept across calls for streaming. The
 * handler runs once per byte; a byte that ends a sequence early is processed again as the start of
 * the next one, as the standard's "restore byte to ioQueue" does.
 */
export class Utf8Decoder implements Decoder {
  #needed = 0;
  #seen = 0;
  #codePoint = 0;
  #lower = 0x80;
  #upper = 0xbf;

  decode(bytes: Uint8Array, flush: boolean, fatal: boolean): string {
    let needed = this.#needed;
    let seen = this.#seen;
    let codePoint = this.#codePoint;
    let lower = this.#lower;
    let upper = this.#upper;
    const length = TypedArrayPrototypeGetByteLength(bytes);
    const units = unitBuffer();
    let count = 0;
    let output = '';
    let index = 0;
    while (index < length) {
      if (count >= UNIT_CHUNK) {
        output += unitsToString(units, count);
        count = 0;
      }
      const byte = bytes[index] as number;
      if (needed === 0) {
        index++;
        if (byte < 0x80) {
          units[count++] = byte;
        } else if (byte >= 0xc2 && byte <= 0xdf) {
          needed = 1;
          codePoint = byte & 0x1f;
        } else if (byte >= 0xe0 && byte <= 0xef) {
          if (byte === 0xe0) lower = 0xa0;
          else if (byte === 0xed) upper = 0x9f;
          needed = 2;
          codePoint = byte & 0xf;
        } else if (byte >= 0xf0 && byte <= 0xf4) {
          if (byte === 0xf0) lower = 0x90;
          else if (byte === 0xf4) upper = 0x8f;
          needed = 3;
          codePoint = byte & 0x7;
        } else {
          if (fatal) throw this.#fail();
          units[count++] = 0xfffd;
        }
        continue;
      }
      if (byte < lower || byte > upper) {
        // The sequence ended early: error, and the byte is processed again (index stays).
        needed = 0;
        seen = 0;
        codePoint = 0;
        lower = 0x80;
        upper = 0xbf;
        if (fatal) throw this.#fail();
        units[count++] = 0xfffd;
        continue;
      }
      index++;
      lower = 0x80;
      upper = 0xbf;
      codePoint = (codePoint << 6) | (byte & 0x3f);
      if (++seen !== needed) continue;
      if (codePoint > 0xffff) {
        codePoint -= 0x10000;
        units[count++] = 0xd800 | (codePoint >> 10);
        units[count++] = 0xdc00 | (codePoint & 0x3ff);
      } else {
        units[count++] = codePoint;
      }
      needed = 0;
      seen = 0;
      codePoint = 0;
    }
    if (flush && needed !== 0) {
      // End of queue inside a sequence: error.
      needed = 0;
      seen = 0;
      codePoint = 0;
      lower = 0x80;
      upper = 0xbf;
      if (fatal) throw this.#fail();
      units[count++] = 0xfffd;
    }
    this.#needed = needed;
    this.#seen = seen;
    this.#codePoint = codePoint;
    this.#lower = lower;
    this.#upper = upper;
    return output + unitsToString(units, count);
  }

  /** After a fatal error the decoder starts over: the standard's next decode() makes a new one. */
  #fail(): TypeError {
    this.#needed = 0;
    this.#seen = 0;
    this.#codePoint = 0;
    this.#lower = 0x80;
    this.#upper = 0xbf;
    return decodeFailure();
  }
}

/** UTF-8 decode without BOM (https://encoding.spec.whatwg.org/#utf-8-decode-without-bom). */
export function utf8DecodeWithoutBOM(bytes: Uint8Array): string {
  const length = TypedArrayPrototypeGetByteLength(bytes);
  // ASCII, the usual text of a body, is its own code units: no decoder to make, nothing to copy.
  if (length <= UNIT_CHUNK && isAscii(bytes, length))
    return ReflectApply(StringFromCharCode, undefined, bytes);
  return new Utf8Decoder().decode(bytes, true, false);
}

function isAscii(bytes: Uint8Array, length: number): boolean {
  for (let index = 0; index < length; index++) if ((bytes[index] as number) >= 0x80) return false;
  return true;
}

/** UTF-8 decode (https://encoding.spec.whatwg.org/#utf-8-decode): a leading BOM is dropped. What the Body mixin's text() does. */
export function utf8Decode(bytes: Uint8Array): string {
  const length = TypedArrayPrototypeGetByteLength(bytes);
  const bom = length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  if (!bom) return utf8DecodeWithoutBOM(bytes);
  const offset = TypedArrayPrototypeGetByteOffset(bytes) + 3;
  return utf8DecodeWithoutBOM(new Uint8ArrayCtor(TypedArrayPrototypeGetBuffer(bytes), offset, length - 3));
}
