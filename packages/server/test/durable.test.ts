/**
 * Durable runs over the wire (docs/durable.md, "Over the wire"), through real servers and
 * ExecutorClient: a client's tool pauses the run on the server, the paused envelope carries the
 * token, a resume performs the pending call on the client with the idempotency key, and a discard
 * spends a token. What the door refuses: a client of version 2, a server without a key ring, and
 * every token an attacker could send (forged, bit-flipped, foreign-key, expired, oversized, for
 * another program, for another bearer token's audience). The metrics count pauses and resumes.
 */
import { randomBytes } from 'node:crypto';
import { DurableKeyRing, pause as executorPause } from '@supolka/codemode-executor';
import { Sandbox } from '@supolka/codemode-executor/sandbox';
import { DURABLE_TOKEN_LIMIT, DURABLE_VERSION_MESSAGE } from '@supolka/codemode-protocol';
import { durableVersionMessage, type ExecuteResult, ExecutorClient } from '@supolka/codemode-protocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ServerMetrics } from '../src/metrics.ts';
import { bearerPrincipal } from '../src/options.ts';
import { createServer, type ExecutorServer } from '../src/server.ts';
import { DURABLE_OFF_MESSAGE } from '../src/texts.ts';
import { type ShopState, shopRequest } from './durable-shop.ts';
import { openSocket, RawPeer, TOKEN } from './helpers.ts';

const KEY = randomBytes(32);
const keys = (key = KEY) => new DurableKeyRing({ keys: [{ id: 'k1', key }] });
const OTHER_TOKEN = 'another-bearer-token-0123456789';

const servers: ExecutorServer[] = [];
const clients: ExecutorClient[] = [];
let main: ExecutorServer;
/** Shares the key but not the bearer token, and its tokens expire at once. */
let otherAudience: ExecutorServer;
let keyless: ExecutorServer;

async function start(token: string, durable?: { keys: DurableKeyRing; ttl?: number }) {
  const server = await createServer({
    port: 0,
    token,
    executor: { poolSize: 1, heartbeatInterval: 100, ...(durable ? { durable } : {}) },
  });
  servers.push(server);
  return server;
}

async function client(server: ExecutorServer, token = TOKEN): Promise<ExecutorClient> {
  const connected = await ExecutorClient.connect(
    openSocket(server.url, { authorization: `Bearer ${token}` }),
  );
  clients.push(connected);
  return connected;
}

beforeAll(async () => {
  [main, otherAudience, keyless] = await Promise.all([
    start(TOKEN, { keys: keys() }),
    start(OTHER_TOKEN, { keys: keys(), ttl: 1 }),
    start(TOKEN),
  ]);
  await Promise.all(servers.map((server) => server.executor.engine()));
}, 60_000);
afterAll(async () => {
  for (const connected of clients) connected.close();
  await Promise.all(servers.map((server) => server.close()));
});

const CODE = `async () => {
  const order = await shop.find('A-17');
  const done = await shop.refund(order.id, order.total);
  return { done, key: await shop.key() };
}`;

/** The request, its tools on the client; `refund` pauses until `approved`, and `key` answers the idempotency key it was called with. */
function request(state: ShopState, code = CODE) {
  return shopRequest(code, state);
}

async function pausedOn(server: ExecutorServer, token = TOKEN) {
  const state = { approved: false, calls: [] as string[] };
  const envelope = await (await client(server, token)).execute(request(state));
  expect(envelope.error).toBeUndefined();
  expect(envelope.paused).toBeDefined();
  return { envelope, state, token: envelope.paused?.token as string };
}

