/**
 * Tool functions and outbound functions run in the async context of the `execute` call that
 * caused them, through real children: an AsyncLocalStorage store set around `execute` reads the
 * same inside them, for concurrent executions each its own, in both forms of execute.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { afterAll, describe, expect, test } from 'vitest';
import { IsolateExecutor } from '../../src/executor/isolate-executor.ts';

const executor = new IsolateExecutor({ poolSize: 2, timeout: 5000 });
afterAll(() => executor.dispose());

const request = new AsyncLocalStorage<string>();

describe('the async context of execute', () => {
  test('reaches the tool functions and the outbound function, each execution its own', async () => {
    const seen: string[] = [];
    const run = (name: string) =>
      request.run(name, () =>
        executor.execute({
          code: `async () => [await t.who(), await (await fetch('https://example.test/')).text()]`,
          providers: [{ name: 't', fns: { who: () => request.getStore() } }],
          outbound: async () => {
            seen.push(`outbound ${request.getStore()}`);
            return {
              status: 200,
              statusText: 'OK',
              headers: [],
              body: new TextEncoder().encode(String(request.getStore())),
            };
          },
        }),
      );
    const outcomes = await Promise.all([run('first'), run('second'), run('third')]);
    expect(outcomes.map((outcome) => outcome.result)).toStrictEqual([
      ['first', 'first'],
      ['second', 'second'],
      ['third', 'third'],
    ]);
    expect(seen.sort()).toStrictEqual(['outbound first', 'outbound second', 'outbound third']);
  });

  test('reaches the tools of the Code Mode form', async () => {
    const outcome = await request.run('code mode', () =>
      executor.execute('async () => await codemode.who()', { who: async () => request.getStore() }),
    );
    expect(outcome).toStrictEqual({ result: 'code mode', logs: [] });
  });
});
