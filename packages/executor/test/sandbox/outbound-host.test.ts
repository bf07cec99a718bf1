/** The host half of outbound fetch: chooseOutbound's three states, measureRequest, native fetch against a real loopback server. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deflateSync, gzipSync } from 'node:zlib';
import { OUTBOUND_DISABLED_MESSAGE, PAYLOAD_LIMIT, payloadTooLargeMessage } from '@supolka/codemode-protocol';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ClockSlot } from '../../src/sandbox/clock.ts';
import {
  chooseOutbound,
  hostSendRequest,
  isLinkLocal,
  MAX_REDIRECTS,
  measureRequest,
  NETWORK_LOST_MESSAGE,
  NetworkError,
  nativeFetch,
} from '../../src/sandbox/fetch.ts';

let server: Server;
let base: string;
/** A second server: another port is another origin. */
let other: Server;
let otherBase: string;
const seen: { method: string; url: string; body: string; rawHeaders: string[] }[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      seen.push({
        method: request.method ?? '',
        url: request.url ?? '',
        body,
        rawHeaders: request.rawHeaders,
      });
      const chain = /^\/chain\/(\d+)$/.exec(request.url ?? '');
      if (chain) {
        const left = Number(chain[1]);
        response.writeHead(302, { location: left > 0 ? `/chain/${left - 1}` : '/final' }).end();
      } else if (request.url === '/destroy') {
        request.socket.destroy();
      } else if (request.url === '/to-other') {
        response.writeHead(307, { location: `${otherBase}/echo` }).end();
      } else if (request.url === '/to-self') {
        response.writeHead(307, { location: '/echo' }).end();
      } else if (request.url === '/deflate') {
        response.writeHead(200, { 'content-encoding': 'deflate' }).end(deflateSync('raw'));
      } else if (request.url === '/redirect') {
        response.writeHead(302, { location: '/final' }).end();
      } else if (request.url === '/loop') {
        response.writeHead(301, { location: '/loop' }).end();
      } else if (request.url === '/see-other') {
        response.writeHead(303, { location: '/final' }).end();
      } else if (request.url === '/gzip') {
        response
          .writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/plain' })
          .end(gzipSync('compressed body'));
      } else if (request.url === '/huge') {
        response.writeHead(200);
        const chunk = Buffer.alloc(1024 * 1024, 120);
        let sent = 0;
        const write = () => {
          while (sent <= PAYLOAD_LIMIT + chunk.length) {
            sent += chunk.length;
            if (!response.write(chunk)) return response.once('drain', write);
          }
          response.end();
        };
        write();
      } else {
        response
          .writeHead(201, 'Made', { 'x-echo': request.method ?? '', 'set-cookie': ['a=1', 'b=2'] })
          .end(`${request.method} ${request.url} ${body}`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  other = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      seen.push({
        method: request.method ?? '',
        url: request.url ?? '',
        body: '',
        rawHeaders: request.rawHeaders,
      });
      response.end('other');
    });
  });
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  otherBase = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await new Promise<void>((resolve) => other.close(() => resolve()));
});

/** The header lines the last request to reach a server carried, names lowercased, in order. */
const lastHeaders = () => {
  const raw = seen.at(-1)?.rawHeaders ?? [];
  return raw.flatMap((text, index) => (index % 2 === 0 ? [[text.toLowerCase(), raw[index + 1]]] : []));
};

const request = (
  path: string,
  init: Partial<{
    method: string;
    body: Uint8Array | null;
    headers: [string, string][];
    redirect: 'follow' | 'manual' | 'error';
  }> = {},
) => ({
  method: init.method ?? 'GET',
  url: `${base}${path}`,
  headers: init.headers ?? [],
  body: init.body ?? null,
  ...(init.redirect ? { redirect: init.redirect } : {}),
});

