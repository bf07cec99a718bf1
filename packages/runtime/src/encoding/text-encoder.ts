/** TextEncoder (https://encoding.spec.whatwg.org/#interface-textencoder): UTF-8 only. */
import { TypedArrayPrototypeGetSymbolToStringTag } from '../primordials.ts';
import { argumentTypeError, defineWorkerdInterface, illegalInvocation, toUSVString } from '../webidl.ts';
import { utf8Encode, utf8EncodeInto } from './utf8.ts';

export class TextEncoder {
  /** Only a brand: a TextEncoder has no state. */
  readonly #brand = true;

  /** https://encoding.spec.whatwg.org/#dom-textencoder-encode */
  encode(input: unknown = undefined): Uint8Array {
    if (!(#brand in this)) throw illegalInvocation();
    // optional USVString input = "": UTF-8 encode it.
    return utf8Encode(input === undefined ? '' : toUSVString(input));
  }

  /** https://encoding.spec.whatwg.org/#dom-textencoder-encodeinto */
  encodeInto(source: unknown, destination: unknown): { read: number; written: number } {
    if (!(#brand in this)) throw illegalInvocation();
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments; workerd's texts name the missing one.
    if (arguments.length < 1) throw argumentTypeError('encodeInto', 'TextEncoder', 1, 'String');
    const text = toUSVString(source);
    if (TypedArrayPrototypeGetSymbolToStringTag(destination) !== 'Uint8Array') {
      throw argumentTypeError('encodeInto', 'TextEncoder', 2, 'Uint8Array');
    }
    return utf8EncodeInto(text, destination as Uint8Array);
  }

  get encoding(): string {
    if (!(#brand in this)) throw illegalInvocation();
    // The encoding getter steps are to return "utf-8".
    return 'utf-8';
  }
}

defineWorkerdInterface(TextEncoder);
