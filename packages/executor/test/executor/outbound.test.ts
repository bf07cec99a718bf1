/**
 * The three outbound modes through the pool: proxied requests cross to the caller's function in
 * this process, disabled ones never leave the isolate, native ones are performed by the child
 * (never toward link-local addresses unless allowed).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OUTBOUND_DISABLED_MESSAGE } from '@supolka/codemode-protocol';
import { afterAll, describe, expect, test } from 'vitest';
import { IsolateExecutor } from '../../src/executor/isolate-executor.ts';
import type { OutboundFunction } from '../../src/pool/execution.ts';

const executor = new IsolateExecutor({ poolSize: 1 });
afterAll(() => executor.dispose());

const FETCH = `async () => {
  try {
    const response = await fetch('http://upstream.test/path?q=1', { method: 'POST', headers: { 'x-a': 'b' }, body: new Uint8Array([1, 2, 3]) })
    return { status: response.status, text: await response.text(), header: response.headers.get('x-from') }
  } catch (error) {
    return { failed: error.message }
  }
}`;

describe('outbound', () => {
  test('proxied: each request crosses to the caller function as the wire request, bytes intact', async () => {
    const seen: unknown[] = [];
    const proxy: OutboundFunction = (request, init) => {
      seen.push({ ...request, signal: init.signal instanceof AbortSignal });
      return {
        status: 201,
        statusText: 'Created',
        headers: [['x-from', 'caller']],
        body: new TextEncoder().encode('proxied'),
      };
    };
    const envelope = await executor.execute({ code: FETCH, outbound: proxy });
    expect(envelope.result).toStrictEqual({ status: 201, text: 'proxied', header: 'caller' });
    expect(seen).toStrictEqual([
      {
        method: 'POST',
        url: 'http://upstream.test/path?q=1',
        headers: expect.arrayContaining([['x-a', 'b']]),
        body: new Uint8Array([1, 2, 3]),
        redirect: 'follow',
        signal: true,
      },
    ]);
  });

  test('proxied: a caller function that throws makes fetch reject with its text', async () => {
    const envelope = await executor.execute({
      code: FETCH,
      outbound: () => {
        throw new Error('the proxy is down');
      },
    });
    expect(envelope.result).toStrictEqual({ failed: 'the proxy is down' });
  });

  test('disabled, explicitly or by default: fetch rejects and nothing leaves', async () => {
    expect((await executor.execute({ code: FETCH, outbound: null })).result).toStrictEqual({
      failed: OUTBOUND_DISABLED_MESSAGE,
    });
    expect((await executor.execute({ code: FETCH })).result).toStrictEqual({
      failed: OUTBOUND_DISABLED_MESSAGE,
    });
  });

  test('native: the child performs the request itself', async () => {
    const server = createServer((request, response) => {
      response.setHeader('x-from', 'server');
      response.end(`native ${request.method} ${request.url}`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const envelope = await executor.execute({
        code: FETCH.replace('http://upstream.test', `http://127.0.0.1:${port}`),
        outbound: undefined,
      });
      expect(envelope.result).toStrictEqual({ status: 200, text: 'native POST /path?q=1', header: 'server' });
    } finally {
      server.close();
    }
  });

  test('native: link-local addresses are refused', async () => {
    const envelope = await executor.execute({
      code: FETCH.replace('http://upstream.test', 'http://169.254.169.254'),
      outbound: undefined,
    });
    expect(envelope.result).toStrictEqual({
      failed: 'Outbound requests to link-local addresses are refused (169.254.169.254).',
    });
  });
});
