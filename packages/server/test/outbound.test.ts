/**
 * Native outbound through the server: the address policy is the operator's (executor options, the
 * serve flags), no field of a client's request changes it, and the server's own listen address is
 * refused even where the operator opted in to loopback.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  outboundRefusedMessage,
  ownEndpointRefusedMessage,
} from '../../executor/src/sandbox/outbound/address-policy.ts';
import { parseServeCommandLine } from '../src/command-line.ts';
import { ownEndpoints } from '../src/own-endpoints.ts';
import { connect, useServer } from './helpers.ts';

const strict = useServer({ allowNativeOutbound: true });
const loopback = useServer({ allowNativeOutbound: true, executor: { allowLoopback: true } });

/** Another loopback server, not the executor's: reachable only where loopback is opted in. */
let upstream: Server;
let upstreamPort: number;
beforeAll(async () => {
  upstream = createHttpServer((_, response) => response.end('upstream'));
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamPort = (upstream.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));

const reads = (urls: string[]) =>
  `async () => Promise.all(${JSON.stringify(urls)}.map((url) =>
    fetch(url).then((response) => response.text(), (error) => error.message)))`;

describe('native outbound through the server', () => {
  test('by default a client reaches neither the server itself nor anything else on loopback', async () => {
    const client = await connect(strict.server);
    const port = strict.server.port;
    const envelope = await client.execute({
      code: reads([
        `http://127.0.0.1:${port}/healthz`,
        `http://localhost:${port}/metrics`,
        `http://[::ffff:7f00:1]:${port}/metrics`,
        `http://127.0.0.1:${upstreamPort}/`,
      ]),
      outbound: undefined,
    });
    // The server's own address is named as such before any range.
    expect(envelope.result).toStrictEqual([
      ownEndpointRefusedMessage('127.0.0.1', port),
      outboundRefusedMessage('loopback', 'localhost'),
      ownEndpointRefusedMessage('::ffff:7f00:1', port),
      outboundRefusedMessage('loopback', '127.0.0.1'),
    ]);
  });

  test("with the operator's allowLoopback, other loopback servers are reached but never the server's own address", async () => {
    const client = await connect(loopback.server);
    const port = loopback.server.port;
    const envelope = await client.execute({
      code: reads([
        `http://127.0.0.1:${upstreamPort}/`,
        `http://127.0.0.1:${port}/healthz`,
        `http://2130706433:${port}/metrics`,
        `http://[::ffff:127.0.0.1]:${port}/healthz`,
        `http://localhost:${port}/healthz`,
      ]),
      outbound: undefined,
    });
    const result = envelope.result as string[];
    expect(result.slice(0, 4)).toStrictEqual([
      'upstream',
      ownEndpointRefusedMessage('127.0.0.1', port),
      ownEndpointRefusedMessage('127.0.0.1', port),
      ownEndpointRefusedMessage('::ffff:7f00:1', port),
    ]);
    // localhost resolves to 127.0.0.1 or ::1 first, whichever the resolver answers: both are refused.
    expect(result[4]).toMatch(
      /^Outbound requests to the executor's own address are refused \((127\.0\.0\.1|::1) port \d+\)\.$/,
    );
  });

  test('a client cannot opt in: an address field in its request is refused, not obeyed', async () => {
    const client = await connect(strict.server);
    const envelope = await client.execute({
      code: reads([`http://127.0.0.1:${upstreamPort}/`]),
      outbound: undefined,
      allowLoopback: true,
    } as never);
    expect(envelope.code).toBe('BAD_REQUEST');
    expect(envelope.error).toContain('allowLoopback');
  });

  test('a wildcard listen lists every interface address and all of loopback as its own', () => {
    const listed = ownEndpoints({ address: '::', family: 'IPv6', port: 8790 });
    expect(listed).toContainEqual({ address: '127.0.0.0', prefix: 8, port: 8790 });
    expect(listed).toContainEqual({ address: '::1', port: 8790 });
    expect(listed).toContainEqual({ address: '127.0.0.1', port: 8790 });
    expect(ownEndpoints({ address: '127.0.0.1', family: 'IPv4', port: 1 })).toStrictEqual([
      { address: '127.0.0.1', port: 1 },
    ]);
  });

  test('the serve flags set the opt-ins, each off unless given', () => {
    const parsed = parseServeCommandLine(['--allow-loopback', '--allow-link-local']);
    expect(
      parsed === 'help' ? undefined : [parsed.allowLoopback, parsed.allowPrivate, parsed.allowLinkLocal],
    ).toStrictEqual([true, false, true]);
  });
});
