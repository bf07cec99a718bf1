/**
 * The streams runtime piece (packages/runtime/src/streams/index.ts): web-streams-polyfill is kept
 * out of the startup snapshot and loaded by the first stream an isolate makes. The snapshot holds
 * the interfaces alone, and a program must not be able to tell when the polyfill arrived: the
 * interfaces read the same before and after, every object the polyfill makes inside is an instance
 * of the globals, and what the program replaced before its first stream does not reach the polyfill.
 */
import { MIN_MEMORY_LIMIT } from '@supolka/codemode-protocol';
import { RUNTIME_PIECES } from '@supolka/codemode-runtime/pieces';
import { expect, test } from 'vitest';
import { pieceSource } from '../../src/sandbox/setup/pieces.ts';
import { resultOf, useSandbox } from '../helpers.ts';
import { firstUseOnAnExhaustedStack, OVERFLOWED_THEN_LOADED } from './piece-probes.ts';

const sandbox = useSandbox();
const run = (code: string) => resultOf(sandbox, code);

/** Every stream interface's own members, prototype and statics, as `key:kind:flags` lines. */
const DESCRIBE = `(() => {
  const names = ['ReadableStream', 'ReadableStreamDefaultReader', 'ReadableStreamBYOBReader', 'ReadableStreamBYOBRequest',
    'ReadableByteStreamController', 'ReadableStreamDefaultController', 'WritableStream', 'WritableStreamDefaultWriter',
    'WritableStreamDefaultController', 'TransformStream', 'TransformStreamDefaultController', 'ByteLengthQueuingStrategy',
    'CountQueuingStrategy'];
  const describe = (target) => Object.getOwnPropertyNames(target).concat([Symbol.asyncIterator, Symbol.toStringTag].filter((key) => Object.hasOwn(target, key))).map((key) => {
    const d = Object.getOwnPropertyDescriptor(target, key);
    const kind = typeof d.value === 'function' ? 'method ' + d.value.name : d.get ? 'getter ' + d.get.name : typeof d.value;
    return String(key) + ':' + kind + ':' + (d.enumerable ? 'e' : '') + (d.writable ? 'w' : '') + (d.configurable ? 'c' : '');
  });
  return names.map((name) => [name, describe(globalThis[name].prototype), describe(globalThis[name])]);
})()`;

/** Reads a stream the program made to its end. */
const MAKE_AND_READ = `(async () => {
  const stream = new ReadableStream({ start(controller) { controller.enqueue('a'); controller.enqueue('b'); controller.close(); } }, { highWaterMark: 2 });
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
})()`;

test('the host keeps the polyfill as a piece, and the interfaces read the same before and after it loads', async () => {
  expect(pieceSource('streams')).toBe(RUNTIME_PIECES.streams);
  const result = (await run(`async () => {
    const before = ${DESCRIBE};
    const chunks = await ${MAKE_AND_READ};
    const after = ${DESCRIBE};
    return { chunks, same: JSON.stringify(before) === JSON.stringify(after), readable: before[0] };
  }`)) as { chunks: string[]; same: boolean; readable: unknown };
  expect(result.chunks).toStrictEqual(['a', 'b']);
  expect(result.same).toBe(true);
  expect(result.readable).toStrictEqual([
    'ReadableStream',
    [
      'constructor:method ReadableStream:wc',
      'locked:getter get locked:ec',
      'cancel:method cancel:ewc',
      'getReader:method getReader:ewc',
      'pipeThrough:method pipeThrough:ewc',
      'pipeTo:method pipeTo:ewc',
      'tee:method tee:ewc',
      'values:method values:ewc',
      'Symbol(Symbol.asyncIterator):method values:wc',
      'Symbol(Symbol.toStringTag):string:c',
    ],
    ['length:number:c', 'name:string:c', 'prototype:object:', 'from:method from:ewc'],
  ]);
});

test('what the polyfill makes inside is an instance of the interfaces the program sees', async () => {
  const result = await run(`async () => {
    let controller;
    const stream = new ReadableStream({ start(c) { controller = c; } });
    const [left, right] = stream.tee();
    const transform = new TransformStream();
    const encoder = new TextEncoderStream();
    const reader = left.getReader();
    const writer = transform.writable.getWriter();
    const bytes = new ReadableStream({ type: 'bytes', pull(c) { c.enqueue(new Uint8Array([1])); } });
    const byob = bytes.getReader({ mode: 'byob' });
    const read = await byob.read(new Uint8Array(4));
    return [
      controller instanceof ReadableStreamDefaultController,
      Object.getPrototypeOf(left) === ReadableStream.prototype, right instanceof ReadableStream,
      transform.readable instanceof ReadableStream, transform.writable instanceof WritableStream,
      encoder.readable instanceof ReadableStream, encoder instanceof TransformStream,
      reader instanceof ReadableStreamDefaultReader, writer instanceof WritableStreamDefaultWriter,
      byob instanceof ReadableStreamBYOBReader, [...read.value],
      new Response(ReadableStream.from(['x', 'y']).pipeThrough(new TextEncoderStream())).body instanceof ReadableStream,
      await new Response(ReadableStream.from(['x', 'y']).pipeThrough(new TextEncoderStream())).text(),
      Object.prototype.toString.call(controller),
      // The polyfill's internal members, copied onto the prototype when it loaded, read as native code too.
      Object.getOwnPropertySymbols(ReadableStreamDefaultController.prototype)
        .map((key) => ReadableStreamDefaultController.prototype[key])
        .filter((member) => typeof member === 'function')
        .map((member) => String(member).endsWith('() { [native code] }')),
    ];
  }`);
  expect(result).toStrictEqual([
    true,
    true,
    true,
    true,
    true,
    true,
    true,
    true,
    true,
    true,
    [1],
    true,
    'xy',
    '[object ReadableStreamDefaultController]',
    [true, true, true, true],
  ]);
});

