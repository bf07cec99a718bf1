/** Blob, File, FormData and the Streams standard: readers, tee, pipes, transforms, strategies. */
import { defineArea } from '../src/case.ts';

export default defineArea('blob-formdata-streams', [
  {
    name: 'blob-basics',
    quick: true,
    code: `async () => {
  const blob = new Blob(['hello ', new Uint8Array([119, 111, 114, 108, 100])], { type: 'Text/Plain' });
  return { size: blob.size, type: blob.type, text: await blob.text(), bytes: Array.from(new Uint8Array(await blob.arrayBuffer())).length };
}`,
  },
  {
    name: 'blob-slice',
    code: `async () => {
  const blob = new Blob(['0123456789']);
  return Promise.all([blob.slice(2, 5).text(), blob.slice(-3).text(), blob.slice(5, 2).text(), blob.slice(0, 4, 'x/y').type]);
}`,
  },
  {
    name: 'file-properties',
    code: `async () => {
  const file = new File(['{"a":1}'], 'data.json', { type: 'application/json', lastModified: 1700000000000 });
  return { name: file.name, type: file.type, size: file.size, lastModified: file.lastModified, isBlob: file instanceof Blob, text: await file.text() };
}`,
  },
  {
    name: 'form-data-fields',
    quick: true,
    code: `async () => {
  const form = new FormData();
  form.append('name', 'Ada');
  form.append('tag', 'a');
  form.append('tag', 'b');
  form.set('name', 'Grace');
  form.delete('missing');
  return { name: form.get('name'), tags: form.getAll('tag'), has: form.has('tag'), entries: [...form], missing: form.get('missing') };
}`,
  },
  {
    name: 'form-data-file-entry',
    code: `async () => {
  const form = new FormData();
  form.append('upload', new Blob(['abc'], { type: 'text/plain' }), 'a.txt');
  form.append('raw', new Blob(['x']));
  const upload = form.get('upload');
  const raw = form.get('raw');
  return { name: upload.name, type: upload.type, size: upload.size, isFile: upload instanceof File, rawName: raw.name, text: await upload.text() };
}`,
  },
  {
    name: 'readable-stream-reader',
    quick: true,
    code: `async () => {
  const stream = new ReadableStream({ start(controller) { controller.enqueue('a'); controller.enqueue('b'); controller.close(); } });
  const reader = stream.getReader();
  const chunks = [];
  for (;;) { const { value, done } = await reader.read(); if (done) break; chunks.push(value); }
  return { chunks, locked: stream.locked };
}`,
  },
  {
    name: 'async-iteration',
    code: `async () => {
  let n = 0;
  const stream = new ReadableStream({ pull(controller) { n++; if (n > 3) controller.close(); else controller.enqueue(n * 10); } });
  const seen = [];
  for await (const chunk of stream) seen.push(chunk);
  return seen;
}`,
  },
  {
    name: 'transform-pipe-through',
    code: `async () => {
  const upper = new TransformStream({ transform(chunk, controller) { controller.enqueue(chunk.toUpperCase()); } });
  const source = new ReadableStream({ start(c) { ['one', 'two', 'three'].forEach((s) => c.enqueue(s)); c.close(); } });
  const out = [];
  for await (const chunk of source.pipeThrough(upper)) out.push(chunk);
  return out;
}`,
  },
  {
    name: 'tee',
    code: `async () => {
  const source = new ReadableStream({ start(c) { c.enqueue(1); c.enqueue(2); c.close(); } });
  const [a, b] = source.tee();
  const read = async (s) => { const out = []; for await (const x of s) out.push(x); return out; };
  return { a: await read(a), b: await read(b), locked: source.locked };
}`,
  },
  {
    name: 'pipe-to-writable',
    code: `async () => {
  const written = [];
  let closed = false;
  const sink = new WritableStream({ write(chunk) { written.push(chunk); }, close() { closed = true; } });
  const source = new ReadableStream({ start(c) { c.enqueue('x'); c.enqueue('y'); c.close(); } });
  await source.pipeTo(sink);
  return { written, closed };
}`,
  },
  {
    name: 'response-from-stream',
    code: `async () => {
  const encoder = new TextEncoder();
  const stream = new ReadableStream({ start(c) { c.enqueue(encoder.encode('streamed ')); c.enqueue(encoder.encode('body')); c.close(); } });
  return await new Response(stream).text();
}`,
  },
  {
    name: 'text-decoder-stream',
    code: `async () => {
  const bytes = new TextEncoder().encode('héllo wörld');
  const source = new ReadableStream({ start(c) { c.enqueue(bytes.slice(0, 2)); c.enqueue(bytes.slice(2)); c.close(); } });
  const parts = [];
  for await (const text of source.pipeThrough(new TextDecoderStream())) parts.push(text);
  return parts.join('');
}`,
  },
  {
    name: 'queuing-strategy',
    code: `async () => {
  let controllerRef;
  new ReadableStream({ start(c) { controllerRef = c; } }, new CountQueuingStrategy({ highWaterMark: 3 }));
  const before = controllerRef.desiredSize;
  controllerRef.enqueue('a');
  const bytes = new ByteLengthQueuingStrategy({ highWaterMark: 16 });
  return { before, after: controllerRef.desiredSize, bytesHwm: bytes.highWaterMark, size: bytes.size(new Uint8Array(5)) };
}`,
  },
  {
    name: 'errored-stream',
    code: `async () => {
  const stream = new ReadableStream({ start(c) { c.enqueue('first'); c.error(new TypeError('source broke')); } });
  const reader = stream.getReader();
  try { const r = await reader.read(); return { first: r.value }; } catch (e) { return e.name + ': ' + e.message; }
}`,
  },
  {
    name: 'cancel-reaches-source',
    code: `async () => {
  let cancelled;
  const stream = new ReadableStream({ pull(c) { c.enqueue('tick'); }, cancel(reason) { cancelled = reason; } });
  const reader = stream.getReader();
  await reader.read();
  await reader.cancel('no longer needed');
  return { cancelled, done: (await reader.read()).done };
}`,
  },
  {
    name: 'byob-reader',
    code: `async () => {
  const stream = new ReadableStream({ type: 'bytes', start(c) { c.enqueue(new Uint8Array([1, 2, 3, 4, 5])); c.close(); } });
  const reader = stream.getReader({ mode: 'byob' });
  const first = await reader.read(new Uint8Array(2));
  const second = await reader.read(new Uint8Array(8));
  return { first: Array.from(first.value), second: Array.from(second.value), done: second.done };
}`,
  },
  {
    name: 'locked-stream',
    code: `async () => {
  const stream = new ReadableStream();
  stream.getReader();
  try { stream.getReader(); return 'second reader'; } catch (e) { return e.name + ': ' + e.message; }
}`,
  },
  {
    name: 'blob-stream',
    code: `async () => {
  const blob = new Blob(['chunked ', 'blob']);
  const reader = blob.stream().getReader();
  let total = 0;
  for (;;) { const { value, done } = await reader.read(); if (done) break; total += value.byteLength; }
  return total;
}`,
  },
  {
    name: 'stream-own-keys',
    code: `async () => ({ readable: Object.keys(new ReadableStream()), writable: Object.keys(new WritableStream()), json: JSON.stringify(new TransformStream()) })`,
  },
  {
    name: 'writable-writer',
    code: `async () => {
  const log = [];
  const stream = new WritableStream({ write(chunk) { log.push('write ' + chunk); }, close() { log.push('close'); } });
  const writer = stream.getWriter();
  await writer.write('a');
  await writer.write('b');
  await writer.close();
  return { log, locked: stream.locked, desired: writer.desiredSize };
}`,
  },
]);