describe('a durable run over the wire', () => {
  test("a client's tool pauses it; the resume performs the call on the client and finishes the run", async () => {
    const connected = await client(main);
    const state = { approved: false, calls: [] as string[] };
    const first = await connected.execute(request(state));
    expect(first.paused).toMatchObject({ reason: 'approval', data: { id: 'A-17', total: 12 } });
    expect(first.paused?.pending).toStrictEqual([
      { sequence: 2, provider: 'shop', tool: 'refund', args: '["A-17",12]' },
    ]);
    expect(state.calls).toStrictEqual(['find', 'refund']);
    state.approved = true;
    const done = await connected.resume(
      first.paused?.token as string,
      { 2: { perform: true } },
      request(state),
    );
    expect(done.error).toBeUndefined();
    expect((done.result as { done: string }).done).toBe('refunded 12');
    // find was answered from the journal; refund and key ran live, key with its idempotency key.
    expect(state.calls).toStrictEqual(['find', 'refund', 'refund']);
    expect(typeof (done.result as { key: unknown }).key).toBe('string');
  });

  test('a resume on a new connection, answered by hand, and a retried resume give the same idempotency key', async () => {
    const { token, state } = await pausedOn(main);
    const answers = { 2: { result: 'refunded by hand' } };
    const one = await (await client(main)).resume(token, answers, request(state));
    const two = await (await client(main)).resume(token, answers, request(state));
    expect(one.result).toMatchObject({ done: 'refunded by hand' });
    expect(two.result).toStrictEqual(one.result);
  });

  test('a discard checks the token; without a claim store it stays resumable', async () => {
    const { token, state, envelope } = await pausedOn(main);
    const connected = await client(main);
    expect(await connected.discard(token, request(state))).toStrictEqual({
      tokenId: envelope.paused?.tokenId,
      claimed: false,
    });
    await expect(connected.discard(`${token}x`, request(state))).rejects.toMatchObject({
      code: 'TOKEN_MALFORMED',
    });
  });

  test('the metrics count the pauses and the resumes', async () => {
    const text = await (await fetch(new URL('/metrics', main.url.replace('ws:', 'http:')))).text();
    expect(Number(/^codemode_durable_pauses_total (\d+)$/m.exec(text)?.[1])).toBeGreaterThanOrEqual(3);
    expect(
      Number(/^codemode_durable_resumes_total\{outcome="ok"\} (\d+)$/m.exec(text)?.[1]),
    ).toBeGreaterThanOrEqual(3);
    expect(text).toMatch(/^codemode_executions_total\{outcome="paused"\} \d+$/m);
    expect(text).toMatch(/^codemode_durable_divergences_total 0$/m);
  });
});

