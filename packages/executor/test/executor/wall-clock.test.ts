/**
 * The wall-clock bound of IsolateExecutor (docs/pool.md, "The wall-clock bound"): the run clock
 * pauses while a tool is awaited, so a tool that never answers is ended by this bound instead,
 * with TIMEOUT and a text naming the call still pending; the tool's function reads a signal that
 * fires; an approval-style wait under pauseWallClock is not cut short; invocations are bounded too.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { MAX_DELAY } from '@supolka/codemode-protocol';
import { describe, expect, test } from 'vitest';
import { IsolateExecutor } from '../../src/executor/isolate-executor.ts';
import type { IsolateExecutorOptions } from '../../src/executor/options.ts';
import { pauseWallClock, toolSignal } from '../../src/executor/tool-context.ts';
import {
  defaultWallClockLimit,
  executionPastWallClockMessage,
  invocationPastWallClockMessage,
} from '../../src/executor/wall-clock.ts';

/**
 * One child, started before the test's execution: the bound counts the queue too, and a child's
 * start is not what these tests are about.
 */
async function useExecutor(options: IsolateExecutorOptions = {}) {
  const executor = new IsolateExecutor({ poolSize: 1, ...options });
  await executor.engine();
  return { executor, [Symbol.asyncDispose]: () => executor.dispose() };
}

/** A tool that never answers, and the signal its function was handed, once it was called. */
function hangingTool() {
  const seen = Promise.withResolvers<AbortSignal | undefined>();
  const fns = {
    hang: () => {
      seen.resolve(toolSignal());
      return new Promise<never>(() => {});
    },
  };
  return { fns, signal: seen.promise };
}

describe('the wall-clock bound of an execution', () => {
  test('ends a run parked on a tool that never answers with TIMEOUT naming the tool, and fires its signal', async () => {
    await using setup = await useExecutor({ wallClockLimit: 2000 });
    const { executor } = setup;
    const kv = hangingTool();
    const envelope = await executor.execute({
      code: 'async () => { console.log("asking"); return await kv.hang() }',
      providers: [{ name: 'kv', fns: kv.fns }],
      timeout: 1000,
    });
    const text = executionPastWallClockMessage(2000, 'tool call kv.hang', 0);
    expect(text).toBe(
      'Execution took longer than its wallClockLimit of 2000 ms, which counts time spent queued, running and waiting on tools, so the executor ended it; it was still waiting on the tool call kv.hang.',
    );
    expect(envelope).toStrictEqual({
      result: undefined,
      code: 'TIMEOUT',
      error: text,
      // The executor ended the run, as a cancellation does: what it logged is not kept.
      logs: [],
    });
    const signal = await kv.signal;
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toMatchObject({ message: text });
    // The only child is free again.
    expect(await executor.execute({ code: 'async () => 1 + 1' })).toStrictEqual({ result: 2, logs: [] });
  });

  test('by default is twice the run bound, and never under twice the default run bound', () => {
    expect(defaultWallClockLimit(500)).toBe(120_000);
    expect(defaultWallClockLimit(60_000)).toBe(120_000);
    expect(defaultWallClockLimit(100_000)).toBe(200_000);
    expect(defaultWallClockLimit(MAX_DELAY)).toBe(MAX_DELAY);
  });

  test('ends a program that keeps catching failed tool calls, which the run clock never charges', async () => {
    await using setup = await useExecutor({ wallClockLimit: 1000 });
    let calls = 0;
    const envelope = await setup.executor.execute({
      code: 'async () => { for (;;) { try { await kv.fail() } catch {} } }',
      providers: [
        { name: 'kv', fns: { fail: () => sleep(10).then(() => Promise.reject(new Error(`no ${++calls}`))) } },
      ],
      timeout: 500,
    });
    expect(envelope).toMatchObject({ code: 'TIMEOUT' });
    expect(envelope.error).toMatch(/^Execution took longer than its wallClockLimit of 1000 ms/);
    expect(calls).toBeGreaterThan(1);
  });

  test('names the oldest of several pending calls, outbound requests included, and counts the rest', async () => {
    await using setup = await useExecutor({ wallClockLimit: 2000 });
    const kv = hangingTool();
    const envelope = await setup.executor.execute({
      code: 'async () => Promise.all([kv.hang(), fetch("https://example.test/a"), kv.hang()])',
      providers: [{ name: 'kv', fns: kv.fns }],
      outbound: () => new Promise(() => {}),
    });
    expect(envelope).toMatchObject({ code: 'TIMEOUT' });
    // The program starts the three in order; the child sends them in that order.
    expect(envelope.error).toBe(executionPastWallClockMessage(2000, 'tool call kv.hang', 2));
  });

  test('a caller who cancels first gets CANCELLED, and the tool signal fires all the same', async () => {
    await using setup = await useExecutor({ wallClockLimit: 60_000 });
    const kv = hangingTool();
    const controller = new AbortController();
    const running = setup.executor.execute(
      { code: 'async () => kv.hang()', providers: [{ name: 'kv', fns: kv.fns }] },
      { signal: controller.signal },
    );
    const signal = await kv.signal;
    expect(signal?.aborted).toBe(false);
    controller.abort(new Error('the user left'));
    expect(await running).toMatchObject({ code: 'CANCELLED' });
    expect(signal?.aborted).toBe(true);
  });

  test('stops while a tool waits under pauseWallClock, as for a person answering an approval', async () => {
    await using setup = await useExecutor({ wallClockLimit: 2000 });
    const envelope = await setup.executor.execute({
      code: 'async () => approvals.ask()',
      providers: [
        {
          name: 'approvals',
          fns: { ask: () => pauseWallClock(() => sleep(3000).then(() => 'approved')) },
        },
      ],
    });
    expect(envelope).toStrictEqual({ result: 'approved', logs: [] });
  });

  test('outside a tool call there is no tool signal, and pauseWallClock just waits', async () => {
    expect(toolSignal()).toBeUndefined();
    expect(await pauseWallClock(async () => 'done')).toBe('done');
  });

  test('ends the Code Mode form too, with the same text', async () => {
    await using setup = await useExecutor({ wallClockLimit: 3000 });
    const kv = hangingTool();
    const result = await setup.executor.execute('async () => codemode.hang()', kv.fns);
    expect(result).toMatchObject({
      error: executionPastWallClockMessage(3000, 'tool call codemode.hang', 0),
    });
  });

  test('is a whole number of ms from 1 to MAX_DELAY', () => {
    expect(() => new IsolateExecutor({ wallClockLimit: 0 })).toThrow(
      'IsolateExecutor option wallClockLimit must be a whole number from 1 to 2147483647; got 0.',
    );
  });
});

