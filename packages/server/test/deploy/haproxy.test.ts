/**
 * Three servers behind HAProxy, on loopback, with deploy/haproxy/haproxy.cfg as an operator would
 * run it: the balancer spreads concurrent clients over the servers, sends a connection that names
 * an instance to the server holding its retained execution, takes a server that drains (SIGTERM)
 * out of rotation by its health check while its executions finish, and a server that dies
 * (SIGKILL) takes exactly the executions it held, which read WORKER_LOST; clients connect again
 * through HAProxy and go on. HAProxy is installed from Debian's packages when it is missing; when
 * it cannot be, the test fails saying so. The tests share the servers and run in order.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ExecuteResult,
  type ExecutorClient,
  instanceOf,
  instanceUrl,
} from '@supolka/codemode-protocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { foreignInstanceMessage, ROUTE_NOT_FOUND_MESSAGE } from '../../src/texts.ts';
import { deferred, getPathAsSent, TOKEN, waitUntil } from '../helpers.ts';
import { alive, ExecutorProcess } from './executor-process.ts';
import { ensureHaproxy, Haproxy } from './haproxy.ts';
import { connectThrough, Load, type Outcome } from './load.ts';

const NAMES = ['executor-a', 'executor-b', 'executor-c'] as const;
const SERVER_ENV = {
  'executor-a': 'EXECUTOR_A',
  'executor-b': 'EXECUTOR_B',
  'executor-c': 'EXECUTOR_C',
} as const;
/** Each test drives many executions through four processes on a machine other work shares. */
const TEST_TIMEOUT = 120_000;
/** What an execution reads when the connection under it dropped with no close: its server died. */
const LOST_WITH_ITS_SERVER =
  'The worker running this execution was lost: the connection to the executor closed (code 1006).';

let dir: string;
let haproxy: Haproxy;
const servers = new Map<string, ExecutorProcess>();
const clients: ExecutorClient[] = [];

function server(name: string): ExecutorProcess {
  return servers.get(name) as ExecutorProcess;
}

async function connect(url: string): Promise<ExecutorClient> {
  const client = await connectThrough(url, TOKEN);
  clients.push(client);
  return client;
}

/** `?instance=NAME` on the balancer's address. */
function toInstance(name: string): string {
  return `${haproxy.url}?instance=${name}`;
}

