/**
 * The Streams standard (https://streams.spec.whatwg.org/), from web-streams-polyfill 4, whose
 * classes follow the standard and pass its test suite. The polyfill keeps each object's state in
 * own underscore properties where workerd keeps it internal (docs/runtime-deviations.md). The
 * globals are interface objects that throw workerd's texts (texts.ts); the runtime's own code uses
 * them too.
 *
 * The polyfill is a runtime piece (../pieces.ts, scripts/build-streams-piece.mjs): a trivial program never
 * makes a stream, so the snapshot holds only the interfaces (shape.ts lists their members), and the
 * first constructor or member called in an isolate loads the polyfill and connects it: each
 * polyfill class's `prototype` becomes its interface's, and the polyfill's internal members
 * (a controller's [[PullSteps]]) are copied onto it.
 */
import type * as Polyfill from 'web-streams-polyfill';
import { exposeInterface } from '../global-scope.ts';
import { loadPiece } from '../pieces.ts';
import {
  ObjectCreate,
  ObjectKeys,
  ReflectDefineProperty,
  ReflectGetOwnPropertyDescriptor,
  ReflectOwnKeys,
} from '../primordials.ts';
import { registerPlatformInterface } from '../structured-clone.ts';
import { STREAM_INTERFACES, type StreamInterfaceName } from './shape.ts';
import { lazyInterface, type PolyfillClass, wrapInternalMember } from './texts.ts';

let connected: Record<StreamInterfaceName, PolyfillClass> | undefined;

/** The polyfill's class behind the interface `name`, loading and connecting the piece on first use. */
function polyfillOf(name: StreamInterfaceName): PolyfillClass {
  connected ??= connect();
  return connected[name];
}

const STRATEGY = 'StreamQueuingStrategy';

/** Each interface's parameters' types, for workerd's texts. */
const TYPES: Partial<
  Record<StreamInterfaceName, readonly [readonly string[], Record<string, readonly string[]>?]>
> = {
  ReadableStream: [
    ['UnderlyingSource', STRATEGY],
    { pipeTo: ['WritableStream'], pipeThrough: ['Transform'] },
  ],
  ReadableStreamDefaultReader: [['ReadableStream']],
  ReadableStreamBYOBReader: [['ReadableStream']],
  WritableStream: [['UnderlyingSink', STRATEGY]],
  WritableStreamDefaultWriter: [['WritableStream']],
  TransformStream: [['Transformer', STRATEGY, STRATEGY]],
  ByteLengthQueuingStrategy: [['QueuingStrategyInit']],
  CountQueuingStrategy: [['QueuingStrategyInit']],
};

const NAMES = ObjectKeys(STREAM_INTERFACES) as StreamInterfaceName[];

const INTERFACES = ObjectCreate(null) as Record<StreamInterfaceName, { readonly prototype: object }>;
for (const name of NAMES) {
  const [types, methodTypes] = TYPES[name] ?? [[]];
  INTERFACES[name] = lazyInterface(name, STREAM_INTERFACES[name], () => polyfillOf(name), types, methodTypes);
}

/**
 * Points each polyfill class at its interface's prototype, with the polyfill's internal members
 * on it. Reads only the piece's own objects and the interfaces' prototypes (neither reachable by a
 * program's replacement of a global), and every step can run again: a load that throws part-way
 * (a stack overflow) is redone whole on the next use.
 */
function connect(): Record<StreamInterfaceName, PolyfillClass> {
  const { classes, prototypes } = loadPiece('streams');
  const result = ObjectCreate(null) as Record<StreamInterfaceName, PolyfillClass>;
  for (let index = 0; index < NAMES.length; index++) {
    const name = NAMES[index] as StreamInterfaceName;
    const polyfillClass = classes[name] as unknown as PolyfillClass['polyfillClass'];
    const own = prototypes[name] as object;
    const prototype = INTERFACES[name].prototype;
    const keys = ReflectOwnKeys(own);
    for (let position = 0; position < keys.length; position++) {
      const key = keys[position] as PropertyKey;
      if (typeof key !== 'symbol' || ReflectGetOwnPropertyDescriptor(prototype, key) !== undefined) continue;
      const method = (ReflectGetOwnPropertyDescriptor(own, key) as PropertyDescriptor).value;
      if (typeof method === 'function') wrapInternalMember(prototype, key, method, name);
    }
    ReflectDefineProperty(polyfillClass, 'prototype', { value: prototype });
    result[name] = { polyfillClass, polyfillPrototype: own };
  }
  return result;
}

export const ReadableStream = INTERFACES.ReadableStream as unknown as typeof Polyfill.ReadableStream;
export type ReadableStream<R = unknown> = Polyfill.ReadableStream<R>;
export const ReadableStreamDefaultReader =
  INTERFACES.ReadableStreamDefaultReader as unknown as typeof Polyfill.ReadableStreamDefaultReader;
export type ReadableStreamDefaultReader<R = unknown> = Polyfill.ReadableStreamDefaultReader<R>;
export const ReadableStreamBYOBReader =
  INTERFACES.ReadableStreamBYOBReader as unknown as typeof Polyfill.ReadableStreamBYOBReader;
export type ReadableStreamBYOBReader = Polyfill.ReadableStreamBYOBReader;
export const TransformStream = INTERFACES.TransformStream as unknown as typeof Polyfill.TransformStream;
export type TransformStream<I = unknown, O = unknown> = Polyfill.TransformStream<I, O>;
export const WritableStream = INTERFACES.WritableStream as unknown as typeof Polyfill.WritableStream;
export type WritableStream<W = unknown> = Polyfill.WritableStream<W>;
export const WritableStreamDefaultWriter =
  INTERFACES.WritableStreamDefaultWriter as unknown as typeof Polyfill.WritableStreamDefaultWriter;
export type WritableStreamDefaultWriter<W = unknown> = Polyfill.WritableStreamDefaultWriter<W>;

export function installStreams(): void {
  for (let index = 0; index < NAMES.length; index++) {
    const name = NAMES[index] as StreamInterfaceName;
    exposeInterface(name, registerPlatformInterface(INTERFACES[name]));
  }
}
