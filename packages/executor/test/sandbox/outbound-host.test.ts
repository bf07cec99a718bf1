/** The host half of outbound fetch: chooseOutbound's three states, measureRequest, native fetch against a real loopback server. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { OUTBOUND_DISABLED_MESSAGE, PAYLOAD_LIMIT, payloadTooLargeMessage } from '@supolka/codemode-protocol';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ClockSlot } from '../../src/sandbox/clock.ts';
import { chooseOutbound, isLinkLocal, measureRequest, nativeFetch } from '../../src/sandbox/fetch.ts';

let server: Server;
let base: string;
const seen: { method: string; url: string; body: string }[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', body });
      if (request.url === '/redirect') {
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
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

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

  test('stops after 20 redirects', async () => {
    await expect(nativeFetch(request('/loop'), new AbortController().signal)).rejects.toThrow(
      'Too many redirects: more than 20',
    );
  });

  test('decodes a compressed body', async () => {
    const response = await nativeFetch(request('/gzip'), new AbortController().signal);
    expect(new TextDecoder().decode(response.body ?? new Uint8Array())).toBe('compressed body');
    expect(response.headers.some(([name]) => name.toLowerCase() === 'content-encoding')).toBe(false);
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
