/**
 * TextEncoder, TextDecoder and their streams (https://encoding.spec.whatwg.org/). TextDecoder
 * decodes UTF-8, UTF-16LE, UTF-16BE, x-user-defined and every legacy single-byte encoding; the
 * legacy multi-byte encodings' labels throw a RangeError (encodings.ts, UNDECODED_ENCODINGS).
 */
import { exposeInterface } from '../global-scope.ts';
import { registerPlatformInterface } from '../structured-clone.ts';
import { TextDecoder } from './text-decoder.ts';
import { TextEncoder } from './text-encoder.ts';
import { TextDecoderStream, TextEncoderStream } from './text-streams.ts';

export { TextDecoder, TextDecoderStream, TextEncoder, TextEncoderStream };

export function installEncoding(): void {
  exposeInterface('TextEncoder', registerPlatformInterface(TextEncoder));
  exposeInterface('TextDecoder', registerPlatformInterface(TextDecoder));
  exposeInterface('TextEncoderStream', registerPlatformInterface(TextEncoderStream));
  exposeInterface('TextDecoderStream', registerPlatformInterface(TextDecoderStream));
}
