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
