/**
 * Every row of the specification's timeout table, through a whole execution: what the run does, what ends
 * it, and what the caller reads.
 */
import { executionTimeoutMessage, memoryLimitMessage } from '@supolka/codemode-protocol';
import { expect, test } from 'vitest';
import { useSandbox } from '../helpers.ts';

const sandbox = useSandbox();

test('a run that yields and outlives its timeout ends on the layer-1 race', async () => {
  const envelope = await sandbox.execute({
    timeout: 200,
    code: `async () => { console.log('before'); await new Promise((resolve) => setTimeout(resolve, 60_000)); return 'late' }`,
  });
  expect(envelope).toStrictEqual({
    result: undefined,
    error: executionTimeoutMessage(200),
    code: 'TIMEOUT',
    logs: [{ level: 'log', text: 'before' }],
  });
});

test('a run that spins without yielding ends on the engine timeout, rewritten', async () => {
  const envelope = await sandbox.execute({ timeout: 200, grace: 100, code: 'async () => { for (;;) {} }' });
  expect(envelope).toStrictEqual({
    result: undefined,
    error: executionTimeoutMessage(200),
    code: 'TIMEOUT',
    logs: [],
  });
});

test('a run that exhausts the memory limit ends with the memory text, rewritten', async () => {
  const envelope = await sandbox.execute({
    memoryLimit: 16,
    code: `async () => { console.log('allocating'); const keep = []; for (;;) keep.push(new Array(100_000).fill({ a: 1 })); }`,
  });
  expect(envelope).toStrictEqual({
    result: undefined,
    error: memoryLimitMessage(16),
    code: 'MEMORY_LIMIT',
    logs: [{ level: 'log', text: 'allocating' }],
  });
});

test('a run that wedges the isolate after its first yield ends on the host race', async () => {
  const envelope = await sandbox.execute({
    timeout: 200,
    grace: 100,
    code: `async () => { setTimeout(() => { for (;;) {} }, 0); await new Promise(() => {}) }`,
  });
  expect(envelope).toStrictEqual({
    result: undefined,
    error: executionTimeoutMessage(200),
    code: 'TIMEOUT',
    logs: [],
  });
});

test('a run that throws past its first yield reports the thrown message', async () => {
  const envelope = await sandbox.execute({
    code: `async () => { await new Promise((resolve) => setTimeout(resolve, 5)); throw new TypeError('late failure') }`,
  });
  expect(envelope).toStrictEqual({
    result: undefined,
    error: 'late failure',
    logs: [],
    errorKind: 'thrown',
    errorName: 'TypeError',
    errorStack: '    at executor.js:1:77',
  });
});

test('time spent waiting on a tool does not count against the bound', async () => {
  const envelope = await sandbox.execute({
    timeout: 150,
    providers: [{ name: 'slow' }],
    dispatch: () =>
      new Promise((resolve) => setTimeout(() => resolve(JSON.stringify({ result: 'done' })), 400)),
    code: 'async () => slow.wait()',
  });
  expect(envelope).toStrictEqual({ result: 'done', logs: [] });
});

test('with countHostWaits, time spent waiting on a tool counts', async () => {
  const envelope = await sandbox.execute({
    timeout: 150,
    countHostWaits: true,
    providers: [{ name: 'slow' }],
    dispatch: () =>
      new Promise((resolve) => setTimeout(() => resolve(JSON.stringify({ result: 'done' })), 400)),
    code: 'async () => slow.wait()',
  });
  expect(envelope).toMatchObject({ error: executionTimeoutMessage(150), code: 'TIMEOUT' });
});

test('the host-wait edges reach the layer above, outermost only', async () => {
  const edges: boolean[] = [];
  await sandbox.execute({
    providers: [{ name: 'tools' }],
    // All three in flight at once: the edges are those of the outermost wait.
    dispatch: () => new Promise((resolve) => setTimeout(() => resolve(JSON.stringify({ result: 1 })), 50)),
    onHostWaitChanged: (waiting) => edges.push(waiting),
    code: 'async () => Promise.all([tools.a(), tools.b(), tools.c()])',
  });
  expect(edges).toStrictEqual([true, false]);
});
