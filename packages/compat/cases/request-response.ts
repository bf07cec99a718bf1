/** Request and Response: construction rules, static constructors, the body methods, clone, bodyUsed. */
import { defineArea } from '../src/case.ts';

export default defineArea('request-response', [
  {
    name: 'text-response',
    quick: true,
    code: `async () => {
  const r = new Response('hello');
  return { status: r.status, statusText: r.statusText, ok: r.ok, type: r.type, url: r.url, redirected: r.redirected, contentType: r.headers.get('content-type'), body: await r.text() };
}`,
  },
  {
    name: 'response-json-static',
    quick: true,
    code: `async () => {
  const r = Response.json({ ok: true, items: [1, 2] }, { status: 201, headers: { 'x-a': '1' } });
  return { status: r.status, contentType: r.headers.get('content-type'), xa: r.headers.get('x-a'), body: await r.json() };
}`,
  },
  {
    name: 'status-range',
    code: `async () => [99, 100, 101, 199, 200, 299, 599, 600].map((status) => {
  try { return status + ': ' + new Response(null, { status }).status; } catch (e) { return status + ': ' + e.name + ': ' + e.message; }
})`,
  },
  {
    name: 'null-body-status',
    code: `async () => [204, 205, 304].map((status) => {
  try { new Response('body', { status }); return status + ': accepted'; } catch (e) { return status + ': ' + e.name + ': ' + e.message; }
})`,
  },
  {
    name: 'redirect-static',
    code: `async () => {
  const r = Response.redirect('https://example.com/next', 307);
  const d = Response.redirect('https://example.com/');
  return { status: r.status, location: r.headers.get('location'), defaultStatus: d.status, body: await r.text() };
}`,
  },
  {
    name: 'error-static',
    code: `async () => {
  const r = Response.error();
  return { type: r.type, status: r.status, ok: r.ok, statusText: r.statusText, body: r.body };
}`,
  },
  {
    name: 'body-used-twice',
    quick: true,
    code: `async () => {
  const r = new Response('once');
  const before = r.bodyUsed;
  const first = await r.text();
  const after = r.bodyUsed;
  try { await r.text(); return { before, first, after, second: 'read again' }; }
  catch (e) { return { before, first, after, second: e.name + ': ' + e.message }; }
}`,
  },
  {
    name: 'clone-both-readable',
    code: `async () => {
  const r = new Response('shared body', { headers: { 'x-id': '7' } });
  const copy = r.clone();
  return { a: await r.text(), b: await copy.text(), header: copy.headers.get('x-id'), status: copy.status };
}`,
  },
  {
    name: 'array-buffer-and-bytes',
    code: `async () => {
  const ab = await new Response('abc').arrayBuffer();
  const bytes = await new Response(new Uint8Array([1, 2, 3])).bytes();
  return { abLength: ab.byteLength, isArrayBuffer: ab instanceof ArrayBuffer, bytes: Array.from(bytes), isUint8: bytes instanceof Uint8Array };
}`,
  },
  {
    name: 'blob-body',
    code: `async () => {
  const blob = await new Response('text body', { headers: { 'content-type': 'text/plain;charset=utf-8' } }).blob();
  return { size: blob.size, type: blob.type, text: await blob.text() };
}`,
  },
  {
    name: 'json-syntax-error',
    code: `async () => {
  try { await new Response('{bad').json(); return 'parsed'; } catch (e) { return e.name + ': ' + e.message; }
}`,
  },
  {
    name: 'request-methods',
    code: `async () => ['get', 'post', 'Put', 'delete', 'patch', 'options', 'head', 'PROPFIND'].map((method) => new Request('https://example.com/', { method }).method)`,
  },
  {
    name: 'request-get-with-body',
    code: `async () => {
  try { new Request('https://example.com/', { method: 'GET', body: 'x' }); return 'accepted'; } catch (e) { return e.name + ': ' + e.message; }
}`,
  },
  {
    name: 'request-properties',
    code: `async () => {
  const r = new Request('https://EXAMPLE.com/a/../b?x=1#frag', { method: 'POST', body: JSON.stringify({ a: 1 }), headers: { 'content-type': 'application/json' } });
  return { url: r.url, method: r.method, redirect: r.redirect, contentType: r.headers.get('content-type'), bodyUsed: r.bodyUsed, hasBody: r.body !== null, json: await r.json() };
}`,
  },
  {
    name: 'request-from-request',
    code: `async () => {
  const base = new Request('https://example.com/api', { method: 'PUT', headers: { 'x-a': '1' }, body: 'payload' });
  const derived = new Request(base, { headers: { 'x-b': '2' } });
  const clone = base.clone();
  return { method: derived.method, headers: [...derived.headers], body: await derived.text(), cloneBody: await clone.text() };
}`,
  },
  {
    name: 'url-search-params-body',
    code: `async () => {
  const r = new Request('https://example.com/form', { method: 'POST', body: new URLSearchParams({ a: '1', b: 'two words' }) });
  return { type: r.headers.get('content-type'), text: await r.text() };
}`,
  },
  {
    name: 'form-data-from-urlencoded',
    code: `async () => {
  const r = new Response('a=1&b=two&b=three', { headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  const form = await r.formData();
  return { a: form.get('a'), b: form.getAll('b') };
}`,
  },
  {
    name: 'custom-status-text',
    code: `async () => {
  const r = new Response('gone', { status: 410, statusText: 'Gone Fishing' });
  let bad;
  try { new Response('x', { statusText: 'bad\\n' }); bad = 'accepted'; } catch (e) { bad = e.name + ': ' + e.message; }
  return { status: r.status, statusText: r.statusText, ok: r.ok, bad };
}`,
  },
  {
    name: 'request-extra-fields',
    code: `async () => {
  const request = new Request('https://example.com/');
  return Object.fromEntries(['cf', 'fetcher', 'mode', 'credentials', 'cache', 'integrity', 'keepalive', 'signal', 'redirect'].map((key) => [key, key in request ? typeof request[key] : 'missing']));
}`,
  },
  {
    name: 'build-response-from-tool',
    tools: ['github'],
    code: `async () => {
  const issues = await github.listIssues({ repo: 'acme/app', state: 'open' });
  const response = new Response(JSON.stringify(issues.map((i) => i.number)), { headers: { 'content-type': 'application/json' } });
  return { ok: response.ok, numbers: await response.json() };
}`,
  },
]);
