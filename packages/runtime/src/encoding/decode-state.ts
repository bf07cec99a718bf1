/**
 * The state TextDecoder and TextDecoderStream share (https://encoding.spec.whatwg.org/#textdecodercommon):
 * the encoding, its decoder, the error mode and the BOM flags, and the conversions their
 * constructors and decode() make of their arguments.
 */

import { loadPiece } from '../pieces.ts';
import {
  ArrayBufferPrototypeGetByteLength,
  DataViewPrototypeGetBuffer,
  DataViewPrototypeGetByteLength,
  DataViewPrototypeGetByteOffset,
  RangeErrorCtor,
  ReflectGetOwnPropertyDescriptor,
  StringPrototypeCharCodeAt,
  StringPrototypeSlice,
  TypedArrayPrototypeGetBuffer,
  TypedArrayPrototypeGetByteLength,
  TypedArrayPrototypeGetByteOffset,
  TypedArrayPrototypeGetSymbolToStringTag,
  Uint8ArrayCtor,
  uncurryThis,
} from '../primordials.ts';
import { toBoolean } from '../webidl.ts';
import type { Decoder } from './decoder.ts';
import { getEncoding, UNDECODED_ENCODINGS } from './encodings.ts';
import { PIECE_IMPORTS } from './generated/legacy-decoders-piece-imports.generated.ts';
import { Utf8Decoder } from './utf8.ts';

/** workerd's text for a label that names no encoding (the quotes are part of it). */
export function invalidEncodingMessage(label: string): string {
  return `"${label}" is not a valid encoding.`;
}

export function undecodedEncodingMessage(label: string, encoding: string): string {
  return `"${label}" names the encoding ${encoding}, which this runtime does not decode.`;
}

/**
 * The constructor steps' steps 1 and 2 (https://encoding.spec.whatwg.org/#dom-textdecoder): the
 * encoding `label` selects, or the RangeError for a label that selects none or selects
 * `replacement`, and for an encoding this runtime has no decoder for.
 */
export function encodingForDecoder(label: string): string {
  const encoding = getEncoding(label);
  if (encoding === undefined || encoding === 'replacement') {
    throw new RangeErrorCtor(invalidEncodingMessage(label));
  }
  for (let index = 0; index < UNDECODED_ENCODINGS.length; index++) {
    if (encoding === UNDECODED_ENCODINGS[index])
      throw new RangeErrorCtor(undecodedEncodingMessage(label, encoding));
  }
  return encoding;
}

/** UTF-8's decoder is the snapshot's; every other is in the legacyDecoders piece (./legacy-decoders.ts). */
function newDecoder(encoding: string): Decoder {
  if (encoding === 'utf-8') return new Utf8Decoder();
  const decoder = loadPiece('legacyDecoders', PIECE_IMPORTS).newLegacyDecoder(encoding);
  // encodingForDecoder let no other encoding through.
  if (decoder === undefined) throw new RangeErrorCtor(invalidEncodingMessage(encoding));
  return decoder;
}

/** A decoder with the BOM handling of "serialize I/O queue". */
export class DecodeState {
  readonly #encoding: string;
  readonly #fatal: boolean;
  readonly #ignoreBOM: boolean;
  /** Whether a leading U+FEFF is dropped: only for UTF-8 and UTF-16, and not when ignoreBOM. */
  readonly #stripsBOM: boolean;
  #decoder: Decoder;
  #bomSeen = false;

  constructor(encoding: string, fatal: boolean, ignoreBOM: boolean) {
    this.#encoding = encoding;
    this.#fatal = fatal;
    this.#ignoreBOM = ignoreBOM;
    this.#stripsBOM =
      !ignoreBOM && (encoding === 'utf-8' || encoding === 'utf-16le' || encoding === 'utf-16be');
    this.#decoder = newDecoder(encoding);
  }

  get encoding(): string {
    return this.#encoding;
  }

  get fatal(): boolean {
    return this.#fatal;
  }

  get ignoreBOM(): boolean {
    return this.#ignoreBOM;
  }

  /** A new instance of the encoding's decoder, and BOM seen false. */
  reset(): void {
    this.#decoder = newDecoder(this.#encoding);
    this.#bomSeen = false;
  }