test('a program that replaced what the polyfill reads when it loads, before its first stream, changes nothing', async () => {
  // In the snapshot the polyfill read these before any program ran; now it reads them on the
  // program's first stream. Each replacement records a call, and none may be made.
  const result = await run(`async () => {
    const called = [];
    const replace = (owner, key, name) => { owner[key] = function () { called.push(name); throw new Error('replaced ' + name); }; };
    replace(Promise, 'resolve', 'Promise.resolve');
    replace(Promise, 'reject', 'Promise.reject');
    replace(Number, 'isFinite', 'Number.isFinite');
    replace(Number, 'isNaN', 'Number.isNaN');
    replace(Math, 'trunc', 'Math.trunc');
    replace(Function.prototype, 'bind', 'bind');
    replace(globalThis, 'DOMException', 'DOMException');
    replace(globalThis, 'Symbol', 'Symbol');
    const then = Promise.prototype.then;
    Promise.prototype.then = function (...args) { called.push('then'); return Reflect.apply(then, this, args); };
    const stream = new ReadableStream({ start(c) { c.enqueue(1); c.close(); } }, new CountQueuingStrategy({ highWaterMark: 3.7 }));
    // A byte stream's chunk size goes through the polyfill's integer conversion (Number.isFinite, Math.trunc).
    new ReadableStream({ type: 'bytes', autoAllocateChunkSize: 8.5 });
    const reader = stream.getReader();
    const first = await reader.read();
    const last = await reader.read();
    let locked;
    try { stream.getReader(); } catch (error) { locked = error.name + ': ' + error.message; }
    Promise.prototype.then = then;
    return { first, last, locked, called };
  }`);
  expect(result).toStrictEqual({
    first: { value: 1, done: false },
    last: { done: true },
    locked: 'TypeError: This ReadableStream is currently locked to a reader.',
    called: [],
  });
});

test("a program that replaced, deleted or froze Object's functions and the prototypes first changes nothing", async () => {
  const result = await run(`async () => {
    Object.keys = () => { throw new Error('replaced'); };
    delete Object.defineProperty;
    delete Object.create;
    Object.freeze(Object);
    Object.freeze(Object.prototype);
    Object.freeze(Array.prototype);
    Object.freeze(Function.prototype);
    return ${MAKE_AND_READ};
  }`);
  expect(result).toStrictEqual(['a', 'b']);
});

test('the loading calls no getter a program put on Object.prototype', async () => {
  const result = await run(`async () => {
    const called = [];
    for (const key of ['classes', 'prototypes', 'streams', 'ReadableStream', 'prototype', 'exports', 'loadPiece', 'default', '__esModule']) {
      Object.defineProperty(Object.prototype, key, { get() { called.push(key); }, configurable: true });
    }
    const chunks = await ${MAKE_AND_READ};
    return { chunks, called };
  }`);
  expect(result).toStrictEqual({ chunks: ['a', 'b'], called: [] });
});

test('a module that makes a stream at its top level, while modules load, loads it', async () => {
  const envelope = await sandbox.execute({
    modules: {
      'stream.js': `export const stream = new ReadableStream({ start(c) { c.enqueue('m'); c.close(); } });`,
    },
    code: `import { stream } from './stream.js'
async () => { const chunks = []; for await (const chunk of stream) chunks.push(chunk); return chunks; }`,
  });
  expect(envelope).toStrictEqual({ result: ['m'], logs: [] });
});

test('it loads at the smallest memory limit accepted', async () => {
  const envelope = await sandbox.execute({
    memoryLimit: MIN_MEMORY_LIMIT,
    code: `async () => ${MAKE_AND_READ}`,
  });
  expect(envelope).toStrictEqual({ result: ['a', 'b'], logs: [] });
});

test('a stack overflow in the middle of the first load leaves it loadable', async () => {
  const result = await run(`async () => {
    ${firstUseOnAnExhaustedStack('new ReadableStream()')}
    return { outcomes: [...outcomes].sort(), after: await ${MAKE_AND_READ} };
  }`);
  expect(result).toStrictEqual({ outcomes: OVERFLOWED_THEN_LOADED, after: ['a', 'b'] });
});
