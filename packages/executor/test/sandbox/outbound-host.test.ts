/** The host half of outbound fetch: chooseOutbound's three states, measureRequest, native fetch against a real loopback server. */
import { spawn } from 'node:child_process';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createNetServer, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { deflateSync, gzipSync } from 'node:zlib';
import {
  type HttpResponse,
  OUTBOUND_DISABLED_MESSAGE,
  PAYLOAD_LIMIT,
  payloadTooLargeMessage,
} from '@supolka/codemode-protocol';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ClockSlot } from '../../src/sandbox/bounds/clock.ts';
import {
  chooseOutbound,
  hostSendRequest,
  MAX_REDIRECTS,
  measureRequest,
  type NativeOptions,
  NETWORK_LOST_MESSAGE,
  NetworkError,
  nativeFetch,
} from '../../src/sandbox/fetch.ts';
import { outboundRefusedMessage, rangeOf } from '../../src/sandbox/outbound/address-policy.ts';
import { BodyBudget, bodyBudgetMessage } from '../../src/sandbox/outbound/body-budget.ts';
import { RESPONSE_HEAD_LIMIT, responseHeadMessage } from '../../src/sandbox/outbound/response-head.ts';

/** The test's servers listen on loopback, which native requests reach only when opted in. */
const loopbackFetch = (wire: Parameters<typeof nativeFetch>[0], signal: AbortSignal) =>
  nativeFetch(wire, signal, { allowLoopback: true });

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

/**
 * The frame one `send` answers, read as the runtime reads it: the answer is the frame's JSON when
 * short, else the request's id, and the frame is then taken with a `frame` call.
 */