describe('the wall-clock bound of an invocation', () => {
  test('ends an invocation waiting on a tool that never answers, naming the tool, and fires its signal', async () => {
    await using setup = await useExecutor({ wallClockLimit: 2000 });
    const { executor } = setup;
    const kv = hangingTool();
    const closed = Promise.withResolvers<void>();
    const granted = await executor.execute(
      {
        code: 'async () => ({ fetch: async () => new Response(await kv.hang()) })',
        providers: [{ name: 'kv', fns: kv.fns }],
        retainHandles: true,
        timeout: 1000,
      },
      { onHandlesClosed: () => closed.resolve() },
    );
    const id = granted.executionId as string;
    expect(id).toEqual(expect.any(String));
    const text = invocationPastWallClockMessage(2000, 'tool call kv.hang', 0);
    expect(text).toBe(
      'The invocation took longer than its wallClockLimit of 2000 ms, which counts time spent running and waiting on tools, so the executor ended it and closed the retained execution; it was still waiting on the tool call kv.hang.',
    );
    await expect(executor.invoke(id, new Request('http://handler.test/'))).rejects.toMatchObject({
      code: 'TIMEOUT',
      message: text,
    });
    const signal = await kv.signal;
    expect(signal?.reason).toMatchObject({ message: text });
    await closed.promise;
    await expect(executor.invoke(id, new Request('http://handler.test/'))).rejects.toMatchObject({
      code: 'HANDLES_CLOSED',
    });
  });

  test('ends an invocation parked past it with TIMEOUT, closes its execution and frees the child', async () => {
    await using setup = await useExecutor({ wallClockLimit: 1000, timeout: 60_000 });
    const { executor } = setup;
    const granted = await executor.execute({
      code: 'async () => ({ fetch: async () => { await new Promise(() => {}); return new Response("never") } })',
      retainHandles: true,
    });
    const id = granted.executionId as string;
    expect(id).toEqual(expect.any(String));
    await expect(executor.invoke(id, new Request('http://handler.test/'))).rejects.toMatchObject({
      code: 'TIMEOUT',
      name: 'ExecutionTimeoutError',
      message: invocationPastWallClockMessage(1000, undefined, 0),
    });
    await expect(executor.invoke(id, new Request('http://handler.test/'))).rejects.toMatchObject({
      code: 'HANDLES_CLOSED',
    });
    expect(await executor.execute({ code: 'async () => 1 + 1' })).toStrictEqual({ result: 2, logs: [] });
  });
});
