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
      'TypeError: To initialize a Headers object from a sequence, each inner sequence must have exactly two elements.',
    ]);
  });

  test("init conversion follows workerd: whole sequence first, workerd's texts", async () => {
    const envelope = await run(`async () => {
  const out = [];
  for (const init of [[['a', 'b', 'c']], ['ab'], [1], [{}], [null], 42, 'abc', null, [['bad name', 'x'], ['a']], new Map([['m', '1']]), [new Set(['s', '2'])]]) {
    try { out.push([...new Headers(init)]) } catch (e) { out.push(e.constructor.name + ': ' + e.message) }
  }
  const source = new Headers({ a: '1' });
  source[Symbol.iterator] = function* () { yield ['ignored', 'x'] };
  out.push([...new Headers(source)]);
  return out;
}`);
    const pairs =
      'TypeError: To initialize a Headers object from a sequence, each inner sequence must have exactly two elements.';
    const sequence = "TypeError: Incorrect type: the provided value is not of type 'Sequence'.";
    const init =
      "TypeError: Failed to construct 'Headers': constructor parameter 1 is not of type 'Headers or Sequence or object'.";
    expect(envelope.result).toStrictEqual([
      pairs,
      sequence,
      sequence,
      sequence,
      sequence,
      init,
      init,
      init,
      pairs,
      [['m', '1']],
      [['s', '2']],
      [['a', '1']],
    ]);
  });

  test("names are workerd's tokens: no separator or control, anything past ASCII; values refuse only NUL, CR, LF", async () => {
    const envelope = await run(`async () => {
  const out = [];
  for (const name of ['é', 'x😀', 'a:b', 'a b', 'a\\x7f', '(a)']) {
    try { new Headers().set(name, 'v'); out.push('ok') } catch (e) { out.push(e.message) }
  }
  for (const value of ['€', '\\x01', 'a\\rb']) {
    try { new Headers().set('x', value); out.push('ok') } catch (e) { out.push(e.message) }
  }
  const headers = new Headers({ É: '1', X: '2' });
  return [out, headers.get('é'), headers.get('x'), headers.get('É')];
}`);
    expect(envelope.result).toStrictEqual([
      [
        'ok',
        'ok',
        'Invalid header name.',
        'Invalid header name.',
        'Invalid header name.',
        'Invalid header name.',
        'ok',
        'ok',
        'Invalid header value.',
      ],
      null,
      '2',
      '1',
    ]);
  });

  test('@@iterator is a function of its own, named "", iterating entries', async () => {
    const envelope = await run(`async () => {
  const iterator = Headers.prototype[Symbol.iterator];
  return [iterator === Headers.prototype.entries, iterator.name, [...new Headers({ b: '2', a: '1' })]];
}`);
    expect(envelope.result).toStrictEqual([
      false,
      '',
      [
        ['a', '1'],
        ['b', '2'],
      ],
    ]);
  });
});

