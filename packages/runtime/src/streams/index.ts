/**
 * The Streams standard (https://streams.spec.whatwg.org/), from web-streams-polyfill 4, whose
 * classes follow the standard and pass its test suite. The polyfill keeps each object's state in
 * own underscore properties where workerd keeps it internal (docs/runtime-deviations.md).
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

export {
  ReadableStream,
  ReadableStreamBYOBReader,
  ReadableStreamDefaultReader,
  TransformStream,
  WritableStream,
  WritableStreamDefaultWriter,
};

const INTERFACES = {
  ReadableStream,
  ReadableStreamDefaultReader,
  ReadableStreamBYOBReader,
  ReadableStreamBYOBRequest,
  ReadableByteStreamController,
  ReadableStreamDefaultController,
  WritableStream,
  WritableStreamDefaultWriter,
  WritableStreamDefaultController,
  TransformStream,
  TransformStreamDefaultController,
  ByteLengthQueuingStrategy,
  CountQueuingStrategy,
};

export function installStreams(): void {
  for (const [name, value] of Object.entries(INTERFACES)) {
    exposeInterface(name, value);
    registerPlatformInterface(value);
  }
}
