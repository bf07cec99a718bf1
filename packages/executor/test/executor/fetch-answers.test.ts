/**
 * A fetch answer's head (status text, headers, URL) and its failure text toward an isolate near its
 * memory limit, through the pool: each attack runs in a pool child of its own, beside another
 * caller's retained execution. Before the fetch answer crossed as short text or a number, a 200 KiB
 * header, status text or URL arriving while the program filled its heap, which isolated-vm copied
 * in by its own task, aborted the child (SIGABRT, std::exception: WORKER_LOST) and closed the
 * retained execution with it (HANDLES_CLOSED). Now the run ends MEMORY_LIMIT, or a head past
 * RESPONSE_HEAD_LIMIT is refused by name, and the same child answers the retained execution after.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorText, type HttpResponse, HttpResponseSchema, validate } from '@supolka/codemode-protocol';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { IsolateExecutor } from '../../src/executor/isolate-executor.ts';
import { MAX_REDIRECTS, NETWORK_LOST_MESSAGE } from '../../src/sandbox/fetch.ts';
import { RESPONSE_HEAD_LIMIT, responseHeadMessage } from '../../src/sandbox/outbound/response-head.ts';
import { type Attack, againstRetained, expectRunEndsChildLives } from '../helpers.ts';

const KIB = 2 ** 10;
const MIB = 2 ** 20;

/** Resolves after a random few milliseconds: answers arrive spread over time, as a real proxy's do. */
const later = () => new Promise((resolve) => setTimeout(resolve, Math.random() * 20));

/** An outbound function answering `response` later, whatever was asked. */
const answering = (response: unknown) => async () => {
  await later();
  return response as HttpResponse;
};

const head = (fields: Partial<HttpResponse>): HttpResponse => ({
  status: 200,
  statusText: 'OK',
  headers: [],
  body: null,
  ...fields,
});

/** Fetches three at a time, keeping every response (or failure text), while the heap fills. */
const FILLING = (url: string, step = 50_000) => `async () => {
  const kept = [];
  for (;;) {
    kept.push(new Array(${step}).fill(kept.length));
    kept.push(await Promise.all([0, 1, 2].map(() => fetch('${url}').then((r) => [r, r.statusText, r.url, r.headers.get('x-big')], (e) => e.message))));
  }
}`;

/** Five rounds of three fetches; answers the distinct [name, message] pairs they failed with. */
const FAILURES = (url: string) => `async () => {
  const seen = new Map();
  for (let round = 0; round < 5; round++) {
    const all = await Promise.allSettled([0, 1, 2].map(() => fetch('${url}')));
    for (const one of all) {
      const key = one.status === 'fulfilled' ? 'fulfilled' : one.reason.name + ': ' + one.reason.message;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
  }
  return [...seen];
}`;

async function expectFailuresChildLives(
  attack: Attack,
  failure: string,
  options: { allowLoopback?: boolean } = {},
) {
  const { outcome, after, samePid } = await againstRetained(attack, options);
  expect(outcome).toStrictEqual({ result: [[failure, 15]], logs: [] });
  expect(after).toBe('still here');
  expect(samePid).toBe(true);
}

/** Heads within RESPONSE_HEAD_LIMIT that are still far past what crosses inline. */
const WITHIN: [string, HttpResponse][] = [
  ['a 200 KiB header value', head({ headers: [['x-big', 'h'.repeat(200 * KIB)]] })],
  [
    '4096 headers of 40 characters',
    head({ headers: Array.from({ length: 4096 }, (_, i) => [`x-h-${i}`, 'v'.repeat(32)]) }),
  ],
  ['a 200 KiB status text', head({ statusText: 's'.repeat(200 * KIB) })],
  ['a 200 KiB URL', head({ url: `http://upstream.test/${'u'.repeat(200 * KIB)}` })],
  ['a 100 KiB header of two-byte text', head({ headers: [['x-big', '\u4e00'.repeat(100 * KIB)]] })],
  // Pinned, not reproduced: before the change these survived too (the body was already taken
  // synchronously; a head this small seldom met the limit in the copy).
  [
    'a 2 KiB header and a body',
    head({ headers: [['x-big', 'h'.repeat(2 * KIB)]], body: new Uint8Array(64) }),
  ],
];

