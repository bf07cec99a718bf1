/**
 * UTF-16BE and UTF-16LE decoding (https://encoding.spec.whatwg.org/#shared-utf-16-decoder). There is
 * no UTF-16 encoder: TextEncoder only encodes UTF-8.
 */
import { TypedArrayPrototypeGetByteLength } from '../primordials.ts';
import { type Decoder, decodeFailure, UNIT_CHUNK, unitBuffer, unitsToString } from './decoder.ts';

/** The shared UTF-16 decoder, with its leading byte and leading surrogate (-1 for null). */
export class Utf16Decoder implements Decoder {
  readonly #bigEndian: boolean;
  #leadByte = -1;
  #leadSurrogate = -1;

  constructor(bigEndian: boolean) {
    this.#bigEndian = bigEndian;
  }

  decode(bytes: Uint8Array, flush: boolean, fatal: boolean): string {
    const bigEndian = this.#bigEndian;
    let leadByte = this.#leadByte;
    let leadSurrogate = this.#leadSurrogate;
    const length = TypedArrayPrototypeGetByteLength(bytes);
    const units = unitBuffer();
    let count = 0;
    let output = '';
    for (let index = 0; index < length; index++) {
      if (count >= UNIT_CHUNK) {
        output += unitsToString(units, count);
        count = 0;
      }
      const byte = bytes[index] as number;
      // 3. If leading byte is null, set it to byte and continue.
      if (leadByte === -1) {
        leadByte = byte;
        continue;
      }
      // 4-5. The code unit, in this decoder's byte order.
      const unit = bigEndian ? (leadByte << 8) | byte : (byte << 8) | leadByte;
      leadByte = -1;
      // 6. After a leading surrogate, a trailing one completes the pair; anything else is an
      //    error, and its bytes are restored to the queue, which processes the same code unit again.
      if (leadSurrogate !== -1) {
        const lead = leadSurrogate;
        leadSurrogate = -1;
        if (unit >= 0xdc00 && unit <= 0xdfff) {
          units[count++] = lead;
          units[count++] = unit;
          continue;
        }
        if (fatal) throw this.#fail();
        units[count++] = 0xfffd;
      }
      // 7. A leading surrogate waits for its pair.
      if (unit >= 0xd800 && unit <= 0xdbff) {
        leadSurrogate = unit;
        continue;
      }
      // 8. A trailing surrogate alone is an error.
      if (unit >= 0xdc00 && unit <= 0xdfff) {
        if (fatal) throw this.#fail();
        units[count++] = 0xfffd;
        continue;
      }
      // 9. Any other code unit is the code point.
      units[count++] = unit;
    }
    // 1. End of queue with a leading byte or surrogate pending: one error.
    if (flush && (leadByte !== -1 || leadSurrogate !== -1)) {
      leadByte = -1;
      leadSurrogate = -1;
      if (fatal) throw this.#fail();
      units[count++] = 0xfffd;
    }
    this.#leadByte = leadByte;
    this.#leadSurrogate = leadSurrogate;
    return output + unitsToString(units, count);
  }

  #fail(): TypeError {
    this.#leadByte = -1;
    this.#leadSurrogate = -1;
    return decodeFailure();
  }
}