describe('what the door refuses', () => {
  test('a client that agreed on version 2: a durable execute, a resume and a discard', async () => {
    const peer = new RawPeer(main.url, { authorization: `Bearer ${TOKEN}` });
    await peer.opened;
    peer.send({ type: 'hello', protocol: 2 });
    expect(await peer.next()).toMatchObject({ type: 'hello', protocol: 2 });
    peer.send({ type: 'execute', id: 'e1', request: { code: 'async () => 1', durable: true } });
    expect(await peer.next()).toStrictEqual({
      type: 'result',
      id: 'e1',
      envelope: { error: durableVersionMessage(2), code: 'BAD_REQUEST', logs: [] },
    });
    peer.send({ type: 'resume', id: 'r1', token: 'cmdt.x', answers: [], request: { code: 'async () => 1' } });
    expect(await peer.next()).toMatchObject({ type: 'result', id: 'r1', envelope: { code: 'BAD_REQUEST' } });
    peer.send({ type: 'discard', id: 'd1', token: 'cmdt.x', request: { code: 'async () => 1' } });
    expect(await peer.next()).toMatchObject({ type: 'fault', id: 'd1', code: 'BAD_REQUEST' });
    // The same connection's plain execute runs as before.
    peer.send({ type: 'execute', id: 'e2', request: { code: 'async () => 2' } });
    expect(await peer.next()).toStrictEqual({ type: 'result', id: 'e2', envelope: { result: 2, logs: [] } });
  });

  test('a server without a durable key ring', async () => {
    const envelope = await (await client(keyless)).execute(request({ approved: true, calls: [] }));
    expect(envelope).toStrictEqual({
      result: undefined,
      error: DURABLE_OFF_MESSAGE,
      code: 'BAD_REQUEST',
      logs: [],
    });
  });

  test('forged, bit-flipped, truncated, foreign-key and oversized tokens, and one for another program', async () => {
    const { token, state } = await pausedOn(main);
    const connected = await client(main);
    const resume = (text: string, code = CODE): Promise<ExecuteResult> =>
      connected.resume(text, { 2: { perform: true } }, request({ ...state, approved: true }, code));
    const at = token.length - 40;
    const flipped = token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
    expect((await resume(flipped)).code).toBe('TOKEN_FORGED');
    expect((await resume(token.slice(0, 60))).code).toBe('TOKEN_MALFORMED');
    expect((await resume('cmdt.AAAAAAAAAAAA')).code).toBe('TOKEN_MALFORMED');
    expect((await resume(`${token}A`)).code).toMatch(/^TOKEN_(FORGED|MALFORMED)$/);
    // Sealed by a key the server does not hold (an in-process sandbox's, under the same key id).
    const sandbox = new Sandbox({ durable: { keys: keys(randomBytes(32)) }, prepareAhead: false });
    try {
      const foreign = await sandbox.execute({
        code: 'async () => api.stop()',
        durable: true,
        providers: [{ name: 'api' }],
        dispatch: async () => executorPause(),
      });
      expect((await resume(foreign.paused?.token as string)).code).toBe('TOKEN_FORGED');
    } finally {
      sandbox.dispose();
    }
    const oversized = await resume(`cmdt.${'A'.repeat(DURABLE_TOKEN_LIMIT)}`);
    expect(oversized.code).toBe('BAD_REQUEST');
    expect(oversized.error).toMatch(/token must be at most/);
    expect((await resume(token, CODE.replace("'A-17'", "'B-17'"))).code).toBe('TOKEN_MISMATCH');
    // None of them ran a tool.
    expect(state.calls).toStrictEqual(['find', 'refund']);
  });

  test("a token sealed under another bearer token's audience, and an expired one", async () => {
    const { token, state } = await pausedOn(main);
    const other = await client(otherAudience, OTHER_TOKEN);
    const mismatch = await other.resume(token, { 2: { perform: true } }, request(state));
    expect(mismatch.code).toBe('TOKEN_MISMATCH');
    expect(mismatch.error).toMatch(/another principal/);
    // The other server's tokens live 1 ms.
    const expiring = await other.execute(request({ approved: false, calls: [] }));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const expired = await other.resume(
      expiring.paused?.token as string,
      { 2: { perform: true } },
      request(state),
    );
    expect(expired.code).toBe('TOKEN_EXPIRED');
  });
});

describe('the principal and the counters, unit by unit', () => {
  test('one bearer token is one audience: the principal is derived from the token alone', () => {
    expect(bearerPrincipal(TOKEN)).toBe(bearerPrincipal(TOKEN));
    expect(bearerPrincipal(TOKEN)).not.toBe(bearerPrincipal(OTHER_TOKEN));
    expect(bearerPrincipal(TOKEN)).not.toContain(TOKEN);
    expect(bearerPrincipal(undefined)).toBe('');
  });

  test('a diverged resume counts as a divergence and a resume', async () => {
    const metrics = new ServerMetrics(() => ({
      pool: { queued: 0, children: [] },
      connections: 0,
      inFlight: 0,
    }));
    metrics.resume({ result: undefined, logs: [], error: 'Replay diverged: ...', code: 'REPLAY_DIVERGED' });
    const text = await metrics.render();
    expect(text).toMatch(/^codemode_durable_divergences_total 1$/m);
    expect(text).toMatch(/^codemode_durable_resumes_total\{outcome="REPLAY_DIVERGED"\} 1$/m);
  });

  test('an envelope a version 2 client could not read is never sent it', async () => {
    const { envelopeForVersion } = await import('@supolka/codemode-protocol');
    const paused = {
      result: undefined,
      logs: [],
      paused: { pending: [], token: 'cmdt.x', tokenId: 't', expiresAt: 1 },
    };
    expect(envelopeForVersion(paused, 2)).toStrictEqual({
      result: undefined,
      error: DURABLE_VERSION_MESSAGE,
      code: 'INTERNAL',
      logs: [],
    });
    expect(envelopeForVersion(paused, 3)).toBe(paused);
  });
});
