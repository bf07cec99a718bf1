/**
 * Retained handles across the pool: the execution lives in the child that ran it, invocations route
 * there, and everything that ends a retained execution (closeHandles, the idle timeout, a lost
 * child, an invocation that times out) leaves callers meeting HANDLES_CLOSED.
 */
import { ID_LIMIT } from '@supolka/codemode-protocol';
import { describe, expect, test } from 'vitest';
import { IsolateExecutor } from '../../src/executor/isolate-executor.ts';
import type { IsolateExecutorOptions } from '../../src/executor/options.ts';
import { timerWorkClosedMessage } from '../../src/sandbox/handles.ts';
import { EventLog } from '../pool/helpers.ts';

const COUNTER = `async () => {
  let hits = 0
  return { async fetch(request) { hits++; return new Response('hit ' + hits + ' ' + new URL(request.url).pathname + ' ' + (await request.text())) } }
}`;

function useExecutor(options: IsolateExecutorOptions = {}) {
  const log = new EventLog();
  const executor = new IsolateExecutor({ poolSize: 1, ...options, onPoolEvent: log.record });
  return { executor, log, [Symbol.asyncDispose]: () => executor.dispose() };
}

async function retain(executor: IsolateExecutor, code = COUNTER): Promise<string> {
  const envelope = await executor.execute({ code, retainHandles: true });
  expect(envelope).toStrictEqual({ result: undefined, logs: [], executionId: expect.any(String) });
  return envelope.executionId as string;
}

describe('a retained execution', () => {
  test('is invoked with standard Requests in the child that holds it, keeping its state, until closed', async () => {
    await using setup = useExecutor({ poolSize: 2 });
    const { executor } = setup;
    const id = await retain(executor);
    const first = await executor.invoke(
      id,
      new Request('https://handler.test/a', { method: 'POST', body: 'one' }),
    );
    expect(first).toBeInstanceOf(Response);
    expect([first.status, await first.text()]).toStrictEqual([200, 'hit 1 /a one']);
    expect(await (await executor.invoke(id, new Request('https://handler.test/b'))).text()).toBe('hit 2 /b ');
    await expect(
      executor.invoke(id, new Request('https://handler.test/'), 'scheduled' as never),
    ).rejects.toMatchObject({
      code: 'HANDLE_NOT_FOUND',
      name: 'HandleNotFoundError',
    });
    await executor.closeHandles(id);
    await expect(executor.invoke(id, new Request('https://handler.test/c'))).rejects.toMatchObject({
      code: 'HANDLES_CLOSED',
      message: `Execution ${id} holds no handles: they were closed, expired, or never granted.`,
    });
    await expect(executor.closeHandles(id)).rejects.toMatchObject({ code: 'HANDLES_CLOSED' });
  });

  test('left idle past handlesIdleTimeout is closed in its child; a caller after that meets HANDLES_CLOSED', async () => {
    // Long enough that the 10 ms poll below sees the execution held before it is closed, however
    // late a loaded machine runs the poll.
    await using setup = useExecutor({
      handlesIdleTimeout: 1000,
      heartbeatInterval: 20,
      heartbeatTimeout: 5000,
    });
    const { executor } = setup;
    const id = await retain(executor);
    await waitUntil(() => executor.stats().children[0]?.heldRetained === 1);
    // The pool stops routing to it, and the child reports through its heartbeat that it disposed it.
    await waitUntil(() => executor.stats().children[0]?.retained === 0);
    await waitUntil(() => executor.stats().children[0]?.heldRetained === 0);
    await expect(executor.invoke(id, new Request('https://handler.test/'))).rejects.toMatchObject({
      code: 'HANDLES_CLOSED',
    });
  });

  test('is not idle while an invocation runs, however long it takes within its bound', async () => {
    await using setup = useExecutor({ handlesIdleTimeout: 100 });
    const { executor } = setup;
    const id = await retain(
      executor,
      `async () => ({ fetch: async () => { await new Promise((r) => setTimeout(r, 400)); return new Response('slow') } })`,
    );
    expect(await (await executor.invoke(id, new Request('https://handler.test/'))).text()).toBe('slow');
    expect(executor.stats().children[0]?.retained).toBe(1);
    await executor.closeHandles(id);
  });

  test('keeps its child in service past the child service life until it closes', async () => {
    await using setup = useExecutor({ maxExecutionsPerChild: 1 });
    const { executor, log } = setup;
    const id = await retain(executor);
    const holder = (await log.next('retiring', () => true, true)).pid;
    // Retiring, yet alive and serving its handler; a replacement takes the new executions.
    expect(await (await executor.invoke(id, new Request('https://handler.test/still'))).text()).toBe(
      'hit 1 /still ',
    );
    expect((await executor.execute({ code: 'async () => "on the replacement"' })).result).toBe(
      'on the replacement',
    );
    expect(log.events.some((event) => event.type === 'exited' && event.pid === holder)).toBe(false);
    const exited = log.next('exited', (event) => event.pid === holder, true);
    await executor.closeHandles(id);
    await exited;
  });

  test('a child at maxRetainedPerChild takes no retaining execution until one of its own closes', async () => {
    await using setup = useExecutor({ maxRetainedPerChild: 1 });
    const { executor } = setup;
    const first = await retain(executor);
    const second = executor.execute({ code: COUNTER, retainHandles: true });
    await waitUntil(() => executor.stats().queued === 1);
    // An execution that retains nothing still runs on the same child.
    expect((await executor.execute({ code: 'async () => 1' })).result).toBe(1);
    expect(executor.stats().queued).toBe(1);
    await executor.closeHandles(first);
    const granted = await second;
    expect(granted.executionId).toEqual(expect.any(String));
    await executor.closeHandles(granted.executionId as string);
  });

  test('goes with its child: after the child is killed, invoke meets HANDLES_CLOSED', async () => {
    await using setup = useExecutor();
    const { executor, log } = setup;
    const id = await retain(executor);
    const [pid] = log.pids('spawned');
    const exited = log.next('exited', (event) => event.pid === pid);
    process.kill(pid as number, 'SIGKILL');
    await exited;
    await expect(executor.invoke(id, new Request('https://handler.test/'))).rejects.toMatchObject({
      code: 'HANDLES_CLOSED',
    });
  });

  test('an invocation that times out ends it: TIMEOUT, then HANDLES_CLOSED', async () => {
    await using setup = useExecutor({ timeout: 200, grace: 100 });
    const { executor } = setup;
    const id = await retain(executor, `async () => ({ fetch: () => new Promise(() => {}) })`);
    await expect(executor.invoke(id, new Request('https://handler.test/'))).rejects.toMatchObject({
      code: 'TIMEOUT',
    });
    // The route went with it, so the slot is free and a retiring child is not pinned.
    expect(executor.stats().children[0]?.retained).toBe(0);
    await expect(executor.invoke(id, new Request('https://handler.test/'))).rejects.toMatchObject({
      code: 'HANDLES_CLOSED',
    });
  });
});

