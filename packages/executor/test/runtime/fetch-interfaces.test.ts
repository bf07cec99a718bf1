/** Headers, Response, the Body mixin, Blob, File and FormData (Fetch, File API, XHR), in a real isolate. */
import { describe, expect, test } from 'vitest';
import { useSandbox } from '../helpers.ts';

const sandbox = useSandbox();
const run = async (code: string) => sandbox.execute({ code });

describe('Headers (Fetch "Headers class")', () => {
  test('case-insensitive names, combined values, sorted iteration, set-cookie kept apart', async () => {
    const envelope = await run(`async () => {
  const headers = new Headers({ 'Content-Type': 'text/plain', Accept: 'a' });
  headers.append('accept', 'b');
  headers.append('Set-Cookie', 'x=1');
  headers.append('set-cookie', 'y=2');
  headers.set('X-Trim', '  padded\\t');
  return [headers.get('ACCEPT'), headers.has('content-type'), [...headers], headers.getSetCookie(), [...headers.keys()].length, String(headers), headers.get('missing')];
}`);
    expect(envelope.result).toStrictEqual([
      'a, b',
      true,
      [
        ['accept', 'a, b'],
        ['content-type', 'text/plain'],
        ['set-cookie', 'x=1'],
        ['set-cookie', 'y=2'],
        ['x-trim', 'padded'],
      ],
      ['x=1', 'y=2'],
      5,
      '[object Headers]',
      null,
    ]);
  });

  test('invalid names and values are workerd TypeErrors; pairs must have two items', async () => {
    const envelope = await run(`async () => {
  const out = [];
  for (const init of [{ 'bad name': 'x' }, { a: 'x\\ny' }, [['only-one']]]) {
    try { new Headers(init) } catch (e) { out.push(e.constructor.name + ': ' + e.message) }
  }
  return out;
}`);
    expect(envelope.result).toStrictEqual([
      'TypeError: Invalid header name.',
      'TypeError: Invalid header value.',
      'TypeError: Header pairs must contain exactly two items.',
    ]);
  });
});

describe('Response (Fetch "Response class") and the Body mixin', () => {
  test('status rules with workerd texts', async () => {
    const envelope = await run(`async () => {
  const out = [];
  for (const init of [{ status: 99 }, { status: 600 }, { status: 101 }, { statusText: 'bad\\n' }]) {
    try { new Response('x', init) } catch (e) { out.push(e.constructor.name + ': ' + e.message) }
  }
  try { new Response('x', { status: 204 }) } catch (e) { out.push(e.message) }
  return out;
}`);
    expect(envelope.result).toStrictEqual([
      'RangeError: Responses may only be constructed with status codes in the range 200 to 599, inclusive.',
      'RangeError: Responses may only be constructed with status codes in the range 200 to 599, inclusive.',
      'RangeError: Responses may only be constructed with status codes in the range 200 to 599, inclusive.',
      'TypeError: Invalid statusText',
      'Response with null body status (101, 204, 205, or 304) cannot have a body.',
    ]);
  });

  test('the body readers, content types, bodyUsed and the used-body error', async () => {
    const envelope = await run(`async () => {
  const text = new Response('héllo');
  const read = [text.headers.get('content-type'), text.bodyUsed, await text.text(), text.bodyUsed];
  let twice;
  try { await text.text() } catch (e) { twice = e.message }
  const json = await Response.json({ a: [1] }, { status: 201 });
  const bytes = new Response(new Uint8Array([1, 2, 3]));
  const blob = await new Response('blob body', { headers: { 'content-type': 'text/x-custom' } }).blob();
  return [read, twice, json.status, json.headers.get('content-type'), await json.json(), [...(await bytes.bytes())], blob.type, blob.size, await blob.text()];
}`);
    expect(envelope.result).toStrictEqual([
      ['text/plain;charset=UTF-8', false, 'héllo', true],
      'Body has already been used. It can only be used once. Use tee() first if you need to read it twice.',
      201,
      'application/json',
      { a: [1] },
      [1, 2, 3],
      'text/x-custom',
      9,
      'blob body',
    ]);
  });

  test('clone tees the body; a streamed body reads through; Response.error', async () => {
    const envelope = await run(`async () => {
  const original = new Response('shared');
  const copy = original.clone();
  const stream = new ReadableStream({ start(c) { c.enqueue(new TextEncoderLike().encode('a')); c.enqueue(new Uint8Array([98])); c.close() } });
  const streamed = await new Response(stream).text();
  const error = Response.error();
  return [await original.text(), await copy.text(), streamed, error.type, error.status, error.ok];
  function TextEncoderLike() { return { encode: (s) => new Uint8Array([...s].map((c) => c.charCodeAt(0))) } }
}`);
    expect(envelope.result).toStrictEqual(['shared', 'shared', 'ab', 'error', 0, false]);
  });

  test('a locked stream cannot be read as a body', async () => {
    const envelope = await run(`async () => {
  const response = new Response('x');
  response.body.getReader();
  try { await response.text() } catch (e) { return [e.constructor.name, e.message] }
}`);
    expect(envelope.result).toStrictEqual([
      'TypeError',
      'This ReadableStream is currently locked to a reader.',
    ]);
  });
});

describe('Blob, File and FormData', () => {
  test('Blob parts, slice, type normalization, stream; File name and lastModified', async () => {
    const envelope = await run(`async () => {
  const blob = new Blob(['ab', new Uint8Array([99]), new Blob(['d'])], { type: 'Text/Plain' });
  const sliced = blob.slice(1, -1, 'x/y');
  const file = new File(['content'], 'notes.txt', { type: 'text/plain', lastModified: 5 });
  const chunks = [];
  for await (const chunk of blob.stream()) chunks.push(...chunk);
  return [blob.size, blob.type, await sliced.text(), sliced.type, file.name, file.lastModified, file instanceof Blob, chunks, String(file)];
}`);
    expect(envelope.result).toStrictEqual([
      4,
      'text/plain',
      'bc',
      'x/y',
      'notes.txt',
      5,
      true,
      [97, 98, 99, 100],
      '[object File]',
    ]);
  });

  test('FormData entries, and a multipart body round trip through Response.formData', async () => {
    const envelope = await run(`async () => {
  const form = new FormData();
  form.append('name', 'value');
  form.append('file', new Blob(['file body'], { type: 'text/plain' }), 'a.txt');
  form.append('name', 'second');
  form.set('solo', 'one');
  const response = new Response(form);
  const type = response.headers.get('content-type');
  const parsed = await response.formData();
  const file = parsed.get('file');
  const urlencoded = await new Response('a=1&b=x%20y&a=2', { headers: { 'content-type': 'application/x-www-form-urlencoded' } }).formData();
  return [type.startsWith('multipart/form-data; boundary='), parsed.getAll('name'), file.name, file.type, await file.text(), parsed.get('solo'), urlencoded.getAll('a'), urlencoded.get('b')];
}`);
    expect(envelope.result).toStrictEqual([
      true,
      ['value', 'second'],
      'a.txt',
      'text/plain',
      'file body',
      'one',
      ['1', '2'],
      'x y',
    ]);
  });
});
