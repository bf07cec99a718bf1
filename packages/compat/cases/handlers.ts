/**
 * Retained fetch handlers: the program resolves to a handler, the run retains it, and the suite
 * invokes it with requests. What each invocation answers is compared field by field.
 */
import { defineArea } from '../src/case.ts';

const GET = (path: string) => ({ url: `https://app.example/${path}` });

export default defineArea('handlers', [
  {
    name: 'text-response',
    quick: true,
    invoke: [GET('')],
    code: `async () => ({ fetch: (request) => new Response('hello from the handler') })`,
  },
  {
    name: 'echo-request',
    quick: true,
    invoke: [
      {
        method: 'POST',
        url: 'https://app.example/items?x=1',
        headers: [
          ['content-type', 'text/plain'],
          ['x-user', 'ada'],
        ],
        body: 'payload',
      },
    ],
    code: `async () => ({
  async fetch(request) {
    return Response.json({ method: request.method, url: request.url, user: request.headers.get('x-user'), body: await request.text() });
  },
})`,
  },
  {
    name: 'bare-function-handler',
    invoke: [GET('a'), GET('b')],
    code: `async () => async (request) => new Response(new URL(request.url).pathname)`,
  },
  {
    name: 'router',
    invoke: [
      GET('users/1'),
      GET('users/2'),
      GET('health'),
      GET('nope'),
      { method: 'DELETE', url: 'https://app.example/users/1' },
    ],
    code: `async () => {
  const users = { 1: 'Ada', 2: 'Grace' };
  return {
    fetch(request) {
      const { pathname } = new URL(request.url);
      if (pathname === '/health') return new Response('ok');
      const match = pathname.match(/^\\/users\\/(\\d+)$/);
      if (match && request.method === 'GET') return Response.json({ id: Number(match[1]), name: users[match[1]] });
      if (match) return new Response('method not allowed', { status: 405, headers: { allow: 'GET' } });
      return new Response('not found', { status: 404, statusText: 'Not Found' });
    },
  };
}`,
  },
  {
    name: 'state-across-invocations',
    invoke: [GET('hit'), GET('hit'), GET('hit')],
    code: `async () => {
  let hits = 0;
  return { fetch: () => new Response('hit ' + ++hits) };
}`,
  },
  {
    name: 'handler-calls-tools',
    tools: ['github'],
    invoke: [GET('issues/1'), GET('issues/3')],
    code: `async () => ({
  async fetch(request) {
    const number = Number(new URL(request.url).pathname.split('/').pop());
    const issue = await github.getIssue({ number });
    return Response.json({ title: issue.title, state: issue.state });
  },
})`,
  },
  {
    name: 'handler-throws',
    invoke: [GET('boom'), GET('fine')],
    code: `async () => ({
  fetch(request) {
    if (request.url.endsWith('/boom')) throw new Error('handler exploded');
    return new Response('fine');
  },
})`,
  },
  {
    name: 'handler-rejects',
    invoke: [GET('')],
    code: `async () => ({ fetch: async () => { throw new TypeError('async failure'); } })`,
  },
  {
    name: 'returns-non-response',
    invoke: [GET('')],
    code: `async () => ({ fetch: () => 'just a string' })`,
  },
  {
    name: 'json-body',
    invoke: [
      {
        method: 'POST',
        url: 'https://app.example/sum',
        headers: [['content-type', 'application/json']],
        body: '{"values":[1,2,3.5]}',
      },
    ],
    code: `async () => ({
  async fetch(request) {
    const { values } = await request.json();
    return Response.json({ sum: values.reduce((a, b) => a + b, 0) }, { status: 201 });
  },
})`,
  },
  {
    name: 'streamed-response',
    invoke: [GET('stream')],
    code: `async () => ({
  fetch() {
    const encoder = new TextEncoder();
    const body = new ReadableStream({ start(c) { for (const part of ['a', 'b', 'c']) c.enqueue(encoder.encode(part)); c.close(); } });
    return new Response(body, { headers: { 'content-type': 'text/plain' } });
  },
})`,
  },
  {
    name: 'not-a-handler',
    invoke: [GET('')],
    code: `async () => ({ status: 'no handler here', count: 2 })`,
  },
  {
    name: 'handler-fetches-upstream',
    invoke: [GET('proxy')],
    code: `async () => ({
  async fetch() {
    const upstream = await fetch('http://loopback.test/json');
    const user = await upstream.json();
    return new Response('proxied ' + user.name, { headers: { 'x-upstream-status': String(upstream.status) } });
  },
})`,
  },
  {
    name: 'redirect-response',
    invoke: [GET('old')],
    code: `async () => ({ fetch: () => Response.redirect('https://app.example/new', 301) })`,
  },
  {
    name: 'form-body',
    invoke: [
      {
        method: 'POST',
        url: 'https://app.example/form',
        headers: [['content-type', 'application/x-www-form-urlencoded']],
        body: 'name=Ada&lang=en&lang=fr',
      },
    ],
    code: `async () => ({
  async fetch(request) {
    const form = await request.formData();
    return Response.json({ name: form.get('name'), langs: form.getAll('lang') });
  },
})`,
  },
  {
    name: 'run-logs-kept-invocation-logs-dropped',
    invoke: [GET('')],
    code: `async () => {
  console.log('set up during the run');
  return { fetch: () => { console.log('inside the invocation'); return new Response('ok'); } };
}`,
  },
  {
    name: 'headers-and-status-text',
    invoke: [GET('')],
    code: `async () => ({
  fetch: () => new Response('teapot', { status: 418, statusText: "I'm a teapot", headers: [['x-b', '2'], ['X-A', '1'], ['set-cookie', 'a=1'], ['set-cookie', 'b=2']] }),
})`,
  },
]);