describe('an executionId no executor mints', () => {
  test('is refused by invoke and closeHandles with BAD_REQUEST naming the field and its rule, never echoed', async () => {
    await using setup = useExecutor();
    const { executor } = setup;
    const id = await retain(executor);
    const huge = `${id}${'x'.repeat(10 * 1024 * 1024)}`;
    const tooLong = { name: 'BadRequestError', code: 'BAD_REQUEST' };
    await expect(executor.invoke(huge, new Request('https://handler.test/'))).rejects.toMatchObject({
      ...tooLong,
      message: `Invalid invoke call: executionId must be at most ${ID_LIMIT} characters.`,
    });
    await expect(executor.closeHandles(huge)).rejects.toMatchObject({
      ...tooLong,
      message: `Invalid closeHandles call: executionId must be at most ${ID_LIMIT} characters.`,
    });
    await expect(executor.invoke('', new Request('https://handler.test/'))).rejects.toMatchObject({
      ...tooLong,
      message: 'Invalid invoke call: executionId must not be empty.',
    });
    await expect(executor.closeHandles(7 as never)).rejects.toMatchObject({
      ...tooLong,
      message: 'Invalid closeHandles call: executionId must be a string.',
    });
    // The execution those refusals did not name still serves, and closes.
    expect(await (await executor.invoke(id, new Request('https://handler.test/a'))).text()).toBe('hit 1 /a ');
    await executor.closeHandles(id);
  });
});

describe('timer work a retained execution leaves behind', () => {
  test('keeps its child busy for scheduling until the bound disposes it; the next invoke says why', async () => {
    await using setup = useExecutor({ heartbeatInterval: 20, grace: 100 });
    const { executor } = setup;
    const envelope = await executor.execute({
      retainHandles: true,
      timeout: 400,
      code: `async () => { setTimeout(() => { for (;;) {} }, 50); return { fetch: () => new Response('x') } }`,
    });
    const id = envelope.executionId as string;
    // The child reports the working timer in its heartbeat; it is not idle, so new work queues.
    await waitUntil(() => executor.stats().children[0]?.state === 'busy');
    const later = executor.execute({ code: 'async () => "after the spin"' });
    expect(executor.stats().queued).toBe(1);
    expect((await later).result).toBe('after the spin');
    await expect(executor.invoke(id, new Request('https://handler.test/'))).rejects.toMatchObject({
      code: 'HANDLES_CLOSED',
      message: timerWorkClosedMessage(id, 500),
    });
    expect(executor.stats().children[0]?.retained).toBe(0);
  });
});

async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}
