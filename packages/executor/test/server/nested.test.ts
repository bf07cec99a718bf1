/**
 * Nested executions of one remote client, against a real server with a pool of one: a tool served
 * on the client's side that calls execute over the same connection runs (it is taken as nested in
 * the execution whose call waits), the depth bound holds over the network, and an unrelated
 * execute sent while a call waits is not cancelled when that execution ends.
 */
import type { ExecutorClient } from '@supolka/codemode-protocol/client';
import { describe, expect, test, vi } from 'vitest';
import { MAX_NESTING_DEPTH, NESTING_TOO_DEEP_MESSAGE } from '../../src/pool/nested-executions.ts';
import { connect, expectPoolClean, useServer } from './helpers.ts';

// Each level of nesting may start a child of its own, which takes seconds on a loaded machine.
vi.setConfig({ testTimeout: 60_000 });

const setup = useServer({ executor: { poolSize: 1 } });

/** Only the pool's own child is left once the nested runs are done. */
async function expectOnlyPoolChild(): Promise<void> {
  await expectPoolClean(setup.server);
  expect(setup.server.stats().pool.children.map((child) => child.nestingLevel)).toStrictEqual([0]);
}

describe("a client's tool that calls execute over the same connection", () => {
  test('runs, with a pool of one', async () => {
    const client = await connect(setup.server);
    const envelope = await client.execute({
      code: `async () => (await inner.run('async () => 6 * 7')) + 1`,
      providers: [
        {
          name: 'inner',
          fns: { run: async (code: string) => (await client.execute({ code })).result },
        },
      ],
    });
    expect(envelope).toStrictEqual({ result: 43, logs: [] });
    await expectOnlyPoolChild();
  });

  test(`is refused past ${MAX_NESTING_DEPTH} levels`, async () => {
    const client = await connect(setup.server);
    const levels: number[] = [];
    const down = async (level: number): Promise<unknown> => {
      levels.push(level);
      const envelope = await descend(client, level + 1, down);
      return envelope.code === undefined ? envelope.result : { code: envelope.code, error: envelope.error };
    };
    expect(await descend(client, 1, down)).toStrictEqual({
      result: { code: 'BAD_REQUEST', error: NESTING_TOO_DEEP_MESSAGE },
      logs: [],
    });
    expect(levels).toStrictEqual([1, 2, 3, 4].slice(0, MAX_NESTING_DEPTH + 1));
    await expectOnlyPoolChild();
  });

  test('an unrelated execute sent while a call waits runs on, after the waiting execution ended', async () => {
    const client = await connect(setup.server);
    const second = Promise.withResolvers<Promise<unknown>>();
    const firstDone = Promise.withResolvers<void>();
    const first = client.execute({
      code: `async () => await a.wait()`,
      providers: [
        {
          name: 'a',
          fns: {
            // Sends the other run while this call waits, then answers without waiting for it.
            wait: () => {
              second.resolve(
                client.execute({
                  code: `async () => await b.afterFirst()`,
                  providers: [{ name: 'b', fns: { afterFirst: () => firstDone.promise.then(() => 'b') } }],
                }),
              );
              return 'a';
            },
          },
        },
      ],
    });
    expect(await first).toStrictEqual({ result: 'a', logs: [] });
    firstDone.resolve();
    expect(await await second.promise).toStrictEqual({ result: 'b', logs: [] });
    await expectOnlyPoolChild();
  });
});

function descend(
  client: ExecutorClient,
  level: number,
  down: (level: number) => Promise<unknown>,
): ReturnType<ExecutorClient['execute']> {
  return client.execute({
    code: `async () => await t.down(${level})`,
    providers: [{ name: 't', fns: { down } }],
  });
}
