/** TextDecoder (https://encoding.spec.whatwg.org/#interface-textdecoder). */
import { Uint8ArrayCtor } from '../primordials.ts';
import {
  argumentTypeError,
  constructorArgumentTypeError,
  defineWorkerdInterface,
  illegalInvocation,
  toDOMString,
} from '../webidl.ts';
import {
  allowSharedBufferSourceBytes,
  DecodeState,
  encodingForDecoder,
  toDecoderOptions,
  toStreamOption,
} from './decode-state.ts';

const NO_BYTES: Uint8Array = new Uint8ArrayCtor(0);

export class TextDecoder {
  readonly #state: DecodeState;
  /** "do not flush": the previous decode() was a streaming one, so the decoder keeps its state. */
  #doNotFlush = false;

  constructor(label: unknown = undefined, options: unknown = undefined) {
    // WebIDL: optional DOMString label = "utf-8", optional TextDecoderOptions options = {}.
    const labelString = label === undefined ? 'utf-8' : toDOMString(label);
    const { fatal, ignoreBOM } = toDecoderOptions(options, () =>
      constructorArgumentTypeError('TextDecoder', 2, 'ConstructorOptions'),
    );
    // 1-2. Get an encoding from label; failure or replacement is a RangeError.
    const encoding = encodingForDecoder(labelString);
    // 3-5. This's encoding, error mode and ignore BOM.
    this.#state = new DecodeState(encoding, fatal, ignoreBOM);
  }

  /** https://encoding.spec.whatwg.org/#dom-textdecoder-decode */
  decode(input: unknown = undefined, options: unknown = undefined): string {
    if (!(#state in this)) throw illegalInvocation();
    let bytes = NO_BYTES;
    if (input !== undefined) {
      const view = allowSharedBufferSourceBytes(input);
      // workerd names the type 'Array' here.
      if (view === undefined) throw argumentTypeError('decode', 'TextDecoder', 1, 'Array');
      bytes = view;
    }
    const stream = toStreamOption(options, () =>
      argumentTypeError('decode', 'TextDecoder', 2, 'DecodeOptions'),
    );
    const state = this.#state;
    // 1. If this's do not flush is false, then set this's decoder to a new instance of this's
    //    encoding's decoder, this's I/O queue to « end-of-queue », and this's BOM seen to false.
    if (!this.#doNotFlush) state.reset();
    // 2. Set this's do not flush to options["stream"].
    this.#doNotFlush = stream;
    // 3-5. Push input to the I/O queue, process it (and end-of-queue unless streaming), and
    //      serialize the output; a fatal error throws a TypeError.
    return state.decode(bytes, !stream);
  }

  get encoding(): string {
    if (!(#state in this)) throw illegalInvocation();
    return this.#state.encoding;
  }

  get fatal(): boolean {
    if (!(#state in this)) throw illegalInvocation();
    return this.#state.fatal;
  }

  get ignoreBOM(): boolean {
    if (!(#state in this)) throw illegalInvocation();
    return this.#state.ignoreBOM;
  }
}

defineWorkerdInterface(TextDecoder);