async function sent(
  host: ReturnType<typeof hostSendRequest>,
  id: number,
  wire: Parameters<typeof nativeFetch>[0],
) {
  const answer = await host.send('send', id, wire);
  if (typeof answer === 'string') return JSON.parse(answer);
  expect(answer).toBe(id);
  return JSON.parse(host.send('frame', id) as string);
}

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
    const response = await loopbackFetch(
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
    const response = await loopbackFetch(
      request('/see-other', { method: 'POST', body: new Uint8Array([1]) }),
      new AbortController().signal,
    );
    expect(response.redirected).toBe(true);
    expect(new TextDecoder().decode(response.body ?? new Uint8Array())).toBe('GET /final ');
    const manual = await loopbackFetch(
      request('/redirect', { redirect: 'manual' }),
      new AbortController().signal,
    );
    expect([manual.status, manual.headers.find(([name]) => name === 'location')?.[1]]).toStrictEqual([
      302,
      '/final',
    ]);
    await expect(
      loopbackFetch(request('/redirect', { redirect: 'error' }), new AbortController().signal),
    ).rejects.toThrow(/redirected/);
  });

  test("follows 20 redirects; the 21st fails with workerd's text, listing every URL requested", async () => {
    const followed = await loopbackFetch(
      request(`/chain/${MAX_REDIRECTS - 1}`),
      new AbortController().signal,
    );
    expect([followed.status, followed.redirected]).toStrictEqual([201, true]);
    const loop = loopbackFetch(request('/loop'), new AbortController().signal);
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
    await loopbackFetch(request('/to-self', { headers }), new AbortController().signal);
    expect(lastHeaders()).toContainEqual(['authorization', 'Bearer secret']);
    const response = await loopbackFetch(request('/to-other', { headers }), new AbortController().signal);
    expect(new TextDecoder().decode(response.body ?? new Uint8Array())).toBe('other');
    expect(lastHeaders().map(([name]) => name)).toStrictEqual(['host', 'x-kept']);
  });

  test('a redirect that becomes GET drops the body and keeps Content-Type, as workerd does', async () => {
    await loopbackFetch(
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
    const response = await loopbackFetch(request('/gzip'), new AbortController().signal);
    expect(new TextDecoder().decode(response.body ?? new Uint8Array())).toBe('compressed body');
    expect(response.headers).toContainEqual(['content-encoding', 'gzip']);
    const deflated = await loopbackFetch(request('/deflate'), new AbortController().signal);
    expect(Buffer.from(deflated.body ?? new Uint8Array()).equals(deflateSync('raw'))).toBe(true);
  });

  test("sends Host, the program's headers and the body's Content-Length, and nothing of Node's own", async () => {
    await loopbackFetch(request('/echo', { headers: [['X-Custom', 'a']] }), new AbortController().signal);
    expect(lastHeaders()).toStrictEqual([
      ['host', new URL(base).host],
      ['x-custom', 'a'],
    ]);
    const body = new TextEncoder().encode('{"a":1}');
    for (const method of ['POST', 'DELETE']) {
      await loopbackFetch(
        request('/echo', { method, body, headers: [['content-length', '99']] }),
        new AbortController().signal,
      );
      expect(seen.at(-1)?.body).toBe('{"a":1}');
      expect(lastHeaders().slice(1)).toStrictEqual([['content-length', '7']]);
    }
    await loopbackFetch(request('/echo', { method: 'POST' }), new AbortController().signal);
    expect(lastHeaders().slice(1)).toStrictEqual([['content-length', '0']]);
  });

  test('repeated names go as repeated lines; a value past Latin-1 goes as UTF-8', async () => {
    await loopbackFetch(
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
    const refused = loopbackFetch(request('/echo', { headers: [['é', 'x']] }), new AbortController().signal);
    await expect(refused).rejects.toThrow(TypeError);
    await expect(refused).rejects.toThrow('Header name must be a valid HTTP token');
  });

  test("a connection that fails is a NetworkError with workerd's text", async () => {
    for (const url of [`${base}/destroy`, 'http://127.0.0.1:1/']) {
      const failed = loopbackFetch(
        { method: 'GET', url, headers: [], body: null },
        new AbortController().signal,
      );
      await expect(failed).rejects.toBeInstanceOf(NetworkError);
      await expect(failed).rejects.toThrow(NETWORK_LOST_MESSAGE);
    }
  });

  test('hostSendRequest answers a network failure as an Error frame, other failures as TypeError frames', async () => {
    const host = hostSendRequest(
      () => (wire) => loopbackFetch(wire, new AbortController().signal),
      () => true,
      new BodyBudget(PAYLOAD_LIMIT),
    );
    expect(await sent(host, 1, request('/destroy'))).toStrictEqual([
      'thrown',
      'Network connection lost.',
      'Error',
    ]);
    expect(
      await sent(host, 2, { method: 'GET', url: 'http://169.254.169.254/', headers: [], body: null }),
    ).toStrictEqual(['thrown', outboundRefusedMessage('link-local', '169.254.169.254')]);
  });

  test('hostSendRequest answers a body as its length, taken once; the budget holds it until then', async () => {
    const budget = new BodyBudget(20);
    const body = new TextEncoder().encode('sixteen bytes!!!');
    const host = hostSendRequest(
      () => chooseOutbound(() => ({ status: 200, statusText: 'OK', headers: [], body }), new ClockSlot()),
      () => true,
      budget,
    );
    const frame = (await sent(host, 1, request('/x'))) as [string, { body: unknown }];
    expect([frame[0], frame[1].body, budget.held]).toStrictEqual(['returned', 16, 16]);
    // A second body would pass the 20-byte budget while the first is still held.
    expect(await sent(host, 2, request('/x'))).toStrictEqual(['thrown', bodyBudgetMessage(32, 20)]);
    const copy = host.send('body', 1) as unknown as { copy(): Uint8Array };
    expect(new TextDecoder().decode(copy.copy())).toBe('sixteen bytes!!!');
    expect([host.send('body', 1), budget.held]).toStrictEqual([null, 0]);
    await host.send('send', 3, request('/x'));
    host.abortAll();
    expect([host.send('body', 3), budget.held]).toStrictEqual([null, 0]);
  });

  test("a body that is a view crosses as its own bytes, never its buffer's", async () => {
    // isolated-vm's ExternalCopy of a view copies the view's whole ArrayBuffer: a caller's
    // Buffer.from('small') would carry the host's 64 KiB Buffer pool (whatever else lives in it)
    // into the isolate, and a 5-byte view of a large buffer all of that buffer, past the budget.
    const pooled = Buffer.from('small');
    expect(pooled.buffer.byteLength).toBeGreaterThan(5);
    const budget = new BodyBudget(PAYLOAD_LIMIT);
    const host = hostSendRequest(
      () =>
        chooseOutbound(() => ({ status: 200, statusText: 'OK', headers: [], body: pooled }), new ClockSlot()),
      () => true,
      budget,
    );
    await host.send('send', 1, request('/x'));
    const taken = (host.send('body', 1) as unknown as { copy(): Uint8Array }).copy();
    expect([new TextDecoder().decode(taken), taken.byteOffset, taken.buffer.byteLength]).toStrictEqual([
      'small',
      0,
      5,
    ]);
  });

  test('hostSendRequest answers a short frame as its text, a long one as the id taken once, and the URL only when it differs', async () => {
    let answer: HttpResponse = { status: 200, statusText: 'OK', headers: [['a', 'b']], body: null };
    const host = hostSendRequest(
      () => chooseOutbound(() => answer, new ClockSlot()),
      () => true,
      new BodyBudget(PAYLOAD_LIMIT),
    );
    const wire = request('/x');
    const short = await host.send('send', 1, wire);
    expect(short).toBe(
      JSON.stringify(['returned', { status: 200, statusText: 'OK', headers: [['a', 'b']], body: null }]),
    );
    answer = { ...answer, headers: [['a', 'b'.repeat(2000)]], url: 'http://elsewhere.test/' };
    expect(await host.send('send', 2, wire)).toBe(2);
    const frame = JSON.parse(host.send('frame', 2) as string);
    expect([frame[1].headers[0][1].length, frame[1].url]).toStrictEqual([2000, 'http://elsewhere.test/']);
    expect(host.send('frame', 2)).toBeNull();
    // The request's own URL does not cross again.
    answer = { ...answer, url: wire.url };
    expect('url' in (await sent(host, 3, wire))[1]).toBe(false);
  });

  test('hostSendRequest refuses a head past RESPONSE_HEAD_LIMIT, its status text, URL and headers counted together', async () => {
    let answer: HttpResponse = { status: 200, statusText: '', headers: [], body: null };
    const host = hostSendRequest(
      () => chooseOutbound(() => answer, new ClockSlot()),
      () => true,
      new BodyBudget(PAYLOAD_LIMIT),
    );
    const wire = request('/x');
    const limit = RESPONSE_HEAD_LIMIT;
    answer = { ...answer, statusText: 's'.repeat(limit - 4), headers: [['ab', 'cd']] };
    expect((await sent(host, 1, wire))[0]).toBe('returned');
    answer = { ...answer, headers: [['ab', 'cde']] };
    expect(await sent(host, 2, wire)).toStrictEqual(['thrown', responseHeadMessage(limit + 1)]);
    // The request's own URL is not counted; another is.
    answer = { status: 200, statusText: '', headers: [], body: null, url: `${wire.url}${'u'.repeat(limit)}` };
    expect(await sent(host, 3, wire)).toStrictEqual([
      'thrown',
      responseHeadMessage((answer.url as string).length),
    ]);
    answer = { status: 200, statusText: '', headers: [], body: null, url: wire.url };
    expect((await sent(host, 4, { ...wire, url: `${wire.url}?${'q'.repeat(limit)}` }))[0]).toBe('returned');
  });

  test('hostSendRequest holds nothing for an aborted request, and drop and abortAll let go of what is held', async () => {
    const budget = new BodyBudget(PAYLOAD_LIMIT);
    const body = new Uint8Array(100);
    const head = { status: 200, statusText: 'OK', headers: [['x', 'y'.repeat(2000)]] as [string, string][] };
    let arrive = () => {};
    const host = hostSendRequest(
      () =>
        chooseOutbound(
          () => new Promise<HttpResponse>((resolve) => (arrive = () => resolve({ ...head, body }))),
          new ClockSlot(),
        ),
      () => true,
      budget,
    );
    // Aborted before its answer: the answer that comes anyway is neither held nor counted.
    const aborted = host.send('send', 1, request('/x'));
    await new Promise((resolve) => setImmediate(resolve));
    await host.send('abort', 1);
    arrive();
    expect(await aborted).toBe(1);
    expect([host.send('body', 1), budget.held]).toStrictEqual([null, 0]);
    const pending = host.send('send', 2, request('/x'));
    await new Promise((resolve) => setImmediate(resolve));
    arrive();
    expect([await pending, budget.held]).toStrictEqual([2, 100]);
    host.send('drop', 2);
    expect([host.send('frame', 2), host.send('body', 2), budget.held]).toStrictEqual([null, null, 0]);
    const third = host.send('send', 3, request('/x'));
    await new Promise((resolve) => setImmediate(resolve));
    arrive();
    await third;
    host.abortAll();
    expect([host.send('frame', 3), host.send('body', 3), budget.held]).toStrictEqual([null, null, 0]);
  });

  test('stops reading past PAYLOAD_LIMIT with a clear error', async () => {
    await expect(loopbackFetch(request('/huge'), new AbortController().signal)).rejects.toThrow(
      /^The outbound response is \d+ bytes, past the 33554432-byte payload limit\.$/,
    );
  });

  test('never reaches link-local addresses unless allowed', async () => {
    await expect(
      loopbackFetch(
        { method: 'GET', url: 'http://169.254.169.254/latest/meta-data', headers: [], body: null },
        new AbortController().signal,
      ),
    ).rejects.toThrow(outboundRefusedMessage('link-local', '169.254.169.254'));
  });

  test('an aborted signal cancels the host request', async () => {
    const controller = new AbortController();
    const pending = loopbackFetch(request('/huge'), controller.signal);
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
      // The method, the URL, the header and the body.
      payloadTooLargeMessage('outbound request', 4 + 9 + 2 + PAYLOAD_LIMIT, PAYLOAD_LIMIT),
    );
  });
});

