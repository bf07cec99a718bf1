/**
 * What whatwg-url's parser imports from outside itself, supplied by the runtime instead
 * (scripts/build-whatwg-url.mjs points the imports here):
 *
 *   - its lib/encoding.js would build a TextEncoder and a TextDecoder when it loads, before the
 *     runtime has installed either; the runtime's UTF-8 functions are the same algorithms;
 *   - @exodus/bytes/whatwg.js would bring every legacy encoder for percent-encoding a query in a
 *     document's encoding; the URL API always parses as UTF-8, so only UTF-8 is kept;
 *   - tr46, which only a host that is not ASCII needs, is a runtime piece (../pieces.ts), kept out
 *     of the snapshot and compiled into the isolate by the first such host.
 */

import { utf8DecodeWithoutBOM, utf8Encode } from '../encoding/utf8.ts';
import { loadPiece, type Pieces } from '../pieces.ts';
import {
  RangeErrorCtor,
  StringFromCharCode,
  StringPrototypeIndexOf,
  TypedArrayPrototypeGetByteLength,
} from '../primordials.ts';

export { utf8DecodeWithoutBOM, utf8Encode };

/** tr46's exports, for the parser's domain-to-ASCII of a host that is not ASCII. */
export const loadTr46 = (): Pieces['tr46'] => loadPiece('tr46');

const HEX = '0123456789ABCDEF';

/**
 * Percent-encode after encoding (https://url.spec.whatwg.org/#string-percent-encode-after-encoding)
 * for UTF-8, in @exodus/bytes's form: `percentEncodeSet` lists the code points encoded on top of
 * the C0 control percent-encode set (every byte below 0x20 or above 0x7E).
 */
export function percentEncodeAfterEncoding(
  encoding: string,
  input: string,
  percentEncodeSet: string,
  spaceAsPlus = false,
): string {
  if (encoding !== 'utf-8') throw new RangeErrorCtor(`The URL parser encodes only UTF-8, not ${encoding}.`);
  const bytes = utf8Encode(input);
  const length = TypedArrayPrototypeGetByteLength(bytes);
  let output = '';
  for (let index = 0; index < length; index++) {
    const byte = bytes[index] as number;
    if (spaceAsPlus && byte === 0x20) {
      output += '+';
      continue;
    }
    const character = StringFromCharCode(byte);
    if (byte < 0x20 || byte > 0x7e || StringPrototypeIndexOf(percentEncodeSet, character) !== -1) {
      output += `%${HEX[byte >> 4]}${HEX[byte & 0xf]}`;
    } else {
      output += character;
    }
  }
  return output;
}
