/**
 * Nested executions through real children: a tool function that calls `execute` on the same
 * executor (what @cloudflare/codemode's `codemode.run` does with `runCode`) runs, with a pool of
 * one and with more waiting outer runs than children; past MAX_NESTING_DEPTH it is refused; an
 * outer run that is cancelled or times out takes its nested run with it, and the child started
 * beyond the pool size for it goes away.
 */
import { type ResolvedProvider, runCode } from '@cloudflare/codemode';
import { cancelledMessage } from '@supolka/codemode-protocol';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { IsolateExecutor } from '../../src/executor/isolate-executor.ts';
import type { ExecuteResult } from '../../src/index.ts';
import {
  MAX_NESTING_DEPTH,
  NESTING_TOO_DEEP_MESSAGE,
  PARENT_ENDED_REASON,
} from '../../src/pool/nested-executions.ts';

// Each level of nesting may start a child of its own, which takes seconds on a loaded machine.
vi.setConfig({ testTimeout: 60_000 });

const executors: IsolateExecutor[] = [];
function executorOf(poolSize: number): IsolateExecutor {
  const executor = new IsolateExecutor({ poolSize, timeout: 20_000 });
  executors.push(executor);
  return executor;
}
afterAll(() => Promise.all(executors.map((executor) => executor.dispose())));

/** Waits until only the pool's own children are left: those started for nested runs have ended. */
async function onlyPoolChildren(executor: IsolateExecutor, poolSize: number): Promise<void> {
  await vi.waitFor(
    () => {
      const children = executor.stats().children;
      expect(children.filter((child) => child.nestingLevel > 0)).toStrictEqual([]);
      expect(children).toHaveLength(poolSize);
    },
    { timeout: 20_000, interval: 50 },
  );
}

/** The platform provider's `run`, as @cloudflare/codemode 0.5.6 builds it: runCode on the same executor. */
function codemodeProvider(executor: IsolateExecutor): ResolvedProvider {
  const provider: ResolvedProvider = {
    name: 'codemode',
    fns: {
      run: async (...args: unknown[]) =>
        (await runCode({ code: String(args[0]), executor, providers: [provider] })).result,
    },
  };
  return provider;
}

describe('a tool that calls execute on the same executor', () => {
  test('runs with a pool of one (codemode.run through runCode)', async () => {
    const executor = executorOf(1);
    const provider = codemodeProvider(executor);
    const outcome = await executor.execute(
      `async () => {
        const inner = await codemode.run('async () => 6 * 7');
        const twice = await codemode.run("async () => await codemode.run('async () => 2')");
        return [inner, twice];
      }`,
      [provider],
    );
    expect(outcome).toStrictEqual({ result: [42, 2], logs: [] });
    await onlyPoolChildren(executor, 1);
  });

  test('runs for more concurrent outer runs than children', async () => {
    const executor = executorOf(2);
    const provider = codemodeProvider(executor);
    const outcomes = await Promise.all(
      [1, 2, 3, 4, 5].map((n) =>
        executor.execute(`async () => await codemode.run('async () => ${n} * 10') + 1`, [provider]),
      ),
    );
    expect(outcomes).toStrictEqual([11, 21, 31, 41, 51].map((result) => ({ result, logs: [] })));
    await onlyPoolChildren(executor, 2);
  });

  test(`is refused past ${MAX_NESTING_DEPTH} levels, with the error that names the bound`, async () => {
    const executor = executorOf(1);
    const levels: number[] = [];
    const down = async (level: number): Promise<unknown> => {
      levels.push(level);
      const envelope: ExecuteResult = await executor.execute({
        code: `async () => await t.down(${level + 1})`,
        providers: [{ name: 't', fns: { down } }],
      });
      return envelope.code === undefined ? envelope.result : { code: envelope.code, error: envelope.error };
    };
    const envelope = await executor.execute({
      code: 'async () => await t.down(1)',
      providers: [{ name: 't', fns: { down } }],
    });
    expect(envelope).toStrictEqual({
      result: { code: 'BAD_REQUEST', error: NESTING_TOO_DEEP_MESSAGE },
      logs: [],
    });
    // The top-level run and levels 1 to MAX_NESTING_DEPTH ran; the tool of the deepest was refused.
    expect(levels).toStrictEqual([1, 2, 3, 4].slice(0, MAX_NESTING_DEPTH + 1));
    await onlyPoolChildren(executor, 1);
  });
});