describe('proxied heads within the bound, arriving while the heap fills', () => {
  for (const [name, response] of WITHIN) {
    test(`${name} ends the run MEMORY_LIMIT; the child and another execution live`, async () => {
      await expectRunEndsChildLives((executor) =>
        executor.execute({
          code: FILLING('http://upstream.test/'),
          memoryLimit: 64,
          outbound: answering(response),
        }),
      );
    });
  }

  // Pinned: this survived before the change as well (a structured copy's strings land on the heap).
  test("the caller's function failing with a 6 MiB message (the thrown frame) does the same", async () => {
    const message = 'e'.repeat(6 * MIB);
    await expectRunEndsChildLives((executor) =>
      executor.execute({
        code: FILLING('http://upstream.test/'),
        memoryLimit: 64,
        outbound: async () => {
          await later();
          throw new Error(message);
        },
      }),
    );
  });

  test('the same heads under a limit that holds them arrive whole', async () => {
    const executor = new IsolateExecutor({ poolSize: 1 });
    try {
      const envelope = await executor.execute({
        code: `async () => {
          const r = await fetch('http://upstream.test/a');
          return [r.status, r.statusText.length, r.url.length, r.redirected, r.headers.get('x-big').length, r.headers.get('x-h-3'), await r.text()];
        }`,
        memoryLimit: 128,
        outbound: answering({
          status: 201,
          statusText: 's'.repeat(100 * KIB),
          headers: [
            ['x-big', 'h'.repeat(100 * KIB)],
            ['x-h-3', 'three'],
          ],
          body: new TextEncoder().encode('body'),
          url: `http://upstream.test/${'u'.repeat(50 * KIB)}`,
          redirected: true,
        }),
      });
      expect(envelope).toStrictEqual({
        result: [201, 100 * KIB, 21 + 50 * KIB, true, 100 * KIB, 'three', 'body'],
        logs: [],
      });
    } finally {
      await executor.dispose();
    }
  });
});

/** Heads past RESPONSE_HEAD_LIMIT, each with the size it is refused at. */
const PAST: [string, HttpResponse, number][] = [
  [
    'a 3 MiB header and a 2 MiB status text (the issue)',
    head({ statusText: 's'.repeat(2 * MIB), headers: [['x-big', 'h'.repeat(3 * MIB)]] }),
    5 * MIB + 5,
  ],
  ['a 3 MiB header value', head({ headers: [['x-big', 'h'.repeat(3 * MIB)]] }), 2 + 5 + 3 * MIB],
  [
    '4096 headers of 100 characters',
    head({
      headers: Array.from({ length: 4096 }, (_, i) => [`x-${String(i).padStart(4, '0')}`, 'v'.repeat(94)]),
    }),
    2 + 4096 * 100,
  ],
  ['a 2 MiB status text', head({ statusText: 's'.repeat(2 * MIB) }), 2 * MIB],
  ['a 3 MiB URL', head({ url: `http://upstream.test/${'u'.repeat(3 * MIB)}` }), 2 + 21 + 3 * MIB],
  [
    'one character past the bound',
    head({ statusText: 's'.repeat(RESPONSE_HEAD_LIMIT + 1) }),
    RESPONSE_HEAD_LIMIT + 1,
  ],
];

