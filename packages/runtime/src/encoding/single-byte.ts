/**
 * The single-byte decoder (https://encoding.spec.whatwg.org/#single-byte-decoder) over an index,
 * and x-user-defined (https://encoding.spec.whatwg.org/#x-user-defined-decoder), which maps the
 * bytes 0x80 to 0xFF onto U+F780 to U+F7FF. Neither keeps state between calls.
 */
import { TypedArrayPrototypeGetByteLength, Uint16ArrayCtor } from '../primordials.ts';
import { type Decoder, decodeFailure, UNIT_CHUNK, unitBuffer, unitsToString } from './decoder.ts';

/** Marks a byte the index leaves unmapped. */
const UNMAPPED = 0xffff;

export class SingleByteDecoder implements Decoder {
  readonly #index: Uint16Array;

  constructor(index: Uint16Array) {
    this.#index = index;
  }

  decode(bytes: Uint8Array, _flush: boolean, fatal: boolean): string {
    const index = this.#index;
    const length = TypedArrayPrototypeGetByteLength(bytes);
    const units = unitBuffer();
    let count = 0;
    let output = '';
    for (let position = 0; position < length; position++) {
      if (count >= UNIT_CHUNK) {
        output += unitsToString(units, count);
        count = 0;
      }
      const byte = bytes[position] as number;
      // 2. An ASCII byte is its own code point.
      if (byte < 0x80) {
        units[count++] = byte;
        continue;
      }
      // 3-5. Otherwise the index pointer byte - 0x80; a null code point is an error.
      const codePoint = index[byte - 0x80] as number;
      if (codePoint === UNMAPPED) {
        if (fatal) throw decodeFailure();
        units[count++] = 0xfffd;
        continue;
      }
      units[count++] = codePoint;
    }
    return output + unitsToString(units, count);
  }
}

let xUserDefined: Uint16Array | undefined;

/** x-user-defined as a single-byte index: byte 0x80 + n is U+F780 + n. */
export function xUserDefinedIndex(): Uint16Array {
  if (xUserDefined === undefined) {
    xUserDefined = new Uint16ArrayCtor(128);
    for (let pointer = 0; pointer < 128; pointer++) xUserDefined[pointer] = 0xf780 + pointer;
  }
  return xUserDefined;
}
