/**
 * The decoders of the encodings other than UTF-8: UTF-16LE and UTF-16BE (./utf16.ts), the legacy
 * single-byte encodings and x-user-defined (./single-byte.ts). A runtime piece (../pieces.ts), kept
 * out of the startup snapshot: the first decoder for such an encoding loads it (./decode-state.ts),
 * and a single-byte one loads the tables piece as well (./single-byte-indexes.ts). Every module it
 * imports but those two is the snapshot's (scripts/build-runtime-piece.mjs).
 */
import type { Decoder } from './decoder.ts';
import { SingleByteDecoder, xUserDefinedIndex } from './single-byte.ts';
import { isSingleByteEncoding, singleByteIndex } from './single-byte-indexes.ts';
import { Utf16Decoder } from './utf16.ts';

/** A new decoder for `encoding`, or undefined when it is not one of these. */
export function newLegacyDecoder(encoding: string): Decoder | undefined {
  if (encoding === 'utf-16le') return new Utf16Decoder(false);
  if (encoding === 'utf-16be') return new Utf16Decoder(true);
  if (encoding === 'x-user-defined') return new SingleByteDecoder(xUserDefinedIndex());
  if (isSingleByteEncoding(encoding)) return new SingleByteDecoder(singleByteIndex(encoding) as Uint16Array);
  return undefined;
}
