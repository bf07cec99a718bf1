/**
 * The fetch area's runtime pieces: the form bodies' codecs (packages/runtime/src/fetch/form-bodies.ts),
 * which the first body made from a FormData or read with formData() loads, and the data: URL
 * processor (fetch/data-url.ts), which the first data: URL fetched loads. Both are made of the
 * runtime's own modules and read FormData, File, the UTF-8 codec and the primordials from the
 * snapshot: what a program replaced before its first use does not reach them.
 */
import { MIN_MEMORY_LIMIT } from '@supolka/codemode-protocol';
import { RUNTIME_PIECES } from '@supolka/codemode-runtime/pieces';
import { expect, test } from 'vitest';
import { GLOBAL_SCOPE_MESSAGE } from '../../../runtime/src/internals.ts';
import { pieceSource } from '../../src/sandbox/setup/pieces.ts';
import { resultOf, useSandbox } from '../helpers.ts';
import { firstUseOnAnExhaustedStack } from './piece-probes.ts';

const sandbox = useSandbox();
const run = (code: string) => resultOf(sandbox, code);

/** A FormData serialized as multipart and parsed back, a urlencoded body parsed, and a data: URL fetched. */
const USE = `(async () => {
  const form = new FormData();
  form.append('name', 'a\\nb');
  form.append('file', new File(['bytes'], 'f.txt', { type: 'text/plain' }));
  const request = new Request('https://example.com/', { method: 'POST', body: form });
  const boundary = /boundary=([0-9a-f]{32})$/.test(request.headers.get('content-type'));
  const parsed = await request.formData();
  const file = parsed.get('file');
  const encoded = await new Response('a=1&b=%C3%A9+x', { headers: { 'content-type': 'application/x-www-form-urlencoded' } }).formData();
  const data = await fetch('data:text/plain;base64,aGk=');
  return {
    boundary, name: parsed.get('name'), file: [file instanceof File, file.name, file.type, await file.text()],
    encoded: [...encoded], data: [data.headers.get('content-type'), await data.text()],
  };
})()`;

const USED = {
  boundary: true,
  name: 'a\r\nb',
  file: [true, 'f.txt', 'text/plain', 'bytes'],
  encoded: [
    ['a', '1'],
    ['b', 'é x'],
  ],
  data: ['text/plain', 'hi'],
};

test('the host keeps both as pieces, and a program that uses them gets the same answers', async () => {
  expect(pieceSource('formBodies')).toBe(RUNTIME_PIECES.formBodies);
  expect(pieceSource('dataUrl')).toBe(RUNTIME_PIECES.dataUrl);
  const result = await run(`async () => {
    const before = Reflect.ownKeys(globalThis).map(String);
    const used = await ${USE};
    return { used, again: await ${USE}, same: JSON.stringify(before) === JSON.stringify(Reflect.ownKeys(globalThis).map(String)) };
  }`);
  expect(result).toStrictEqual({ used: USED, again: USED, same: true });
});

test('they load at the smallest memory limit accepted', async () => {
  const envelope = await sandbox.execute({ memoryLimit: MIN_MEMORY_LIMIT, code: `async () => ${USE}` });
  expect(envelope).toStrictEqual({ result: USED, logs: [] });
});

test("a module's top level cannot reach them (bodies and fetch are refused there), and its run can", async () => {
  const envelope = await sandbox.execute({
    modules: {
      'top.js': `const refused = (make) => { try { make(); return 'made'; } catch (error) { return error.message; } };
export const body = refused(() => new Response(new FormData()));
export const fetched = await fetch('data:,x').then(() => 'fetched', (error) => error.message);`,
    },
    code: `import { body, fetched } from './top.js'
async () => ({ body, fetched, used: await ${USE} })`,
  });
  expect(envelope).toStrictEqual({
    result: { body: GLOBAL_SCOPE_MESSAGE, fetched: GLOBAL_SCOPE_MESSAGE, used: USED },
    logs: [],
  });
});

test("a program that replaced the globals and Object's functions first changes nothing, and none is called", async () => {
  const result = await run(`async () => {
    const called = [];
    const replace = (owner, key, name) => { owner[key] = function () { called.push(name); throw new Error('replaced ' + name); }; };
    const { FormData: OwnFormData, File: OwnFile } = globalThis;
    for (const name of ['FormData', 'File', 'Blob', 'TextEncoder', 'TextDecoder', 'TypeError', 'Uint8Array', 'Promise'])
      replace(globalThis, name, name);
    replace(JSON, 'parse', 'JSON.parse');
    replace(Object, 'keys', 'Object.keys');
    replace(Object, 'create', 'Object.create');
    replace(Object, 'defineProperty', 'Object.defineProperty');
    Object.freeze(Object);
    Object.freeze(Object.prototype);
    const form = new OwnFormData();
    form.append('file', new OwnFile(['x'], 'x.bin'));
    const parsed = await new Response(form).formData();
    const data = await (await fetch('data:,%41')).text();
    return { file: parsed.get('file') instanceof OwnFile, data, called };
  }`);
  expect(result).toStrictEqual({ file: true, data: 'A', called: [] });
});

test('a stack overflow in the middle of either first load leaves it loadable', async () => {
  const result = (await run(`async () => {
    const fetches = [];
    const form = new FormData();
    form.append('a', 'b');
    ${firstUseOnAnExhaustedStack(
      'new Response(form)',
      "if (fetches.length < 400) fetches.push(fetch('data:,x').then(() => 'fetched', (inner) => inner.name + ': ' + inner.message));",
    )}
    // With no stack left, a regular expression fails to compile as a SyntaxError, and the URL
    // parser reads that as an invalid URL: both happen in the snapshot's code as they did before.
    const kind = (outcome) => /^SyntaxError: Invalid regular expression: .*: Stack overflow$/s.test(outcome)
      ? 'SyntaxError: stack overflow' : outcome;
    const kinds = (list) => [...new Set(list.map(kind))].sort();
    return { outcomes: kinds([...outcomes]), fetched: kinds(await Promise.all(fetches)), after: await ${USE} };
  }`)) as { outcomes: string[]; fetched: string[]; after: unknown };
  const overflow = 'RangeError: Maximum call stack size exceeded';
  expect(result.outcomes).toContain(overflow);
  expect(result.outcomes).toContain('loaded');
  for (const outcome of result.outcomes)
    expect([overflow, 'SyntaxError: stack overflow', 'loaded']).toContain(outcome);
  expect(result.fetched).toContain(overflow);
  expect(result.fetched).toContain('fetched');
  for (const outcome of result.fetched)
    expect([overflow, 'SyntaxError: stack overflow', 'TypeError: Invalid URL: data:,x', 'fetched']).toContain(
      outcome,
    );
  expect(result.after).toStrictEqual(USED);
});
