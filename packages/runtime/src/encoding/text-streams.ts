/**
 * TextEncoderStream and TextDecoderStream (https://encoding.spec.whatwg.org/#interface-textencoderstream,
 * https://encoding.spec.whatwg.org/#interface-textdecoderstream), over the runtime's TransformStream.
 * As in workerd, each is a subclass of TransformStream: readable and writable come from
 * TransformStream.prototype, and the prototype adds only the encoding attributes.
 */
import {
  ObjectSetPrototypeOf,
  StringFromCharCode,
  StringPrototypeCharCodeAt,
  StringPrototypeSlice,
  TypeErrorCtor,
  Uint8ArrayCtor,
} from '../primordials.ts';
import { TransformStream } from '../streams/index.ts';
import {
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
} from './decode-state.ts';
import { utf8Encode } from './utf8.ts';

/** workerd's text for a chunk written to a TextDecoderStream that is not a BufferSource. */
export const NOT_BUFFER_SOURCE_MESSAGE =
  'This TransformStream is being used as a byte stream, but received a value that is not a BufferSource.';

const NO_BYTES = new Uint8ArrayCtor(0);
/** U+FFFD in UTF-8: what a lone surrogate left at the end of the stream becomes. */
const REPLACEMENT_CHARACTER_BYTES = new Uint8ArrayCtor([0xef, 0xbf, 0xbd]);

interface Controller<O> {
  enqueue(chunk: O): void;
}

/** A transformer with no prototype, so the stream reads nothing user code can plant. */
function transformer<I, O>(
  transform: (chunk: I, controller: Controller<O>) => void,
  flush: (controller: Controller<O>) => void,
): { transform: typeof transform; flush: typeof flush } {
  return ObjectSetPrototypeOf({ transform, flush }, null);
}

export class TextEncoderStream extends TransformStream<unknown, Uint8Array> {
  readonly #brand = true;

  constructor() {
    // The encoder's leading surrogate, carried from one chunk to the next (-1: none).
    let leadingSurrogate = -1;
    super(
      transformer<unknown, Uint8Array>(
        // Encode and enqueue a chunk (https://encoding.spec.whatwg.org/#encode-and-enqueue-a-chunk).
        (chunk, controller) => {
          // 1. Let input be the result of converting chunk to a DOMString.
          let input = toDOMString(chunk);
          // 2-4. Convert code units to scalar values: a pending leading surrogate joins this
          //      chunk's first code unit, and a leading surrogate at the end waits for the next.
          if (leadingSurrogate !== -1) {
            input = StringFromCharCode(leadingSurrogate) + input;
            leadingSurrogate = -1;
          }
          const last = input.length > 0 ? StringPrototypeCharCodeAt(input, input.length - 1) : 0;
          if (last >= 0xd800 && last <= 0xdbff) {
            leadingSurrogate = last;
            input = StringPrototypeSlice(input, 0, input.length - 1);
          }
          // UTF-8 encode turns any surrogate left unpaired into U+FFFD.
          if (input.length > 0) controller.enqueue(utf8Encode(input));
        },
        // Encode and flush (https://encoding.spec.whatwg.org/#encode-and-flush).
        (controller) => {
          if (leadingSurrogate !== -1) controller.enqueue(new Uint8ArrayCtor(REPLACEMENT_CHARACTER_BYTES));
        },
      ),
    );
  }

  get encoding(): string {
    if (!(#brand in this)) throw illegalInvocation();
    return 'utf-8';
  }
}

export class TextDecoderStream extends TransformStream<unknown, string> {
  readonly #state: DecodeState;

  constructor(label: unknown = undefined, options: unknown = undefined) {
    const labelString = label === undefined ? 'utf-8' : toDOMString(label);
    const { fatal, ignoreBOM } = toDecoderOptions(options, () =>
      constructorArgumentTypeError('TextDecoderStream', 2, 'ConstructorOptions'),
    );
    // 1-5. The encoding, error mode and ignore BOM, as TextDecoder's constructor sets them.
    // 6. Set this's decoder to a new instance of this's encoding's decoder.
    const state = new DecodeState(encodingForDecoder(labelString), fatal, ignoreBOM);
    // 7-10. A transform stream whose transform decodes and enqueues each chunk, and whose flush
    //       decodes end-of-queue.
    super(
      transformer<unknown, string>(
        // Decode and enqueue a chunk (https://encoding.spec.whatwg.org/#decode-and-enqueue-a-chunk).
        (chunk, controller) => {
          const bytes = allowSharedBufferSourceBytes(chunk);
          if (bytes === undefined) throw new TypeErrorCtor(NOT_BUFFER_SOURCE_MESSAGE);
          const output = state.decode(bytes, false);
          if (output !== '') controller.enqueue(output);
        },
        // Flush and enqueue (https://encoding.spec.whatwg.org/#flush-and-enqueue).
        (controller) => {
          const output = state.decode(NO_BYTES, true);
          if (output !== '') controller.enqueue(output);
        },
      ),
    );
    this.#state = state;
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

defineWorkerdInterface(TextEncoderStream);
defineWorkerdInterface(TextDecoderStream);
