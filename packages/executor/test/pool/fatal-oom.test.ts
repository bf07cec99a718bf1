/**
 * V8's fatal out-of-memory in one isolate of a child: isolated-vm calls that isolate's
 * catastrophic-error callback and the child ends. The execution whose isolate it was reads
 * MEMORY_LIMIT with the memory text; another caller's retained execution in that child reads
 * HANDLES_CLOSED; the child is replaced and the next execution succeeds.
 *
 * No guest program reaches V8's fatal out-of-memory reliably on this build (isolated-vm grants the
 * heap 1 GiB more near its limit, then terminates the isolate at the next full collection), so the
 * catastrophicOnTool hook reports it for the calling run's isolate, through the same callback.
 */
import { memoryLimitMessage } from '@supolka/codemode-protocol';
import { expect, test } from 'vitest';
import { TOOLS_PROVIDER, Tools, usePool } from './helpers.ts';

test('a fatal out-of-memory reads MEMORY_LIMIT for its execution, HANDLES_CLOSED for the retained one beside it', async () => {
  const { pool, log } = usePool({ size: 1, testHooks: { catastrophicOnTool: 'oom' } });
  const tools = new Tools();
  const retained = await pool.execute({
    code: `async () => ({ fetch: () => new Response('kept') })`,
    retainHandles: true,
  });
  const executionId = retained.executionId as string;
  expect(executionId).toEqual(expect.any(String));
  const [pid] = log.pids('spawned');

  const envelope = await pool.execute(
    { code: 'async () => await tools.oom()', providers: TOOLS_PROVIDER, memoryLimit: 96 },
    { dispatch: tools.dispatch },
  );
  expect(envelope).toStrictEqual({
    result: undefined,
    error: memoryLimitMessage(96),
    code: 'MEMORY_LIMIT',
    logs: [],
  });
  const exited = await log.next('exited', (event) => event.pid === pid, true);
  expect(exited.cause).toBe(
    "an isolate in it ran out of memory (V8's fatal out-of-memory error), and the process ended on SIGABRT",
  );
  await expect(
    pool.invoke(executionId, 'fetch', { method: 'GET', url: 'https://h.test/', headers: [], body: null }),
  ).rejects.toMatchObject({ code: 'HANDLES_CLOSED' });
  expect(await pool.execute({ code: 'async () => 4' })).toStrictEqual({ result: 4, logs: [] });
  expect(log.pids('spawned')).toHaveLength(2);
});