describe('the address policy, before any connection', () => {
  /** A server on both loopback addresses that counts every connection it is offered. */
  let counted: Server[];
  let port: number;
  let connections = 0;
  /** Every client socket this process creates, whatever it would connect to. */
  let sockets = 0;
  const onSocket = () => {
    sockets++;
  };
  beforeAll(async () => {
    const first = createServer((_, response) => response.writeHead(302, { location: '/x' }).end());
    await new Promise<void>((resolve) => first.listen(0, '127.0.0.1', resolve));
    port = (first.address() as AddressInfo).port;
    const second = createServer((_, response) => response.end('six'));
    await new Promise<void>((resolve) => second.listen(port, '::1', resolve));
    counted = [first, second];
    for (const each of counted) each.on('connection', () => connections++);
    subscribe('net.client.socket', onSocket);
  });
  afterAll(async () => {
    unsubscribe('net.client.socket', onSocket);
    await Promise.all(counted.map((each) => new Promise<void>((resolve) => each.close(() => resolve()))));
  });

  const get = (url: string, options: NativeOptions = {}) =>
    nativeFetch({ method: 'GET', url, headers: [], body: null }, new AbortController().signal, options);

  test.each([
    ['127.0.0.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['0x7f.0.0.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['127.0.0.1.', '127.0.0.1'],
    ['%31%32%37.0.0.1', '127.0.0.1'],
    ['[::1]', '::1'],
    ['[0:0:0:0:0:0:0:1]', '::1'],
    ['[::ffff:127.0.0.1]', '::ffff:7f00:1'],
    ['[::ffff:7f00:1]', '::ffff:7f00:1'],
    ['[::ffff:0:7f00:1]', '::ffff:0:7f00:1'],
    ['[64:ff9b::127.0.0.1]', '64:ff9b::7f00:1'],
  ])('a literal %s is refused as loopback, no socket created', async (host, written) => {
    const before = sockets;
    await expect(get(`http://${host}:${port}/`)).rejects.toThrow(outboundRefusedMessage('loopback', written));
    expect([sockets - before, connections]).toStrictEqual([0, 0]);
  });

  test.each([
    ['0.0.0.0', '0.0.0.0'],
    ['0', '0.0.0.0'],
    ['[::]', '::'],
    ['[::127.0.0.1]', '::7f00:1'],
  ])(
    '%s, which reaches loopback on Linux, is refused as non-public even with allowLoopback',
    async (host, written) => {
      const before = sockets;
      await expect(get(`http://${host}:${port}/`, { allowLoopback: true })).rejects.toThrow(
        outboundRefusedMessage('non-public', written),
      );
      expect([sockets - before, connections]).toStrictEqual([0, 0]);
    },
  );

  test.each(['localhost', 'LOCALHOST', 'localhost.', 'api.localhost'])(
    'the name %s is refused as loopback before any lookup',
    async (host) => {
      const before = sockets;
      await expect(get(`http://${host}:${port}/`)).rejects.toThrow(
        outboundRefusedMessage('loopback', host.toLowerCase()),
      );
      expect([sockets - before, connections]).toStrictEqual([0, 0]);
    },
  );

  test("this machine's own interface addresses are refused as loopback with every other range allowed", async () => {
    const own = Object.values(networkInterfaces())
      .flat()
      .flatMap((info) => (info === undefined || info.internal ? [] : [info.address]))
      .filter((address) => rangeOf(address) !== 'non-public');
    // On this machine: fd00::2 and fe80::fc:ff:fe00:1, each of which its range's opt-in let through.
    expect(own.length).toBeGreaterThan(0);
    for (const address of own) {
      const before = sockets;
      const host = isIP(address) === 6 ? `[${address}]` : address;
      await expect(
        get(`http://${host}:${port}/`, { allowPrivate: true, allowLinkLocal: true }),
      ).rejects.toThrow(outboundRefusedMessage('loopback', address));
      expect([sockets - before, connections]).toStrictEqual([0, 0]);
    }
  });

  test('a name is judged by every address it resolves to, before the connection', async () => {
    // localhost is let through by name here; the lookup then answers 127.0.0.1 (and ::1), which
    // are the executor's own endpoint.
    const options = {
      allowLoopback: true,
      ownEndpoints: [
        { address: '127.0.0.1', port },
        { address: '::1', port },
      ],
    };
    await expect(get(`http://localhost:${port}/`, options)).rejects.toThrow(
      /^Outbound requests to the executor's own address are refused \((127\.0\.0\.1|::1) port \d+\)\.$/,
    );
    expect(connections).toBe(0);
  });

  test.each([
    ['http://169.254.169.254/latest/meta-data/', 'link-local', '169.254.169.254'],
    ['http://[::ffff:169.254.169.254]/', 'link-local', '::ffff:a9fe:a9fe'],
    ['http://[fd00:ec2::254]/', 'private', 'fd00:ec2::254'],
    ['http://100.100.100.200/', 'private', '100.100.100.200'],
    ['http://10.0.0.1/', 'private', '10.0.0.1'],
    ['http://0x0a000001/', 'private', '10.0.0.1'],
  ])(
    'a redirect from an allowed loopback URL to %s is refused on that hop',
    async (target, range, written) => {
      const redirecting = createServer((_, response) => response.writeHead(307, { location: target }).end());
      await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
      const first = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/`;
      try {
        const before = sockets;
        await expect(get(first, { allowLoopback: true })).rejects.toThrow(
          outboundRefusedMessage(range as 'private', written),
        );
        // One socket: the first hop's. The refused hop never opened one.
        expect(sockets - before).toBe(1);
      } finally {
        redirecting.close();
      }
    },
  );

  test('with allowLoopback, both loopback servers are reached: the refusals above were the policy', async () => {
    const six = await get(`http://[::1]:${port}/`, { allowLoopback: true });
    expect(new TextDecoder().decode(six.body ?? new Uint8Array())).toBe('six');
    expect(connections).toBe(1);
  });
});

/**
 * Runs `script` in a Node process of its own with every environment proxy variable pointing at
 * `proxyUrl` (NODE_USE_ENV_PROXY is read as Node starts); answers the JSON the script logged.
 */
async function behindProxy(script: string, proxyUrl: string): Promise<unknown> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: {
      ...process.env,
      NODE_USE_ENV_PROXY: '1',
      HTTP_PROXY: proxyUrl,
      HTTPS_PROXY: proxyUrl,
      NO_PROXY: '',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  await new Promise((resolve) => child.on('exit', resolve));
  return JSON.parse(output);
}

describe('an environment proxy', () => {
  test('is never used for a native request, though the global agent uses it', async () => {
    const saw: string[] = [];
    const proxy = createServer((request, response) => {
      saw.push(request.url ?? '');
      response.end('via proxy');
    });
    const upstream = createServer((_, response) => response.end('direct'));
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/`;
    const fetchModule = new URL('../../src/sandbox/fetch.ts', import.meta.url).href;
    const script = `
      import http from 'node:http';
      import { nativeFetch } from ${JSON.stringify(fetchModule)};
      const native = await nativeFetch({ method: 'GET', url: ${JSON.stringify(target)}, headers: [], body: null },
        new AbortController().signal, { allowLoopback: true });
      const global = await new Promise((resolve) => http.get(${JSON.stringify(target)}, (response) => {
        let text = ''; response.on('data', (chunk) => { text += chunk; }); response.on('end', () => resolve(text));
      }));
      console.log(JSON.stringify([new TextDecoder().decode(native.body), global]));`;
    try {
      const output = await behindProxy(script, `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`);
      // The global agent's request went through the proxy; the native one never did.
      expect(output).toStrictEqual(['direct', 'via proxy']);
      expect(saw).toStrictEqual([target]);
    } finally {
      proxy.close();
      upstream.close();
    }
  });
  test('is never used for a native https request, though the global agent tunnels through it', async () => {
    const saw: string[] = [];
    const proxy = createNetServer((socket) => {
      socket.once('data', (head) => {
        saw.push(head.toString('latin1').split('\r\n')[0] as string);
        socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      });
    });
    let direct = 0;
    // No TLS here: the native request's connection arriving is the proof; its handshake then fails.
    const upstream = createNetServer((socket) => {
      direct++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const target = `https://127.0.0.1:${(upstream.address() as AddressInfo).port}/`;
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const fetchModule = new URL('../../src/sandbox/fetch.ts', import.meta.url).href;
    const script = `
      import https from 'node:https';
      import { nativeFetch } from ${JSON.stringify(fetchModule)};
      const native = await nativeFetch({ method: 'GET', url: ${JSON.stringify(target)}, headers: [], body: null },
        new AbortController().signal, { allowLoopback: true }).then(() => 'answered', (error) => error.message);
      const global = await new Promise((resolve) =>
        https.get(${JSON.stringify(target)}, () => resolve('answered')).on('error', () => resolve('failed')));
      console.log(JSON.stringify([native, global]));`;
    try {
      expect(await behindProxy(script, proxyUrl)).toStrictEqual([NETWORK_LOST_MESSAGE, 'failed']);
      // The global agent asked the proxy for a tunnel; the native request connected directly.
      expect([saw, direct]).toStrictEqual([[`CONNECT ${new URL(target).host} HTTP/1.1`], 1]);
    } finally {
      proxy.close();
      upstream.close();
    }
  });
});