/** Waits until HAProxy's checks give `name` this verdict; fails with what HAProxy said. */
async function haproxySees(name: string, status: string): Promise<void> {
  try {
    await waitUntil(
      async () => (await haproxy.status(name)) === status,
      `HAProxy sees ${name} ${status}`,
      30_000,
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}; HAProxy said:\n${haproxy.output}`);
  }
}

/** An execution parked in a tool call until the test releases it, on a connection to `name`. */
async function parked(name: string, answer: string) {
  const client = await connect(toInstance(name));
  expect(client.instance).toBe(name);
  const called = deferred();
  const release = deferred<string>();
  const envelope = client.execute({
    code: 'async () => gate.wait()',
    providers: [{ name: 'gate', fns: { wait: () => called.resolve().then(() => release.promise) } }],
  });
  await called.promise;
  return { envelope, release: () => release.resolve(answer) };
}

function expectEveryExecutionSucceeded(outcomes: readonly Outcome[], total: number): void {
  expect(outcomes.map((outcome) => outcome.n).sort((a, b) => a - b)).toStrictEqual(
    Array.from({ length: total }, (_, n) => n),
  );
  for (const { n, envelope } of outcomes) expect(envelope).toStrictEqual({ result: 8 * n + 1, logs: [] });
}

async function okExecutions(name: string): Promise<number> {
  const metrics = await (await fetch(server(name).healthz.replace('/healthz', '/metrics'))).text();
  return Number(/^codemode_executions_total\{outcome="ok"\} (\d+)$/m.exec(metrics)?.[1]);
}

beforeAll(async () => {
  const binary = ensureHaproxy();
  dir = mkdtempSync(join(tmpdir(), 'codemode-haproxy-'));
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  for (const name of NAMES) servers.set(name, new ExecutorProcess(name, tokenFile, 1));
  await Promise.all([...servers.values()].map((each) => each.listening()));
  // A loaded machine can take many seconds to start a pool; HAProxy is timed from here on.
  await Promise.all([...servers.values()].map((each) => each.healthy()));
  haproxy = await Haproxy.start(
    binary,
    dir,
    Object.fromEntries(NAMES.map((name) => [SERVER_ENV[name], server(name).address])),
  );
  for (const name of NAMES) await haproxySees(name, 'UP');
}, 300_000);

// Connections a test left open would weigh on leastconn in the next.
afterEach(() => {
  for (const client of clients.splice(0)) client.close();
});

afterAll(async () => {
  await haproxy?.stop();
  for (const each of servers.values()) if (each.running) each.signal('SIGKILL');
  await Promise.all([...servers.values()].map((each) => each.exited));
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe('three servers behind HAProxy', () => {
  test(
    'balance 200 executions from concurrent clients, each serving its tools',
    async () => {
      const load = new Load(haproxy.url, TOKEN, 200);
      const outcomes = await load.run(8);
      expect(load.errors).toStrictEqual([]);
      expectEveryExecutionSucceeded(outcomes, 200);
      expect(new Set(load.connections)).toStrictEqual(new Set(NAMES));
      // Scraped from each server directly: the balancer refuses /metrics, which would be any one's.
      expect((await fetch(new URL('/metrics', haproxy.url.replace('ws:', 'http:')))).status).toBe(403);
      // HAProxy passes a path it does not match as sent; the server serves no route for it either.
      for (const path of ['/./metrics', '/x/../metrics']) {
        expect(await getPathAsSent(haproxy.url, path)).toStrictEqual({
          status: 404,
          body: ROUTE_NOT_FOUND_MESSAGE,
        });
      }
      const counts = await Promise.all(NAMES.map(okExecutions));
      expect(counts.every((count) => count > 0)).toBe(true);
      expect(counts.reduce((sum, count) => sum + count, 0)).toBe(200);
    },
    TEST_TIMEOUT,
  );

  test(
    'a connection naming an instance reaches the retained execution it holds',
    async () => {
      for (const [index, name] of NAMES.entries()) {
        const creator = await connect(toInstance(name));
        expect(creator.instance).toBe(name);
        const granted = await creator.execute({
          retainHandles: true,
          code: `async () => (request) => new Response('held by ${name} at ' + new URL(request.url).pathname)`,
        });
        const executionId = granted.executionId as string;
        expect(instanceOf(executionId)).toBe(name);
        // Another connection, as a second process of the caller would open, finds it by its id alone.
        const other = await connect(instanceUrl(haproxy.url, executionId));
        expect(other.instance).toBe(name);
        const response = await other.invoke(executionId, new Request('https://h.test/path'));
        expect(await response.arrayBuffer().then((body) => new TextDecoder().decode(body))).toBe(
          `held by ${name} at /path`,
        );
        const elsewhere = NAMES[(index + 1) % NAMES.length] as string;
        const wrong = await connect(toInstance(elsewhere));
        expect(wrong.instance).toBe(elsewhere);
        await expect(wrong.invoke(executionId, new Request('https://h.test/'))).rejects.toMatchObject({
          code: 'HANDLES_CLOSED',
          message: foreignInstanceMessage(executionId, elsewhere),
        });
        await other.closeHandles(executionId);
      }
      // A name no server line has is balanced like a connection that names none.
      const unnamed = await connect(toInstance('executor-z'));
      expect(NAMES).toContain(unnamed.instance);
    },
    TEST_TIMEOUT,
  );

  test(
    'SIGTERM mid-load: the server drains out of rotation, its executions finish, nothing is lost',
    async () => {
      const draining = server('executor-a');
      const held = await parked('executor-a', 'finished during the drain');
      const load = new Load(haproxy.url, TOKEN, Number.POSITIVE_INFINITY);
      const running = load.run(6);
      await waitUntil(() => load.outcomes.length >= 20, 'the load is under way', 60_000);
      draining.signal('SIGTERM');
      await waitUntil(
        async () => (await fetch(draining.healthz)).status === 503,
        'the drain shows in /healthz',
      );
      await haproxySees('executor-a', 'DOWN');
      // New connections go to the others while executor-a still holds the executions it drains.
      for (let count = 0; count < 6; count += 1) {
        const client = await connect(haproxy.url);
        expect(client.instance).not.toBe('executor-a');
        expect(await client.execute({ code: 'async () => 6 * 7' })).toStrictEqual({ result: 42, logs: [] });
      }
      held.release();
      expect(await held.envelope).toStrictEqual({ result: 'finished during the drain', logs: [] });
      const settled = load.outcomes.length;
      await waitUntil(
        () => load.outcomes.length >= settled + 20,
        'the load goes on without executor-a',
        60_000,
      );
      load.stop();
      const outcomes = await running;
      expect(load.errors).toStrictEqual([]);
      expectEveryExecutionSucceeded(outcomes, load.sent);
      // Refused by the draining server and sent again elsewhere: the executions it never ran.
      expect(outcomes.some((outcome) => outcome.tries > 1)).toBe(true);
      expect(await draining.exited).toStrictEqual({ code: 0, signal: null });
    },
    TEST_TIMEOUT,
  );

  test(
    'SIGKILL mid-load: exactly the executions the server held read WORKER_LOST; clients connect again',
    async () => {
      const killed = server('executor-b');
      const children = await killed.childPids();
      // Parked in the only child of executor-b's pool: the load's executions there queue behind it.
      const lost = await parked('executor-b', 'never');
      const load = new Load(haproxy.url, TOKEN, 80);
      const running = load.run(6);
      await waitUntil(() => load.outcomes.length >= 20, 'the load is under way', 60_000);
      const killedAt = performance.now();
      killed.signal('SIGKILL');
      const expectLost = (envelope: ExecuteResult) =>
        expect(envelope).toStrictEqual({
          result: undefined,
          error: LOST_WITH_ITS_SERVER,
          code: 'WORKER_LOST',
          logs: [],
        });
      expectLost(await lost.envelope);
      const outcomes = await running;
      expect(load.errors).toStrictEqual([]);
      expect(outcomes.map((outcome) => outcome.n).sort((a, b) => a - b)).toStrictEqual(
        Array.from({ length: 80 }, (_, n) => n),
      );
      // The load's executions that reached executor-b queued behind the parked one, and went with it.
      expect(outcomes.some((outcome) => outcome.envelope.code === 'WORKER_LOST')).toBe(true);
      for (const outcome of outcomes) {
        if (outcome.envelope.code === 'WORKER_LOST') {
          // Lost only with the server that died, and only if it was in flight there when it did.
          expectLost(outcome.envelope);
          expect(outcome.instance).toBe('executor-b');
          expect(outcome.sent).toBeLessThan(killedAt);
        } else {
          expect(outcome.envelope).toStrictEqual({ result: 8 * outcome.n + 1, logs: [] });
        }
      }
      expect(await killed.exited).toStrictEqual({ code: null, signal: 'SIGKILL' });
      await haproxySees('executor-b', 'DOWN');
      const again = await connect(haproxy.url);
      expect(again.instance).toBe('executor-c');
      expect(await again.execute({ code: 'async () => 6 * 7' })).toStrictEqual({ result: 42, logs: [] });
      // Its pool's children end with it: nothing is left running on the machine.
      await waitUntil(() => children.every((pid) => !alive(pid)), 'the killed server leaves no child behind');
    },
    TEST_TIMEOUT,
  );
});