  /**
   * Processes `bytes` (and, with `flush`, end-of-queue) and serializes the output
   * (https://encoding.spec.whatwg.org/#concept-td-serialize): the first scalar value serialized
   * sets BOM seen, and is dropped when it is U+FEFF and the encoding strips BOMs.
   */
  decode(bytes: Uint8Array, flush: boolean): string {
    let output: string;
    try {
      output = this.#decoder.decode(bytes, flush, this.#fatal);
    } catch (error) {
      this.#bomSeen = false;
      throw error;
    }
    if (this.#stripsBOM && !this.#bomSeen && output.length > 0) {
      this.#bomSeen = true;
      if (StringPrototypeCharCodeAt(output, 0) === 0xfeff) output = StringPrototypeSlice(output, 1);
    }
    return output;
  }
}

/** The members of TextDecoderOptions (https://encoding.spec.whatwg.org/#textdecoderoptions). */
export interface DecoderOptions {
  fatal: boolean;
  ignoreBOM: boolean;
}

/**
 * A WebIDL dictionary: undefined and null give the defaults, any other non-object is a TypeError,
 * and members are read in lexicographic order.
 */
export function toDecoderOptions(value: unknown, onInvalid: () => TypeError): DecoderOptions {
  if (value === undefined || value === null) return { fatal: false, ignoreBOM: false };
  if (typeof value !== 'object' && typeof value !== 'function') throw onInvalid();
  const { fatal } = value as { fatal?: unknown };
  const { ignoreBOM } = value as { ignoreBOM?: unknown };
  return {
    fatal: fatal === undefined ? false : toBoolean(fatal),
    ignoreBOM: ignoreBOM === undefined ? false : toBoolean(ignoreBOM),
  };
}

/** TextDecodeOptions's one member, `stream` (https://encoding.spec.whatwg.org/#textdecodeoptions). */
export function toStreamOption(value: unknown, onInvalid: () => TypeError): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'object' && typeof value !== 'function') throw onInvalid();
  const { stream } = value as { stream?: unknown };
  return stream === undefined ? false : toBoolean(stream);
}

const EMPTY = new Uint8ArrayCtor(0);

/** SharedArrayBuffer's byteLength getter, found on first need: it does not exist in the snapshot. */
let sharedByteLength: ((value: unknown) => number) | undefined;

function sharedArrayBufferByteLength(value: object): number | undefined {
  if (sharedByteLength === undefined) {
    const shared = (globalThis as { SharedArrayBuffer?: { prototype: object } }).SharedArrayBuffer;
    const getter =
      shared === undefined ? undefined : ReflectGetOwnPropertyDescriptor(shared.prototype, 'byteLength')?.get;
    if (getter === undefined) return undefined;
    sharedByteLength = uncurryThis(getter as (this: unknown) => number) as (value: unknown) => number;
  }
  try {
    return sharedByteLength(value);
  } catch {
    return undefined;
  }
}

/**
 * An AllowSharedBufferSource (https://webidl.spec.whatwg.org/#AllowSharedBufferSource): a view of
 * the bytes an ArrayBuffer, SharedArrayBuffer, typed array or DataView covers (none once
 * detached), or undefined for any other value. The view is read when decoding starts, after every
 * argument was converted, which is when the standard copies the bytes.
 */
export function allowSharedBufferSourceBytes(value: unknown): Uint8Array | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (TypedArrayPrototypeGetSymbolToStringTag(value) !== undefined) {
    const length = TypedArrayPrototypeGetByteLength(value);
    if (length === 0) return EMPTY;
    const buffer = TypedArrayPrototypeGetBuffer(value) as ArrayBuffer;
    return new Uint8ArrayCtor(buffer, TypedArrayPrototypeGetByteOffset(value), length);
  }
  let buffer: ArrayBuffer | undefined;
  try {
    buffer = DataViewPrototypeGetBuffer(value) as ArrayBuffer;
  } catch {}
  if (buffer !== undefined) {
    let length = 0;
    try {
      length = DataViewPrototypeGetByteLength(value);
    } catch {
      return EMPTY; // detached
    }
    if (length === 0) return EMPTY;
    return new Uint8ArrayCtor(buffer, DataViewPrototypeGetByteOffset(value), length);
  }
  let length: number | undefined;
  try {
    length = ArrayBufferPrototypeGetByteLength(value);
  } catch {
    length = sharedArrayBufferByteLength(value);
  }
  if (length === undefined) return undefined;
  if (length === 0) return EMPTY;
  return new Uint8ArrayCtor(value as ArrayBuffer);
}
