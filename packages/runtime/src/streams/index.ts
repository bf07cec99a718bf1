/**
 * The Streams standard (https://streams.spec.whatwg.org/), from web-streams-polyfill 4, whose
 * classes follow the standard and pass its test suite. The polyfill keeps each object's state in
 * own underscore properties where workerd keeps it internal (docs/runtime-deviations.md). The
 * globals are the polyfill's classes behind constructors that throw workerd's texts (texts.ts);
 * the runtime's own code uses the classes directly.
 *
 * The polyfill reads DOMException off the global object when it loads, so dom-exception-global.ts
 * is imported ahead of it in index.ts.
 */
import {
  ByteLengthQueuingStrategy,
  CountQueuingStrategy,
  ReadableByteStreamController,
  ReadableStream,
  ReadableStreamBYOBReader,
  ReadableStreamBYOBRequest,
  ReadableStreamDefaultController,
  ReadableStreamDefaultReader,
  TransformStream,
  TransformStreamDefaultController,
  WritableStream,
  WritableStreamDefaultController,
  WritableStreamDefaultWriter,
} from 'web-streams-polyfill';
import { exposeInterface } from '../global-scope.ts';
import { registerPlatformInterface } from '../structured-clone.ts';
import { withWorkerdTexts } from './texts.ts';

export {
  ReadableStream,
  ReadableStreamBYOBReader,
  ReadableStreamDefaultReader,
  TransformStream,
  WritableStream,
  WritableStreamDefaultWriter,
};

const STRATEGY = 'StreamQueuingStrategy';

/** Each class as a program sees it: with workerd's error texts, and its parameters' types for them. */
const INTERFACES = {
  ReadableStream: withWorkerdTexts(ReadableStream, ['UnderlyingSource', STRATEGY], {
    pipeTo: ['WritableStream'],
    pipeThrough: ['Transform'],
  }),
  ReadableStreamDefaultReader: withWorkerdTexts(ReadableStreamDefaultReader, ['ReadableStream']),
  ReadableStreamBYOBReader: withWorkerdTexts(ReadableStreamBYOBReader, ['ReadableStream']),
  ReadableStreamBYOBRequest: withWorkerdTexts(ReadableStreamBYOBRequest),
  ReadableByteStreamController: withWorkerdTexts(ReadableByteStreamController),
  ReadableStreamDefaultController: withWorkerdTexts(ReadableStreamDefaultController),
  WritableStream: withWorkerdTexts(WritableStream, ['UnderlyingSink', STRATEGY]),
  WritableStreamDefaultWriter: withWorkerdTexts(WritableStreamDefaultWriter, ['WritableStream']),
  WritableStreamDefaultController: withWorkerdTexts(WritableStreamDefaultController),
  TransformStream: withWorkerdTexts(TransformStream, ['Transformer', STRATEGY, STRATEGY]),
  TransformStreamDefaultController: withWorkerdTexts(TransformStreamDefaultController),
  ByteLengthQueuingStrategy: withWorkerdTexts(ByteLengthQueuingStrategy, ['QueuingStrategyInit']),
  CountQueuingStrategy: withWorkerdTexts(CountQueuingStrategy, ['QueuingStrategyInit']),
};

export function installStreams(): void {
  for (const [name, value] of Object.entries(INTERFACES)) {
    exposeInterface(name, value);
    registerPlatformInterface(value);
  }
}
