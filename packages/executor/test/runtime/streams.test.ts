/** The Streams standard inside the isolate: readers, tee, pipes, async iteration, BYOB, transforms. */
import { expect, test } from 'vitest';
import { useSandbox } from '../helpers.ts';

const sandbox = useSandbox();
const run = async (code: string) => sandbox.execute({ code });

test('a ReadableStream reads in order, tees, and iterates asynchronously', async () => {
  const envelope = await run(`async () => {
  const make = () => new ReadableStream({ start(controller) { for (const chunk of ['a', 'b', 'c']) controller.enqueue(chunk); controller.close(); } });
  const reader = make().getReader();
  const read = [];
  for (;;) { const { done, value } = await reader.read(); if (done) break; read.push(value); }
  const [left, right] = make().tee();
  const iterated = [];
  for await (const chunk of left) iterated.push(chunk);
  const teed = [];
  for await (const chunk of right.values()) teed.push(chunk);
  return [read, iterated, teed];
}`);
  expect(envelope.result).toStrictEqual([
    ['a', 'b', 'c'],
    ['a', 'b', 'c'],
    ['a', 'b', 'c'],
  ]);
});

test('pipeTo a WritableStream, and a TransformStream in between', async () => {
  const envelope = await run(`async () => {
  const written = [];
  const source = new ReadableStream({ start(c) { c.enqueue(1); c.enqueue(2); c.close(); } });
  const double = new TransformStream({ transform(chunk, controller) { controller.enqueue(chunk * 2) } });
  await source.pipeThrough(double).pipeTo(new WritableStream({ write(chunk) { written.push(chunk) } }));
  return written;
}`);
  expect(envelope.result).toStrictEqual([2, 4]);
});

test('a byte stream serves a BYOB reader', async () => {
  const envelope = await run(`async () => {
  const stream = new ReadableStream({
    type: 'bytes',
    start(controller) { controller.enqueue(new Uint8Array([1, 2, 3, 4])); controller.close(); },
  });
  const reader = stream.getReader({ mode: 'byob' });
  const { value } = await reader.read(new Uint8Array(2));
  return [value.constructor.name, [...value]];
}`);
  expect(envelope.result).toStrictEqual(['Uint8Array', [1, 2]]);
});

test('queuing strategies and aborting a pipe with a signal', async () => {
  const envelope = await run(`async () => {
  const count = new CountQueuingStrategy({ highWaterMark: 3 });
  const bytes = new ByteLengthQueuingStrategy({ highWaterMark: 16 });
  const controller = new AbortController();
  const source = new ReadableStream({ pull() { return new Promise(() => {}) } });
  const piping = source.pipeTo(new WritableStream(), { signal: controller.signal });
  controller.abort();
  let failure;
  try { await piping } catch (e) { failure = [e.name, e instanceof DOMException] }
  return [count.highWaterMark, count.size(), bytes.size(new Uint8Array(5)), failure];
}`);
  expect(envelope.result).toStrictEqual([3, 1, 5, ['AbortError', true]]);
});

test("the errors carry workerd's texts: locked, released, closed, wrong arguments, illegal invocation", async () => {
  const envelope = await run(`async () => {
  const out = [];
  const attempt = async (f) => { try { await f(); out.push('ok') } catch (e) { out.push(e.name + ': ' + e.message) } };
  const locked = new ReadableStream();
  locked.getReader();
  await attempt(() => locked.getReader());
  await attempt(() => locked.cancel());
  await attempt(() => locked[Symbol.asyncIterator]().next());
  const writable = new WritableStream();
  writable.getWriter();
  await attempt(() => writable.getWriter());
  const released = new ReadableStream().getReader();
  released.releaseLock();
  await attempt(() => released.read());
  await attempt(() => released.closed);
  let controller;
  new ReadableStream({ start(c) { controller = c } });
  controller.close();
  await attempt(() => controller.enqueue(1));
  await attempt(() => new ReadableStream({ type: 'nope' }));
  await attempt(() => new ReadableStream().getReader({ mode: 'nope' }));
  await attempt(() => new ReadableStream({ start: 5 }));
  await attempt(() => new WritableStream(5));
  await attempt(() => new ReadableStream().pipeTo({}));
  await attempt(() => ReadableStream.prototype.getReader.call({}));
  await attempt(() => new ReadableStream({ start() { throw new TypeError('mine') } }));
  return out;
}`);
  expect(envelope.result).toStrictEqual([
    'TypeError: This ReadableStream is currently locked to a reader.',
    'TypeError: This ReadableStream is currently locked to a reader.',
    'TypeError: This ReadableStream is currently locked to a reader.',
    'TypeError: This WritableStream is currently locked to a writer.',
    'TypeError: This ReadableStream reader has been released.',
    'TypeError: This ReadableStream reader has been released.',
    'TypeError: Unable to enqueue',
    'TypeError: "nope" is not a valid type of ReadableStream.',
    "TypeError: mode must be undefined or 'byob' in call to getReader().",
    "TypeError: Incorrect type for the 'start' field on 'UnderlyingSource': the provided value is not of type 'function'.",
    "TypeError: Failed to construct 'WritableStream': constructor parameter 1 is not of type 'UnderlyingSink'.",
    "TypeError: Failed to execute 'pipeTo' on 'ReadableStream': parameter 1 is not of type 'WritableStream'.",
    expect.stringMatching(
      /^TypeError: Illegal invocation: function called with incorrect `this` reference\./,
    ),
    'TypeError: mine',
  ]);
});

test('the global classes are the ones the streams are made of: branches, sides, subclasses, identity', async () => {
  const envelope = await run(`async () => {
  const [left] = new ReadableStream().tee();
  const transform = new TransformStream();
  class Numbers extends ReadableStream {
    constructor() { super({ start(c) { c.enqueue(1); c.close() } }) }
  }
  const numbers = new Numbers();
  const reader = transform.readable.getReader();
  const closed = reader.closed;
  let called;
  try { ReadableStream() } catch (e) { called = e.message }
  return [left instanceof ReadableStream, transform.readable instanceof ReadableStream, transform.writable instanceof WritableStream,
    reader instanceof ReadableStreamDefaultReader, numbers instanceof Numbers, (await numbers.getReader().read()).value,
    ReadableStream.prototype.constructor === ReadableStream, closed === reader.closed, called];
}`);
  expect(envelope.result).toStrictEqual([
    true,
    true,
    true,
    true,
    true,
    1,
    true,
    true,
    "Failed to construct 'ReadableStream': Please use the 'new' operator, this object constructor cannot be called as a function.",
  ]);
});
