/**
 * fetch from a program in each outbound state, against a real loopback HTTP server: disabled,
 * proxied through the caller (the clock paused), and native; request and abort semantics.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OUTBOUND_DISABLED_MESSAGE } from '@supolka/codemode-protocol';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { OutboundFunction } from '../../src/sandbox/fetch.ts';
import { useSandbox } from '../helpers.ts';

const sandbox = useSandbox();
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      if (request.url === '/slow') {
        setTimeout(() => response.end('slow'), 400);
        return;
      }
      if (request.url === '/moved') {
        response.writeHead(301, { location: '/json' }).end();
        return;
      }
      if (request.url === '/json') {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true }));
        return;
      }
      response
        .writeHead(202, 'Accepted', { 'x-method': request.method ?? '', 'content-type': 'text/plain' })
        .end(`${request.method} ${request.url} ${request.headers['x-custom'] ?? ''} ${body}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('disabled (no outbound key, or null)', () => {
  test('fetch rejects with a TypeError carrying the refusal', async () => {
    for (const request of [{}, { outbound: null }]) {
      const envelope = await sandbox.execute({
        ...request,
        code: `async () => { try { await fetch(${JSON.stringify(`${base}/x`)}) } catch (e) { return [e.constructor.name, e.message] } }`,
      });
      expect(envelope.result).toStrictEqual(['TypeError', OUTBOUND_DISABLED_MESSAGE]);
    }
  });
});

describe('native (outbound: undefined, written explicitly)', () => {
  test('method, headers, body, status and the response body', async () => {
    const envelope = await sandbox.execute({
      outbound: undefined,
      allowLoopback: true,
      code: `async () => {
  const response = await fetch(${JSON.stringify(`${base}/echo?q=1`)}, { method: 'POST', headers: { 'x-custom': 'yes' }, body: 'payload' });
  return [response.status, response.statusText, response.ok, response.headers.get('x-method'), await response.text(), response.url, response.redirected];
}`,
    });
    expect(envelope.result).toStrictEqual([
      202,
      'Accepted',
      true,
      'POST',
      'POST /echo?q=1 yes payload',
      `${base}/echo?q=1`,
      false,
    ]);
  });

  test('redirects are followed and reported', async () => {
    const envelope = await sandbox.execute({
      outbound: undefined,
      allowLoopback: true,
      code: `async () => { const r = await fetch(${JSON.stringify(`${base}/moved`)}); return [r.redirected, await r.json()] }`,
    });
    expect(envelope.result).toStrictEqual([true, { ok: true }]);
  });

  test("a fetched response is of type 'default' with immutable headers, as workerd's", async () => {
    const envelope = await sandbox.execute({
      outbound: undefined,
      allowLoopback: true,
      code: `async () => {
  const response = await fetch(${JSON.stringify(`${base}/json`)});
  let mutated;
  try { response.headers.set('x', '1'); mutated = 'mutated' } catch (e) { mutated = e.message }
  return [response.type, response.clone().type, mutated];
}`,
    });
    expect(envelope.result).toStrictEqual(['default', 'default', "Can't modify immutable headers."]);
  });

  test("a failed connection rejects with workerd's plain Error", async () => {
    const envelope = await sandbox.execute({
      outbound: undefined,
      allowLoopback: true,
      code: `async () => { try { await fetch('http://127.0.0.1:1/') } catch (e) { return [e.constructor.name, e.name, e.message] } }`,
    });
    expect(envelope.result).toStrictEqual(['Error', 'Error', 'Network connection lost.']);
  });

  test('its latency counts against the run bound', async () => {
    const envelope = await sandbox.execute({
      outbound: undefined,
      allowLoopback: true,
      timeout: 150,
      code: `async () => (await fetch(${JSON.stringify(`${base}/slow`)})).text()`,
    });
    expect(envelope.code).toBe('TIMEOUT');
  });

  test('link-local addresses are refused', async () => {
    const envelope = await sandbox.execute({
      outbound: undefined,
      allowLoopback: true,
      code: `async () => { try { await fetch('http://169.254.169.254/latest/meta-data') } catch (e) { return e.message } }`,
    });
    expect(envelope.result).toBe(
      "Outbound requests to link-local addresses are refused (169.254.169.254); the executor's allowLinkLocal option permits them.",
    );
  });
});

describe('proxied (outbound is a function of the caller)', () => {
  test('the caller receives the wire request and its answer becomes the Response; the clock pauses', async () => {
    const seen: unknown[] = [];
    const outbound: OutboundFunction = async (request) => {
      seen.push({
        method: request.method,
        url: request.url,
        body: new TextDecoder().decode(request.body ?? new Uint8Array()),
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      return {
        status: 201,
        statusText: 'Created',
        headers: [['x-proxied', 'yes']],
        body: new TextEncoder().encode('from the caller'),
      };
    };
    const envelope = await sandbox.execute({
      outbound,
      timeout: 150,
      code: `async () => { const r = await fetch('https://api.example.com/items', { method: 'PUT', body: 'item' }); return [r.status, r.headers.get('x-proxied'), await r.text()] }`,
    });
    expect(envelope).toStrictEqual({ result: [201, 'yes', 'from the caller'], logs: [] });
    expect(seen).toStrictEqual([{ method: 'PUT', url: 'https://api.example.com/items', body: 'item' }]);
  });

  test('requests in flight are bounded in number and bytes, as tool calls are', async () => {
    let reached = 0;
    const parked: OutboundFunction = (_request, { signal }) => {
      reached++;
      return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    };
    const count = await sandbox.execute({
      outbound: parked,
      code: `async () => {
        for (let i = 0; i < 256; i++) fetch('https://example.com/' + i).catch(() => {})
        try { await fetch('https://example.com/one-too-many'); return 'not refused' } catch (e) { return [e.name, e.message] }
      }`,
    });
    expect(count.result).toStrictEqual([
      'TypeError',
      'Too many fetch requests are in flight: one execution may have at most 256 at once.',
    ]);
    expect(reached).toBe(256);
    const bytes = await sandbox.execute({
      outbound: parked,
      code: `async () => {
        const body = new Uint8Array(20 * 1024 * 1024)
        fetch('https://example.com/a', { method: 'POST', body }).catch(() => {})
        try { await fetch('https://example.com/b', { method: 'POST', body }); return 'not refused' } catch (e) { return e.message }
      }`,
    });
    expect(bytes.result).toMatch(/^The set of fetch requests in flight is \d+ bytes/);
  });

  test('a thrown caller answer is a TypeError with its text; a broken answer names what is wrong', async () => {
    const failing = await sandbox.execute({
      outbound: () => {
        throw new Error('upstream unreachable');
      },
      code: `async () => { try { await fetch('https://x.example/') } catch (e) { return [e.constructor.name, e.message] } }`,
    });
    expect(failing.result).toStrictEqual(['TypeError', 'upstream unreachable']);
    const broken = await sandbox.execute({
      outbound: async () => ({ status: 'fine' }) as never,
      code: `async () => { try { await fetch('https://x.example/') } catch (e) { return e.message } }`,
    });
    expect(broken.result).toMatch(/^Invalid outbound response: status must be a number/);
  });

  test('an aborted signal rejects at once with its reason, and the caller sees the abort', async () => {
    let aborted: boolean | undefined;
    const envelope = await sandbox.execute({
      outbound: (_request, { signal }) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => {
            aborted = true;
            reject(new Error('aborted'));
          });
        }),
      code: `async () => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error('user gave up')), 10);
  try { await fetch('https://x.example/', { signal: controller.signal }) } catch (e) { return e.message }
}`,
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(envelope.result).toBe('user gave up');
    expect(aborted).toBe(true);
  });
});

describe('fetch arguments', () => {
  test('invalid URLs, schemes and GET bodies fail as workerd fails them', async () => {
    const envelope = await sandbox.execute({
      outbound: undefined,
      allowLoopback: true,
      code: `async () => {
  const out = [];
  for (const args of [['/relative'], ['ftp://x/'], ['http://x/', { method: 'GET', body: 'a' }], ['http://x/', { method: 'BAD METHOD' }]]) {
    try { await fetch(...args) } catch (e) { out.push(e.constructor.name + ': ' + e.message) }
  }
  try { await fetch('http://x/', { signal: AbortSignal.abort() }) } catch (e) { out.push(e.name) }
  return out;
}`,
    });
    expect(envelope.result).toStrictEqual([
      'TypeError: Invalid URL: /relative',
      'TypeError: Fetch API cannot load: ftp://x/',
      'TypeError: Request with a GET or HEAD method cannot have a body.',
      'TypeError: Invalid HTTP method string: BAD METHOD',
      'AbortError',
    ]);
  });

  test('Request and Response.redirect', async () => {
    const envelope = await sandbox.execute({
      code: `async () => {
  const request = new Request('https://example.com/a?b=1', { method: 'post', headers: { 'x-a': '1' }, body: JSON.stringify({ n: 1 }) });
  const copy = new Request(request, { headers: { 'x-b': '2' } });
  const redirect = Response.redirect('https://example.com/next', 307);
  let bad;
  try { Response.redirect('https://example.com/', 200) } catch (e) { bad = e.message }
  return [request.method, request.url, copy.headers.get('x-a'), copy.headers.get('x-b'), await copy.json(), redirect.status, redirect.headers.get('location'), bad];
}`,
    });
    expect(envelope.result).toStrictEqual([
      'POST',
      'https://example.com/a?b=1',
      null,
      '2',
      { n: 1 },
      307,
      'https://example.com/next',
      '200 is not a redirect status code. It must be one of: 301, 302, 303, 307, or 308.',
    ]);
  });
});
