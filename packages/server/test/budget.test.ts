/**
 * The server's requestBudget: one client that parks the only child and queues large executes
 * reaches OVERLOADED instead of the end of the server's heap, a second client still gets its
 * executions through, and the server's heap stays within the budget. The server runs in a process
 * of its own (fixtures/budget-server.ts), so if a bound fails it is that process that dies.
 */
import { getHeapStatistics } from 'node:v8';
import type { ExecuteResult } from '@supolka/codemode-protocol';
import { ExecutorClient } from '@supolka/codemode-protocol/client';
import { afterAll, expect, test } from 'vitest';
import { MIN_REQUEST_BUDGET } from '../src/budget.ts';
import { parseServeCommandLine } from '../src/command-line.ts';
import { resolveServerOptions } from '../src/options.ts';
import { requestBudgetMessage, requestShareMessage } from '../src/texts.ts';
import { openSocket, TOKEN, useServerProcess } from './helpers.ts';

const MiB = 2 ** 20;
/** Room for three 30 MiB executes of text (each estimated at three times its size), not a fourth. */
const BUDGET = 288 * MiB;
/** A heap the unbounded server died in at about a dozen queued 30 MiB executes. */
const HEAP_MB = 768;

const server = useServerProcess({ token: TOKEN, requestBudget: BUDGET, executor: { poolSize: 1 } }, HEAP_MB);

async function connect(): Promise<ExecutorClient> {
  const client = await ExecutorClient.connect(openSocket(server.url, { authorization: `Bearer ${TOKEN}` }));
  afterAll(() => client.close());
  return client;
}

/** Ten text modules of 3 MiB: a 30 MiB execute, each module well inside any per-module bound. */
function bulk(seed: number): Record<string, { text: string }> {
  const modules: Record<string, { text: string }> = {};
  for (let index = 0; index < 10; index++) modules[`m${index}`] = { text: String(seed % 10).repeat(3 * MiB) };
  return modules;
}

/** Settles with the envelope, or 'pending' if it has not settled once `after` has. */
async function settledBy(
  run: Promise<ExecuteResult>,
  after: Promise<unknown>,
): Promise<ExecuteResult | 'pending'> {
  return Promise.race([run, after.then(() => 'pending' as const)]);
}

test('a client queueing large executes behind a parked child meets OVERLOADED; another client is served; the heap stays bounded', async () => {
  const hostile = await connect();
  const baseline = await server.heapUsed();

  // The only child is parked on a tool call the hostile client answers only at the end.
  let release: (value: string) => void = () => {};
  const gate = new Promise<string>((resolve) => {
    release = resolve;
  });
  const parked = hostile.execute({
    code: 'async () => tools.gate()',
    providers: [{ name: 'tools', fns: { gate: () => gate } }],
  });

  // Alone on the server, its share is the whole budget: three 30 MiB executes fit, then OVERLOADED.
  const big = Array.from({ length: 6 }, (_, index) =>
    hostile.execute({ code: 'import m from "m0"\nasync () => m.length', modules: bulk(index) }),
  );
  const refused = await Promise.all(big.slice(3));
  for (const envelope of refused) {
    expect(envelope).toStrictEqual({
      result: undefined,
      error: requestBudgetMessage(BUDGET),
      code: 'OVERLOADED',
      logs: [],
    });
  }
  for (const run of big.slice(0, 3)) expect(await settledBy(run, Promise.resolve())).toBe('pending');

  // What the server holds now is within the budget, measured in its own heap after a collection.
  const held = (await server.heapUsed()) - baseline;
  expect(held).toBeLessThan(BUDGET);
  expect(held).toBeGreaterThan(3 * 30 * MiB);

  // A second connection halves the hostile one's share, which it already holds past: even a small
  // request of it is refused, naming the share; the newcomer's requests are taken.
  const friend = await connect();
  const share = Math.max(MIN_REQUEST_BUDGET, Math.floor(BUDGET / 2));
  expect(await hostile.execute({ code: 'async () => "more"' })).toStrictEqual({
    result: undefined,
    error: requestShareMessage(share, BUDGET, 2),
    code: 'OVERLOADED',
    logs: [],
  });
  const served = [1, 2, 3].map((n) => friend.execute({ code: `async () => ${n} * 7` }));

  release('unparked');
  expect(await parked).toStrictEqual({ result: 'unparked', logs: [] });
  for (const run of big.slice(0, 3)) expect((await run).result).toBe(3 * MiB);
  expect((await Promise.all(served)).map((envelope) => envelope.result)).toStrictEqual([7, 14, 21]);
  expect(server.process.exitCode).toBeNull();
}, 120_000);

test('the budget option: at least one full message, and by default half the heap', () => {
  expect(() => resolveServerOptions({ requestBudget: MIN_REQUEST_BUDGET - 1 })).toThrow(
    `Server option requestBudget must be a whole number from ${MIN_REQUEST_BUDGET} to ${Number.MAX_SAFE_INTEGER}; got ${MIN_REQUEST_BUDGET - 1}.`,
  );
  expect(resolveServerOptions({ requestBudget: MIN_REQUEST_BUDGET }).requestBudget).toBe(MIN_REQUEST_BUDGET);
  expect(resolveServerOptions({}).requestBudget).toBe(
    Math.max(MIN_REQUEST_BUDGET, Math.floor(getHeapStatistics().heap_size_limit / 2)),
  );
  expect(parseServeCommandLine(['--request-budget', '200'])).toMatchObject({ requestBudget: 200 });
});
