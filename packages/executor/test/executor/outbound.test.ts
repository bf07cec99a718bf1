/**
 * The three outbound modes through the pool: proxied requests cross to the caller's function in
 * this process, disabled ones never leave the isolate, native ones are performed by the child
 * (public addresses only, unless the executor opts in to a range).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EXECUTION_ENDED_MESSAGE, OUTBOUND_DISABLED_MESSAGE } from '@supolka/codemode-protocol';
import { afterAll, describe, expect, test } from 'vitest';
import { IsolateExecutor } from '../../src/executor/isolate-executor.ts';
import type { OutboundFunction } from '../../src/pool/execution.ts';
import { outboundRefusedMessage } from '../../src/sandbox/outbound/address-policy.ts';

const executor = new IsolateExecutor({ poolSize: 1 });
/** The executor the tests' loopback servers are reached through: loopback opted in, nothing else. */
const loopback = new IsolateExecutor({ poolSize: 1, allowLoopback: true });
afterAll(() => Promise.all([executor.dispose(), loopback.dispose()]));

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

  test('proxied: a request still in flight when the run settles sees its signal abort, naming the end', async () => {
    // The tool call answers once the request reached the caller, so the run returns while it hangs.
    let reached: () => void = () => {};
    const inFlight = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const aborted = new Promise<unknown>((resolve) => {
      const proxy: OutboundFunction = (_request, init) => {
        init.signal.addEventListener('abort', () => resolve(init.signal.reason));
        reached();
        return new Promise(() => {});
      };
      void executor
        .execute({
          code: `async () => { fetch('http://upstream.test/').catch(() => {}); await tools.reached(); return 'returned' }`,
          providers: [{ name: 'tools', fns: { reached: () => inFlight } }],
          outbound: proxy,
        })
        .then((envelope) => expect(envelope.result).toBe('returned'));
    });
    const reason = await aborted;
    expect(reason).toBeInstanceOf(Error);
    expect((reason as Error).message).toBe(EXECUTION_ENDED_MESSAGE);
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
      const envelope = await loopback.execute({
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
      failed: outboundRefusedMessage('link-local', '169.254.169.254'),
    });
  });

  test('native: loopback in any spelling is refused by default, before the child connects', async () => {
    let connections = 0;
    const server = createServer((_, response) => response.end('reached'));
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const hosts = ['127.1', '0x7f000001', '2130706433', 'localhost', '[::ffff:7f00:1]', '0.0.0.0'];
      const envelope = await executor.execute({
        code: `async () => Promise.all(${JSON.stringify(hosts)}.map((host) =>
          fetch('http://' + host + ':${port}/').then(() => 'reached', (error) => error.message)))`,
        outbound: undefined,
      });
      expect(envelope.result).toStrictEqual([
        outboundRefusedMessage('loopback', '127.0.0.1'),
        outboundRefusedMessage('loopback', '127.0.0.1'),
        outboundRefusedMessage('loopback', '127.0.0.1'),
        outboundRefusedMessage('loopback', 'localhost'),
        outboundRefusedMessage('loopback', '::ffff:7f00:1'),
        outboundRefusedMessage('non-public', '0.0.0.0'),
      ]);
      expect(connections).toBe(0);
    } finally {
      server.close();
    }
  });

  test('native: with allowLoopback, a redirect to a metadata or private address is refused on that hop', async () => {
    const server = createServer((request, response) => {
      const target = new URL(request.url ?? '/', 'http://x').searchParams.get('to') ?? '';
      response.writeHead(302, { location: target }).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const targets = ['http://169.254.169.254/', 'http://[fd00:ec2::254]/', 'http://192.168.0.1/'];
      const envelope = await loopback.execute({
        code: `async () => Promise.all(${JSON.stringify(targets)}.map((to) =>
          fetch('http://127.0.0.1:${port}/?to=' + encodeURIComponent(to)).then(() => 'reached', (error) => error.message)))`,
        outbound: undefined,
      });
      expect(envelope.result).toStrictEqual([
        outboundRefusedMessage('link-local', '169.254.169.254'),
        outboundRefusedMessage('private', 'fd00:ec2::254'),
        outboundRefusedMessage('private', '192.168.0.1'),
      ]);
    } finally {
      server.close();
    }
  });

  test('the opt-ins are checked where they are written', () => {
    expect(() => new IsolateExecutor({ allowLoopback: 'yes' as never })).toThrow(
      'IsolateExecutor option allowLoopback must be a boolean; got "yes".',
    );
    expect(() => new IsolateExecutor({ allowPrivate: 1 as never })).toThrow(
      'IsolateExecutor option allowPrivate must be a boolean; got 1.',
    );
    expect(() => new IsolateExecutor({ ownEndpoints: [{ address: 'example.com', port: 80 }] })).toThrow(
      'IsolateExecutor option ownEndpoints must be a list of { address, port, prefix? }; got a list.',
    );
  });
});
