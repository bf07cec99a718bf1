/**
 * The indexes of the legacy single-byte encodings, parsed from the text of
 * ./single-byte-tables.ts, a runtime piece (../pieces.ts) the first legacy decoder loads.
 */
import { loadPiece } from '../pieces.ts';
import { ObjectCreate, ObjectHasOwn, StringPrototypeCharCodeAt, Uint16ArrayCtor } from '../primordials.ts';
import { SINGLE_BYTE_NAMES } from './single-byte-names.ts';

const NAMES = ObjectCreate(null) as Record<string, true>;
for (const name of SINGLE_BYTE_NAMES) NAMES[name] = true;

/** Parsed indexes, by encoding name, filled on first use. */
const parsed = ObjectCreate(null) as Record<string, Uint16Array>;

/** The index of a single-byte encoding as 128 code points (0xFFFF: unmapped), or undefined. */
export function singleByteIndex(encoding: string): Uint16Array | undefined {
  const name = encoding === 'iso-8859-8-i' ? 'iso-8859-8' : encoding;
  if (ObjectHasOwn(parsed, name)) return parsed[name];
  if (!ObjectHasOwn(NAMES, name)) return undefined;
  const text = loadPiece('singleByteTables')[name] as string;
  const index = new Uint16ArrayCtor(128);
  for (let pointer = 0; pointer < 128; pointer++) {
    let codePoint = 0;
    for (let digit = 0; digit < 4; digit++) {
      const unit = StringPrototypeCharCodeAt(text, pointer * 4 + digit);
      codePoint = (codePoint << 4) | (unit <= 0x39 ? unit - 0x30 : unit - 0x57);
    }
    index[pointer] = codePoint;
  }
  parsed[name] = index;
  return index;
}

/** Whether `encoding` is one of the legacy single-byte encodings. */
export function isSingleByteEncoding(encoding: string): boolean {
  return encoding === 'iso-8859-8-i' || ObjectHasOwn(NAMES, encoding);
}
