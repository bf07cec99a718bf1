/**
 * Stateless durable servers (issue 25, stage 2): two `codemode-executor serve` processes share a
 * durable key ring (CODEMODE_DURABLE_KEYS) and a bearer token behind HAProxy, with
 * deploy/haproxy/haproxy.cfg as an operator runs it. A durable run pauses on one, which is then
 * killed (SIGKILL: nothing of it survives, its children included), and the pause is resumed
 * through HAProxy on the other, from the token alone: the journal's calls are served from the
 * token, the pending one performed live with its idempotency key. HAProxy is installed from
 * Debian's packages when it is missing, as the deployment test does; the test fails, never skips,
 * when it cannot be.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { durableCall, type ExecutorClient } from '@supolka/codemode-protocol/client';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { alive, ExecutorProcess } from '../../../server/test/deploy/executor-process.ts';
import { ensureHaproxy, freePort, Haproxy } from '../../../server/test/deploy/haproxy.ts';
import { connectThrough } from '../../../server/test/deploy/load.ts';
import { type ShopState, shopRequest } from '../../../server/test/durable-shop.ts';
import { TOKEN, waitUntil } from '../../../server/test/helpers.ts';

const NAMES = ['executor-a', 'executor-b'] as const;
/** One key, as `id=base64`, that both servers hold. */
const KEYS = `*2026-12=${randomBytes(32).toString('base64')}`;

let dir: string;
let haproxy: Haproxy;
const servers = new Map<string, ExecutorProcess>();
const clients: ExecutorClient[] = [];

async function connect(url: string): Promise<ExecutorClient> {
  const client = await connectThrough(url, TOKEN);
  clients.push(client);
  return client;
}

beforeAll(async () => {
  const binary = ensureHaproxy();
  dir = mkdtempSync(join(tmpdir(), 'codemode-durable-'));
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  for (const name of NAMES)
    servers.set(name, new ExecutorProcess(name, tokenFile, 1, { CODEMODE_DURABLE_KEYS: KEYS }));
  await Promise.all([...servers.values()].map((each) => each.listening()));
  await Promise.all([...servers.values()].map((each) => each.healthy()));
  // The configuration names three servers; the third is a loopback port nothing listens on.
  haproxy = await Haproxy.start(binary, dir, {
    EXECUTOR_A: (servers.get('executor-a') as ExecutorProcess).address,
    EXECUTOR_B: (servers.get('executor-b') as ExecutorProcess).address,
    EXECUTOR_C: `127.0.0.1:${await freePort()}`,
  });
  for (const name of NAMES) await haproxySees(name, 'UP');
}, 300_000);

afterAll(async () => {
  for (const client of clients) client.close();
  await haproxy?.stop();
  for (const each of servers.values()) if (each.running) each.signal('SIGKILL');
  await Promise.all([...servers.values()].map((each) => each.exited));
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 30_000);

async function haproxySees(name: string, status: string): Promise<void> {
  try {
    await waitUntil(
      async () => (await haproxy.status(name)) === status,
      `HAProxy sees ${name} ${status}`,
      60_000,
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}; HAProxy said:\n${haproxy.output}`);
  }
}

const CODE = `async () => {
  const order = await shop.find('A-17');
  const stamp = Date.now();
  const refund = await shop.refund(order.id, order.total, Math.random());
  return { order, refund, stamp, uuid: crypto.randomUUID() };
}`;

/** The tools, on the client: `refund` pauses until approved, then answers with the idempotency key it was called with. */
function request(state: ShopState) {
  return shopRequest(CODE, state, (id, total) => ({ id, total, key: durableCall()?.idempotencyKey }));
}

test('a run paused on one server, which is then killed, resumes through HAProxy on the other', async () => {
  const a = servers.get('executor-a') as ExecutorProcess;
  const state = { approved: false, calls: [] as string[] };
  const first = await (await connect(`${haproxy.url}?instance=executor-a`)).execute(request(state));
  expect(first.error).toBeUndefined();
  expect(first.paused?.reason).toBe('approval');
  expect(first.paused?.pending.map(({ sequence, tool }) => [sequence, tool])).toStrictEqual([[2, 'refund']]);
  const token = first.paused?.token as string;

  // Nothing of executor-a survives: not its process, not its pool's children.
  const children = await a.childPids();
  a.signal('SIGKILL');
  await a.exited;
  await waitUntil(() => children.every((pid) => !alive(pid)), "executor-a's children are gone");
  await haproxySees('executor-a', 'DOWN');

  // A plain connection through the balancer: it can only reach executor-b.
  state.approved = true;
  const other = await connect(haproxy.url);
  expect(other.instance).toBe('executor-b');
  const resumed = await other.resume(token, { 2: { perform: true } }, request(state));
  expect(resumed.error).toBeUndefined();
  const result = resumed.result as { order: unknown; refund: { key: unknown }; stamp: number; uuid: string };
  expect(result.order).toStrictEqual({ id: 'A-17', total: 12 });
  expect(typeof result.refund.key).toBe('string');
  // find was answered from the token; refund ran again, now live, the first time paused.
  expect(state.calls).toStrictEqual(['find', 'refund', 'refund']);

  // A retried resume on executor-b replays the same program: the same clock, the same random
  // values, and the same idempotency key for the call it performs again.
  const again = await other.resume(token, { 2: { perform: true } }, request(state));
  expect(again.result).toStrictEqual(resumed.result);
}, 180_000);