describe('proxied heads past RESPONSE_HEAD_LIMIT', () => {
  for (const [name, response, size] of PAST) {
    test(`${name} is refused with a TypeError naming the bound; the child and another execution live`, async () => {
      await expectFailuresChildLives(
        (executor) =>
          executor.execute({ code: FAILURES('http://upstream.test/'), outbound: answering(response) }),
        `TypeError: ${responseHeadMessage(size)}`,
      );
    });
  }

  test("the issue's heads, three at a time while the heap fills, end the run MEMORY_LIMIT; the child lives", async () => {
    await expectRunEndsChildLives((executor) =>
      executor.execute({
        // Each answer is 5 MiB through the pool's channel: the heap fills in bigger steps.
        code: FILLING('http://upstream.test/', 500_000),
        memoryLimit: 64,
        outbound: answering(PAST[0]?.[1]),
      }),
    );
  });

  test('4097 headers are refused by the response schema before any are counted', async () => {
    const response = head({ headers: Array.from({ length: 4097 }, (_, i) => [`x-${i}`, 'v']) });
    let schemaText = '';
    try {
      validate(HttpResponseSchema, response, 'outbound response');
    } catch (error) {
      schemaText = errorText(error);
    }
    expect(schemaText).toContain('4096 header pairs');
    await expectFailuresChildLives(
      (executor) =>
        executor.execute({ code: FAILURES('http://upstream.test/'), outbound: answering(response) }),
      `TypeError: ${schemaText}`,
    );
  });
});

describe('native heads from a loopback server', () => {
  let server: Server;
  let base: string;
  /** A Location of 15,000 characters: under Node's 16 KiB head, and the URLs add up past 300 KB. */
  const pad = 'p'.repeat(15_000);
  beforeAll(async () => {
    server = createServer((request, response) => {
      const url = request.url as string;
      if (url === '/big-header') response.writeHead(200, { 'x-big': 'h'.repeat(3 * MIB) }).end();
      else if (url === '/big-status') response.writeHead(200, 's'.repeat(3 * MIB)).end();
      else if (url === '/near-limit') response.writeHead(200, { 'x-big': 'h'.repeat(15_000) }).end();
      else if (url.startsWith('/hop/')) {
        const hop = Number(url.split('/')[2]);
        response.writeHead(302, { location: `/hop/${hop + 1}/${pad}` }).end();
      } else response.end('ok');
    });
    // The server's own parser bounds what it reads, not what it writes.
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const native = { allowLoopback: true };

  test("a 3 MiB header passes Node's maxHeaderSize first: the connection fails as workerd's Error", async () => {
    await expectFailuresChildLives(
      (executor) => executor.execute({ code: FAILURES(`${base}/big-header`), outbound: undefined }),
      `Error: ${NETWORK_LOST_MESSAGE}`,
      native,
    );
  });

  test('a 3 MiB status text does the same', async () => {
    await expectFailuresChildLives(
      (executor) => executor.execute({ code: FAILURES(`${base}/big-status`), outbound: undefined }),
      `Error: ${NETWORK_LOST_MESSAGE}`,
      native,
    );
  });

  // Pinned: this survived before the change as well (four tries).
  test('15,000-character headers arriving while the heap fills end the run MEMORY_LIMIT; the child lives', async () => {
    await expectRunEndsChildLives(
      (executor) =>
        executor.execute({ code: FILLING(`${base}/near-limit`), memoryLimit: 64, outbound: undefined }),
      native,
    );
  });

  test('a redirect loop of long URLs fails with all of them in its text (330 KB, taken synchronously)', async () => {
    const urls = [`${base}/hop/0`];
    for (let hop = 1; hop <= MAX_REDIRECTS; hop++) urls.push(`${base}/hop/${hop}/${pad}`);
    await expectFailuresChildLives(
      (executor) => executor.execute({ code: FAILURES(`${base}/hop/0`), outbound: undefined }),
      `TypeError: Too many redirects.${urls.join(', ')}`,
      native,
    );
  });

  test('the same redirect loops, three at a time while the heap fills, end the run MEMORY_LIMIT', async () => {
    await expectRunEndsChildLives(
      (executor) =>
        executor.execute({ code: FILLING(`${base}/hop/0`), memoryLimit: 64, outbound: undefined }),
      native,
    );
  });
});
