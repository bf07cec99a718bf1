/**
 * Which executions keep the caller's async context (pool/execution.ts, runInCaller): one with a
 * tool or outbound function runs them in the context `execute` was called in; one with neither
 * runs nothing of the caller's, so it takes no snapshot and a function handed to it runs where it
 * is called.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { expect, test } from 'vitest';
import { type ExecutionHost, PoolExecution } from '../../src/pool/execution.ts';

const store = new AsyncLocalStorage<string>();

function madeIn(context: string, host: ExecutionHost): PoolExecution {
  return store.run(
    context,
    () => new PoolExecution('x1', '{}', host, false, { owner: {}, depth: 0, parent: undefined }),
  );
}

const readStore = () => store.getStore();

test.each([
  ['a tool function', { dispatch: async () => '{}' }],
  [
    'an outbound function',
    { outbound: async () => ({ status: 200, statusText: '', headers: [], body: null }) },
  ],
] as const)('an execution with %s runs it in the caller context', (_, host) => {
  const execution = madeIn('caller', host as ExecutionHost);
  expect(store.run('channel', () => execution.runInCaller(readStore))).toBe('caller');
});

test('an execution with neither takes no snapshot: what it runs sees the context it is run in', () => {
  const execution = madeIn('caller', {});
  expect(store.run('channel', () => execution.runInCaller(readStore))).toBe('channel');
  expect(execution.runInCaller(() => 42)).toBe(42);
});