describe('native fetch', () => {
  test('performs the request and answers status, text, headers in order and body', async () => {
    const response = await nativeFetch(
      request('/echo', { method: 'POST', body: new TextEncoder().encode('hi') }),
      new AbortController().signal,
    );
    expect(response.status).toBe(201);
    expect(response.statusText).toBe('Made');
    expect(response.headers.filter(([name]) => name === 'set-cookie')).toStrictEqual([
      ['set-cookie', 'a=1'],
      ['set-cookie', 'b=2'],
    ]);
    expect(new TextDecoder().decode(response.body ?? new Uint8Array())).toBe('POST /echo hi');
  });

  test('follows redirects, 303 turning into GET, and marks the response redirected', async () => {
    const response = await nativeFetch(
      request('/see-other', { method: 'POST', body: new Uint8Array([1]) }),
      new AbortController().signal,
    );
    expect(response.redirected).toBe(true);
    expect(new TextDecoder().decode(response.body ?? new Uint8Array())).toBe('GET /final ');
    const manual = await nativeFetch(
      request('/redirect', { redirect: 'manual' }),
      new AbortController().signal,
    );
    expect([manual.status, manual.headers.find(([name]) => name === 'location')?.[1]]).toStrictEqual([
      302,
      '/final',
    ]);
    await expect(
      nativeFetch(request('/redirect', { redirect: 'error' }), new AbortController().signal),
    ).rejects.toThrow(/redirected/);
  });

  test("follows 20 redirects; the 21st fails with workerd's text, listing every URL requested", async () => {
    const followed = await nativeFetch(request(`/chain/${MAX_REDIRECTS - 1}`), new AbortController().signal);
    expect([followed.status, followed.redirected]).toStrictEqual([201, true]);
    const loop = nativeFetch(request('/loop'), new AbortController().signal);
    await expect(loop).rejects.toThrow(TypeError);
    await expect(loop).rejects.toThrow(
      `Too many redirects.${Array.from({ length: MAX_REDIRECTS + 1 }, () => `${base}/loop`).join(', ')}`,
    );
  });

  test('a redirect to another origin drops Authorization; one to the same origin keeps it', async () => {
    const headers: [string, string][] = [
      ['authorization', 'Bearer secret'],
      ['x-kept', '1'],
    ];
    await nativeFetch(request('/to-self', { headers }), new AbortController().signal);
    expect(lastHeaders()).toContainEqual(['authorization', 'Bearer secret']);
    const response = await nativeFetch(request('/to-other', { headers }), new AbortController().signal);
    expect(new TextDecoder().decode(response.body ?? new Uint8Array())).toBe('other');
    expect(lastHeaders().map(([name]) => name)).toStrictEqual(['host', 'x-kept']);
  });

  test('a redirect that becomes GET drops the body and keeps Content-Type, as workerd does', async () => {
    await nativeFetch(
      request('/see-other', {
        method: 'POST',
        body: new TextEncoder().encode('payload'),
        headers: [['content-type', 'text/plain']],
      }),
      new AbortController().signal,
    );
    expect(seen.at(-1)?.method).toBe('GET');
    expect(lastHeaders().slice(1)).toStrictEqual([['content-type', 'text/plain']]);
  });

  test('decodes a gzip body and keeps its headers as they came; deflate is not decoded', async () => {
    const response = await nativeFetch(request('/gzip'), new AbortController().signal);
    expect(new TextDecoder().decode(response.body ?? new Uint8Array())).toBe('compressed body');
    expect(response.headers).toContainEqual(['content-encoding', 'gzip']);
    const deflated = await nativeFetch(request('/deflate'), new AbortController().signal);
    expect(Buffer.from(deflated.body ?? new Uint8Array()).equals(deflateSync('raw'))).toBe(true);
  });

  test("sends Host, the program's headers and the body's Content-Length, and nothing of Node's own", async () => {
    await nativeFetch(request('/echo', { headers: [['X-Custom', 'a']] }), new AbortController().signal);
    expect(lastHeaders()).toStrictEqual([
      ['host', new URL(base).host],
      ['x-custom', 'a'],
    ]);
    const body = new TextEncoder().encode('{"a":1}');
    for (const method of ['POST', 'DELETE']) {
      await nativeFetch(
        request('/echo', { method, body, headers: [['content-length', '99']] }),
        new AbortController().signal,
      );
      expect(seen.at(-1)?.body).toBe('{"a":1}');
      expect(lastHeaders().slice(1)).toStrictEqual([['content-length', '7']]);
    }
    await nativeFetch(request('/echo', { method: 'POST' }), new AbortController().signal);
    expect(lastHeaders().slice(1)).toStrictEqual([['content-length', '0']]);
  });

  test('repeated names go as repeated lines; a value past Latin-1 goes as UTF-8', async () => {
    await nativeFetch(
      request('/echo', {
        headers: [
          ['x-a', '1'],
          ['x-a', '2'],
          ['x-price', '5 €'],
          ['x-latin', 'é'],
        ],
      }),
      new AbortController().signal,
    );
    const lines = lastHeaders().slice(1);
    expect(lines.slice(0, 2)).toStrictEqual([
      ['x-a', '1'],
      ['x-a', '2'],
    ]);
    // Node reads header bytes as Latin-1: the UTF-8 bytes of '€' arrive as three characters.
    expect(Buffer.from(lines[2]?.[1] ?? '', 'latin1').toString('utf8')).toBe('5 €');
    expect(lines[3]).toStrictEqual(['x-latin', 'é']);
  });

  test("a header name Node cannot send (workerd would) fails the request with Node's TypeError", async () => {
    const refused = nativeFetch(request('/echo', { headers: [['é', 'x']] }), new AbortController().signal);
    await expect(refused).rejects.toThrow(TypeError);
    await expect(refused).rejects.toThrow('Header name must be a valid HTTP token');
  });

  test("a connection that fails is a NetworkError with workerd's text", async () => {
    for (const url of [`${base}/destroy`, 'http://127.0.0.1:1/']) {
      const failed = nativeFetch(
        { method: 'GET', url, headers: [], body: null },
        new AbortController().signal,
      );
      await expect(failed).rejects.toBeInstanceOf(NetworkError);
      await expect(failed).rejects.toThrow(NETWORK_LOST_MESSAGE);
    }
  });

  test('hostSendRequest answers a network failure as an Error frame, other failures as TypeError frames', async () => {
    const host = hostSendRequest(
      () => (wire) => nativeFetch(wire, new AbortController().signal),
      () => true,
    );
    expect(await host.send('send', 1, request('/destroy'))).toStrictEqual([
      'thrown',
      'Network connection lost.',
      'Error',
    ]);
    expect(
      await host.send('send', 2, { method: 'GET', url: 'http://169.254.169.254/', headers: [], body: null }),
    ).toStrictEqual(['thrown', 'Outbound requests to link-local addresses are refused (169.254.169.254).']);
  });

  test('stops reading past PAYLOAD_LIMIT with a clear error', async () => {
    await expect(nativeFetch(request('/huge'), new AbortController().signal)).rejects.toThrow(
      /^The outbound response is \d+ bytes, past the 33554432-byte payload limit\.$/,
    );
  });

  test('never reaches link-local addresses unless allowed', async () => {
    expect(isLinkLocal('169.254.169.254')).toBe(true);
    expect(isLinkLocal('fe80::1')).toBe(true);
    expect(isLinkLocal('::ffff:169.254.1.1')).toBe(true);
    expect(isLinkLocal('127.0.0.1')).toBe(false);
    await expect(
      nativeFetch(
        { method: 'GET', url: 'http://169.254.169.254/latest/meta-data', headers: [], body: null },
        new AbortController().signal,
      ),
    ).rejects.toThrow('Outbound requests to link-local addresses are refused (169.254.169.254).');
  });

  test('an aborted signal cancels the host request', async () => {
    const controller = new AbortController();
    const pending = nativeFetch(request('/huge'), controller.signal);
    controller.abort();
    await expect(pending).rejects.toThrow();
  });
});

