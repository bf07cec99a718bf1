/** fetch against the suite's loopback server: methods, headers, bodies, statuses, redirects, errors. */
import { defineArea } from '../src/case.ts';

export default defineArea('fetch', [
  {
    name: 'get-json',
    quick: true,
    code: `async () => {
  const response = await fetch('http://loopback.test/json');
  return { status: response.status, ok: response.ok, type: response.headers.get('content-type'), body: await response.json() };
}`,
  },
  {
    name: 'post-json',
    quick: true,
    code: `async () => {
  const response = await fetch('http://loopback.test/echo?source=test', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Request-Id': 'req-1' },
    body: JSON.stringify({ title: 'New issue', labels: ['bug'] }),
  });
  return await response.json();
}`,
  },
  {
    name: 'not-found',
    code: `async () => {
  const response = await fetch('http://loopback.test/users/99');
  return { status: response.status, ok: response.ok, statusText: response.statusText, body: await response.json() };
}`,
  },
  {
    name: 'server-error-status-text',
    code: `async () => {
  const response = await fetch('http://loopback.test/status/503?text=Try%20Later');
  return { status: response.status, statusText: response.statusText, body: await response.text() };
}`,
  },
  {
    name: 'redirect-followed',
    code: `async () => {
  const response = await fetch('http://loopback.test/redirect/302?to=/json');
  return { status: response.status, redirected: response.redirected, url: response.url, body: await response.json() };
}`,
  },
  {
    name: 'redirect-manual',
    code: `async () => {
  const response = await fetch('http://loopback.test/redirect/301?to=/json', { redirect: 'manual' });
  return { status: response.status, type: response.type, location: response.headers.get('location'), redirected: response.redirected };
}`,
  },
  {
    name: 'redirect-error-mode',
    code: `async () => {
  try { await fetch('http://loopback.test/redirect/302', { redirect: 'error' }); return 'followed'; }
  catch (e) { return e.name + ': ' + e.message; }
}`,
  },
  {
    name: 'redirect-chain',
    code: `async () => {
  const response = await fetch('http://loopback.test/chain/5');
  return { status: response.status, url: response.url, redirected: response.redirected };
}`,
  },
  {
    name: 'redirect-loop',
    code: `async () => {
  try { await fetch('http://loopback.test/loop'); return 'followed'; } catch (e) { return e.name + ': ' + e.message; }
}`,
  },
  {
    name: 'see-other-becomes-get',
    code: `async () => {
  const response = await fetch('http://loopback.test/redirect/303?to=/echo', { method: 'POST', body: 'payload' });
  const echo = await response.json();
  return { method: echo.method, body: echo.body, url: response.url };
}`,
  },
  {
    name: 'temporary-redirect-keeps-post',
    code: `async () => {
  const response = await fetch('http://loopback.test/redirect/307?to=/echo', { method: 'POST', body: 'payload', headers: { 'content-type': 'text/plain' } });
  const echo = await response.json();
  return { method: echo.method, body: echo.body };
}`,
  },
  {
    name: 'connection-reset',
    code: `async () => {
  try { await fetch('http://loopback.test/destroy'); return 'fetched'; } catch (e) { return { name: e.name, message: e.message }; }
}`,
  },
  {
    name: 'connection-refused',
    code: `async () => {
  try { await fetch('http://127.0.0.1:1/'); return 'fetched'; } catch (e) { return { name: e.name, message: e.message }; }
}`,
  },
  {
    name: 'put-and-delete',
    code: `async () => {
  const put = await (await fetch('http://loopback.test/echo/item/1', { method: 'PUT', body: 'v2' })).json();
  const del = await fetch('http://loopback.test/users/2', { method: 'DELETE' });
  return { put: [put.method, put.path, put.body], deleteStatus: del.status, deleteBody: await del.text() };
}`,
  },
  {
    name: 'urlencoded-post',
    code: `async () => {
  const echo = await (await fetch('http://loopback.test/echo', { method: 'POST', body: new URLSearchParams({ q: 'a b', n: '1' }) })).json();
  return { type: echo.headers['content-type'], body: echo.body };
}`,
  },
  {
    name: 'form-data-post',
    code: `async () => {
  const form = new FormData();
  form.append('title', 'Report');
  form.append('file', new Blob(['a,b\\n1,2'], { type: 'text/csv' }), 'data.csv');
  const response = await fetch('http://loopback.test/form-echo', { method: 'POST', body: form });
  return await response.json();
}`,
  },
  {
    name: 'multipart-boundary-shape',
    code: `async () => {
  const form = new FormData();
  form.append('a', '1');
  const echo = await (await fetch('http://loopback.test/echo', { method: 'POST', body: form })).json();
  const [type, boundary] = echo.headers['content-type'].split('; boundary=');
  return { type, boundaryLength: boundary.length, bodyStartsWithBoundary: echo.body.startsWith('--' + boundary) };
}`,
  },
  {
    name: 'no-content',
    code: `async () => {
  const response = await fetch('http://loopback.test/empty');
  return { status: response.status, body: await response.text(), hasBody: response.body !== null };
}`,
  },
  {
    name: 'gzip-decoded',
    code: `async () => {
  const response = await fetch('http://loopback.test/gzip');
  return { encoding: response.headers.get('content-encoding'), body: await response.json() };
}`,
  },
  {
    name: 'binary-response',
    code: `async () => {
  const response = await fetch('http://loopback.test/bytes');
  const bytes = new Uint8Array(await response.arrayBuffer());
  return { type: response.headers.get('content-type'), length: bytes.length, bytes: Array.from(bytes) };
}`,
  },
  {
    name: 'request-object',
    code: `async () => {
  const request = new Request('http://loopback.test/echo', { method: 'PATCH', headers: { 'x-mode': 'object' }, body: 'patched' });
  const echo = await (await fetch(request)).json();
  return [echo.method, echo.headers['x-mode'], echo.body];
}`,
  },
  {
    name: 'parallel-with-tools',
    tools: ['github'],
    code: `async () => {
  const issues = await github.listIssues({ repo: 'acme/app', state: 'open' });
  const users = await Promise.all([1, 2, 3].map((id) => fetch('http://loopback.test/users/' + id).then((r) => r.json())));
  return issues.map((issue, i) => issue.title + ' -> ' + (users[i % users.length].name));
}`,
  },
  {
    name: 'invalid-url',
    code: `async () => {
  const out = [];
  for (const url of ['/relative', 'not a url', 'ftp://example.com/file', 'http://']) {
    try { await fetch(url); out.push(url + ': fetched'); } catch (e) { out.push(url + ': ' + e.name + ': ' + e.message); }
  }
  return out;
}`,
  },
  {
    name: 'default-request-headers',
    code: `async () => {
  const echo = await (await fetch('http://loopback.test/echo/all')).json();
  return echo.headers;
}`,
  },
  {
    name: 'head-request',
    code: `async () => {
  const response = await fetch('http://loopback.test/text', { method: 'HEAD' });
  return { status: response.status, body: await response.text(), type: response.headers.get('content-type') };
}`,
  },
  {
    name: 'utf8-text-body',
    code: `async () => {
  const response = await fetch('http://loopback.test/utf8');
  return await response.text();
}`,
  },
  {
    name: 'create-then-read-back',
    code: `async () => {
  const created = await fetch('http://loopback.test/users', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Katherine Johnson' }) });
  const body = await created.json();
  console.log('created', created.status, body.id);
  const list = await (await fetch('http://loopback.test/users')).json();
  return { created: body, count: list.length };
}`,
  },
  {
    name: 'response-body-reuse',
    code: `async () => {
  const response = await fetch('http://loopback.test/json');
  await response.json();
  try { await response.text(); return 'read twice'; } catch (e) { return e.name + ': ' + e.message; }
}`,
  },
  {
    name: 'malformed-json-response',
    code: `async () => {
  const response = await fetch('http://loopback.test/malformed');
  try { return await response.json(); } catch (e) { return e.name + ': ' + e.message; }
}`,
  },
]);