describe('Request (Fetch "Request class")', () => {
  test('new Request(request) takes the body: the input is used, clone() and reading it throw', async () => {
    const envelope = await run(`async () => {
  const attempt = async (f) => { try { return await f() } catch (e) { return e.constructor.name + ': ' + e.message } };
  const base = new Request('https://example.com/', { method: 'PUT', body: 'payload' });
  const derived = new Request(base, { headers: { 'x-b': '2' } });
  const state = [base.bodyUsed, base.body !== null && base.body.locked, derived.bodyUsed];
  return [state, await attempt(() => base.clone()), await attempt(() => base.text()), await attempt(() => new Request(base)), await derived.text()];
}`);
    expect(envelope.result).toStrictEqual([
      [true, true, false],
      'TypeError: This ReadableStream is currently locked to a reader,',
      'TypeError: Body has already been used. It can only be used once. Use tee() first if you need to read it twice.',
      'TypeError: Cannot reconstruct a Request with a used body.',
      'payload',
    ]);
  });

  test('a streamed body moves too, and reads through the new request; a locked one cannot move', async () => {
    const envelope = await run(`async () => {
  const stream = new ReadableStream({ start(c) { c.enqueue(new Uint8Array([104, 105])); c.close() } });
  const base = new Request('https://example.com/', { method: 'POST', body: stream });
  const derived = new Request(base);
  const locked = new Request('https://example.com/', { method: 'POST', body: 'x' });
  locked.body.getReader();
  let refused;
  try { new Request(locked) } catch (e) { refused = e.message }
  return [base.bodyUsed, stream.locked, await derived.text(), derived.bodyUsed, refused];
}`);
    expect(envelope.result).toStrictEqual([
      true,
      true,
      'hi',
      true,
      'The ReadableStream has been locked to a reader.',
    ]);
  });

  test("an init body replaces the input's and leaves it alone; body: null drops it (workerd)", async () => {
    const envelope = await run(`async () => {
  const make = () => new Request('https://example.com/', { method: 'POST', body: 'input' });
  const a = make();
  const replaced = new Request(a, { body: 'init' });
  const b = make();
  const dropped = new Request(b, { body: null });
  return [await replaced.text(), await a.text(), dropped.body, await b.text()];
}`);
    expect(envelope.result).toStrictEqual(['init', 'input', null, 'input']);
  });

  test('a GET or HEAD made from a request with a body fails once init names a method or body', async () => {
    const envelope = await run(`async () => {
  const base = new Request('https://example.com/', { method: 'POST', body: 'x' });
  try { new Request(base, { method: 'GET' }); return 'made' } catch (e) { return [e.message, base.bodyUsed] }
}`);
    expect(envelope.result).toStrictEqual(['Request with a GET or HEAD method cannot have a body.', false]);
  });

  test("clone() tees and does not take the body; a used request's clone() throws workerd's text", async () => {
    const envelope = await run(`async () => {
  const request = new Request('https://example.com/', { method: 'POST', body: 'both' });
  const copy = request.clone();
  const texts = [await request.text(), await copy.text()];
  try { request.clone(); return 'cloned' } catch (e) { return [texts, e.message] }
}`);
    expect(envelope.result).toStrictEqual([
      ['both', 'both'],
      'This ReadableStream is currently locked to a reader,',
    ]);
  });

  test("cf is a JSON copy of the init's, carried to derived requests and clones; fetcher is null", async () => {
    const envelope = await run(`async () => {
  const cf = { cacheTtl: 5, nested: { a: [1] } };
  const request = new Request('https://example.com/', { cf });
  cf.cacheTtl = 6;
  let bad;
  try { new Request('https://example.com/', { cf: 'x' }) } catch (e) { bad = e.message }
  return [request.cf, request.cf === request.cf, new Request(request).cf, request.clone().cf, typeof new Request('https://example.com/').cf, request.fetcher, new Response('', { cf: { a: 1 } }).cf, bad];
}`);
    expect(envelope.result).toStrictEqual([
      { cacheTtl: 5, nested: { a: [1] } },
      true,
      { cacheTtl: 5, nested: { a: [1] } },
      { cacheTtl: 5, nested: { a: [1] } },
      'undefined',
      null,
      { a: 1 },
      "Incorrect type for the 'cf' field on 'RequestInitializerDict': the provided value is not of type 'Object'.",
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

  test("a read body's stream is disturbed and locked, and cannot become another body", async () => {
    const envelope = await run(`async () => {
  const used = new Response('a');
  await used.text();
  const stream = used.body;
  const locked = new Response('b');
  locked.body.getReader();
  const out = [stream !== null, stream.locked, used.bodyUsed];
  for (const body of [stream, locked.body]) {
    try { new Response(body); out.push('accepted') } catch (e) { out.push(e.constructor.name + ': ' + e.message) }
  }
  return out;
}`);
    expect(envelope.result).toStrictEqual([
      true,
      true,
      true,
      'TypeError: This ReadableStream is disturbed (has already been read from), and cannot be used as a body.',
      'TypeError: This ReadableStream is locked to a reader, and cannot be used as a body.',
    ]);
  });

  test("Response.error()'s headers can change, as workerd's can; a redirect's cannot", async () => {
    const envelope = await run(`async () => {
  const error = Response.error();
  error.headers.set('x', '1');
  try { Response.redirect('https://example.com/').headers.set('x', '1') } catch (e) { return [[...error.headers], e.message] }
}`);
    expect(envelope.result).toStrictEqual([[['x', '1']], "Can't modify immutable headers."]);
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
  test("a Blob appended without a filename becomes a File named after the entry (workerd's rule)", async () => {
    const envelope = await run(`async () => {
  const form = new FormData();
  form.append('raw', new Blob(['x'], { type: 'text/plain' }));
  form.set('named', new Blob(['y']), 'given.txt');
  form.append('file', new File(['z'], 'own.txt'));
  return ['raw', 'named', 'file'].map((key) => { const file = form.get(key); return [file instanceof File, file.name, file.type] });
}`);
    expect(envelope.result).toStrictEqual([
      [true, 'raw', 'text/plain'],
      [true, 'given.txt', ''],
      [true, 'own.txt', ''],
    ]);
  });

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

  test("a multipart boundary is workerd's form: 32 random hex digits", async () => {
    const envelope = await run(`async () => {
  const form = new FormData();
  form.append('a', '1');
  const first = new Response(form);
  const boundary = first.headers.get('content-type').split('; boundary=')[1];
  const second = new Response(form).headers.get('content-type').split('; boundary=')[1];
  return [boundary, (await first.text()).startsWith('--' + boundary + '\\r\\n'), boundary === second];
}`);
    const [boundary, ...rest] = envelope.result as [string, boolean, boolean];
    expect(boundary).toMatch(/^[0-9a-f]{32}$/);
    expect(rest).toStrictEqual([true, false]);
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

test('Blob, File and FormData argument failures read as workerd reads them', async () => {
  const envelope = await sandbox.execute({
    code: `async () => {
      const t = (make) => { try { make(); return 'ok' } catch (error) { return error.message } }
      return [
        t(() => new Blob(5)), t(() => new Blob([], 5)), t(() => new File(['a'], 'a', 5)),
        t(() => new FormData('ignored')), t(() => new FormData().get()), t(() => new FormData().getAll()),
        t(() => new FormData().has()), t(() => new FormData().delete()),
      ]
    }`,
  });
  expect(envelope.result).toStrictEqual([
    "Failed to construct 'Blob': constructor parameter 1 is not of type 'Array'.",
    "Failed to construct 'Blob': constructor parameter 2 is not of type 'Options'.",
    "Failed to construct 'File': constructor parameter 3 is not of type 'Options'.",
    'ok',
    "Failed to execute 'get' on 'FormData': parameter 1 is not of type 'string'.",
    "Failed to execute 'getAll' on 'FormData': parameter 1 is not of type 'string'.",
    "Failed to execute 'has' on 'FormData': parameter 1 is not of type 'string'.",
    "Failed to execute 'delete' on 'FormData': parameter 1 is not of type 'string'.",
  ]);
});

test('Response.json and the json() body method keep working after a program replaces JSON', async () => {
  const envelope = await sandbox.execute({
    code: `async () => {
      JSON.parse = () => 'replaced'
      JSON.stringify = () => 'replaced'
      const response = Response.json({ a: [1, 2] })
      return [await response.clone().text(), await response.json()]
    }`,
  });
  // The envelope itself crosses with the codec's own JSON, bound before the program ran.
  expect(envelope.result).toStrictEqual(['{"a":[1,2]}', { a: [1, 2] }]);
});