describe('chooseOutbound', () => {
  test('null refuses without reading the request', async () => {
    const perform = chooseOutbound(null, new ClockSlot());
    const unreadable = new Proxy(
      {},
      {
        get: () => {
          throw new Error('read');
        },
      },
    ) as never;
    await expect(perform(unreadable, new AbortController().signal)).rejects.toThrow(
      OUTBOUND_DISABLED_MESSAGE,
    );
  });

  test('a caller function is called with the request and a signal, and its answer validated', async () => {
    const perform = chooseOutbound(
      async (wire, init) => ({
        status: 200,
        statusText: 'OK',
        headers: [['x', wire.method]],
        body: null,
        url: String(init.signal.aborted),
      }),
      new ClockSlot(),
    );
    expect(await perform(request('/x', { method: 'PUT' }), new AbortController().signal)).toStrictEqual({
      status: 200,
      statusText: 'OK',
      headers: [['x', 'PUT']],
      body: null,
      url: 'false',
    });
    const broken = chooseOutbound(async () => ({ status: 'nope' }) as never, new ClockSlot());
    await expect(broken(request('/x'), new AbortController().signal)).rejects.toThrow(
      'Invalid outbound response: status must be a number',
    );
  });

  test('every state that performs a request measures it first', () => {
    const big = {
      method: 'POST',
      url: 'http://x/',
      headers: [['a', 'b']] as [string, string][],
      body: new Uint8Array(PAYLOAD_LIMIT),
    };
    expect(() => measureRequest(big)).toThrow(
      payloadTooLargeMessage('outbound request', PAYLOAD_LIMIT + 11, PAYLOAD_LIMIT),
    );
  });
});