describe('an outer run that ends while its nested run goes on', () => {
  /**
   * Tools of an outer run: `spin` starts a nested run that calls `started` and then spins;
   * `nestedStarted` answers once it did.
   */
  function spinningNested(executor: IsolateExecutor) {
    const started = Promise.withResolvers<void>();
    const nested = Promise.withResolvers<ExecuteResult>();
    const spin = async () => {
      nested.resolve(
        await executor.execute({
          code: 'async () => { await s.started(); for (;;) {} }',
          providers: [{ name: 's', fns: { started: () => started.resolve() } }],
        }),
      );
      return 'unreachable';
    };
    const fns = { spin, nestedStarted: () => started.promise };
    return { started: started.promise, nested: nested.promise, providers: [{ name: 'o', fns }] };
  }

  test('cancelled: the nested run is cancelled too, and its extra child ends', async () => {
    const executor = executorOf(1);
    const { started, nested, providers } = spinningNested(executor);
    const controller = new AbortController();
    const outer = executor.execute(
      { code: 'async () => await o.spin()', providers },
      { signal: controller.signal },
    );
    await started;
    controller.abort(new Error('the caller gave up'));
    expect(await outer).toStrictEqual({
      result: undefined,
      error: cancelledMessage('the caller gave up'),
      code: 'CANCELLED',
      logs: [],
    });
    expect(await nested).toStrictEqual({
      result: undefined,
      error: cancelledMessage(PARENT_ENDED_REASON),
      code: 'CANCELLED',
      logs: [],
    });
    await onlyPoolChildren(executor, 1);
  });

  test('timed out: the nested run is cancelled, and its extra child ends', async () => {
    const executor = executorOf(1);
    const { nested, providers } = spinningNested(executor);
    // The outer run spins once the nested one runs, and meets its own bound while that one spins.
    const envelope = await executor.execute({
      code: 'async () => { o.spin(); await o.nestedStarted(); for (;;) {} }',
      providers,
      timeout: 1000,
    });
    expect(envelope.code).toBe('TIMEOUT');
    expect((await nested).error).toBe(cancelledMessage(PARENT_ENDED_REASON));
    await onlyPoolChildren(executor, 1);
  });
});

describe('an execute from work a tool left running past its answer', () => {
  /**
   * The outer run's `arm` sets a timer and answers; the timer (in arm's async context) waits until
   * the outer run's next call, `hold`, has arrived, so arm has answered by then, and starts another
   * execution, which waits for the outer run to end. `hold` answers once that execution was handed
   * to the executor.
   */
  function armedTimer(executor: IsolateExecutor, order: string[], outerEnded: Promise<void>) {
    // Held in an object: a promise resolved with a promise would wait for the execution itself.
    const later = Promise.withResolvers<{ readonly run: Promise<ExecuteResult> }>();
    const holdArrived = Promise.withResolvers<void>();
    const arm = () => {
      setTimeout(async () => {
        await holdArrived.promise;
        later.resolve({
          run: executor.execute({
            code: 'async () => await b.afterOuter()',
            providers: [
              {
                name: 'b',
                fns: {
                  afterOuter: async () => {
                    order.push('b started');
                    await outerEnded;
                    return 'b';
                  },
                },
              },
            ],
          }),
        });
      }, 0);
      return 'armed';
    };
    const hold = async () => {
      holdArrived.resolve();
      await later.promise;
      return 'held';
    };
    return { later: later.promise, providers: [{ name: 'o', fns: { arm, hold } }] };
  }

  test('is a top-level execution: it survives the end of the run whose tool armed it, and queues behind it', async () => {
    const executor = executorOf(1);
    const order: string[] = [];
    const outerEnded = Promise.withResolvers<void>();
    const { later, providers } = armedTimer(executor, order, outerEnded.promise);
    const outer = await executor.execute({
      code: 'async () => { await o.arm(); return await o.hold(); }',
      providers,
    });
    order.push('outer ended');
    outerEnded.resolve();
    expect(outer).toStrictEqual({ result: 'held', logs: [] });
    expect(await (await later).run).toStrictEqual({ result: 'b', logs: [] });
    // Top-level on a pool of one: no child was started beyond the pool for it, so it waited for the outer run's.
    expect(order).toStrictEqual(['outer ended', 'b started']);
    await onlyPoolChildren(executor, 1);
  });

  test('is not counted toward the depth bound of the run whose tool armed it', async () => {
    const executor = executorOf(2);
    const order: string[] = [];
    const { later, providers } = armedTimer(executor, order, Promise.resolve());
    // The armed run starts from a run nested MAX_NESTING_DEPTH deep, where a nested execute is refused.
    const down = async (level: number): Promise<unknown> => {
      const envelope = await executor.execute({
        code:
          level === MAX_NESTING_DEPTH
            ? 'async () => { await o.arm(); return await o.hold(); }'
            : `async () => await t.down(${level + 1})`,
        providers: [{ name: 't', fns: { down } }, ...providers],
      });
      return envelope.result;
    };
    expect(
      await executor.execute({
        code: 'async () => await t.down(1)',
        providers: [{ name: 't', fns: { down } }],
      }),
    ).toStrictEqual({
      result: 'held',
      logs: [],
    });
    expect(await (await later).run).toStrictEqual({ result: 'b', logs: [] });
    expect(order).toStrictEqual(['b started']);
    await onlyPoolChildren(executor, 2);
  });
});
