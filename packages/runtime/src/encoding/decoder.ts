/**
 * What every decoder shares: the interface TextDecoder and TextDecoderStream drive, the error a
 * fatal decoder throws, and the buffer of UTF-16 code units decoders write before turning them
 * into a string a chunk at a time.
 */
import {
  ReflectApply,
  StringFromCharCode,
  TypedArrayPrototypeSubarray,
  TypeErrorCtor,
  Uint16ArrayCtor,
} from '../primordials.ts';

/**
 * A decoder of one encoding (https://encoding.spec.whatwg.org/#decoder), holding its state across
 * calls. `decode` runs the decoder's handler over `bytes` and, with `flush`, over end-of-queue; in
 * fatal mode an error throws decodeFailure() and leaves the decoder in its initial state,
 * otherwise it becomes U+FFFD.
 */
export interface Decoder {
  decode(bytes: Uint8Array, flush: boolean, fatal: boolean): string;
}

/** workerd's text for a fatal decoder's error. */
export const DECODE_FAILED_MESSAGE = 'Failed to decode input.';

export function decodeFailure(): TypeError {
  return new TypeErrorCtor(DECODE_FAILED_MESSAGE);
}

/** Code units turned into a string at once: small enough for one apply, large enough to be cheap. */
export const UNIT_CHUNK = 0x2000;

let sharedUnits: Uint16Array | undefined;

/**
 * The buffer for the code units a decode produces before its next flush: a handler
 * step writes at most two units and the end of the queue one more, past UNIT_CHUNK. One buffer
 * serves every decode in the isolate (a decode runs to its end without calling anything that
 * could decode in turn), so a short text costs no allocation but its string.
 */
export function unitBuffer(): Uint16Array {
  sharedUnits ??= new Uint16ArrayCtor(UNIT_CHUNK + 4);
  return sharedUnits;
}

export function unitsToString(units: Uint16Array, count: number): string {
  if (count === 0) return '';
  const view = TypedArrayPrototypeSubarray(units as unknown as Uint8Array, 0, count);
  return ReflectApply(StringFromCharCode, undefined, view) as string;
}
