/**
 * A catastrophic error whose text is about neither memory nor a failed termination: the engine can
 * no longer vouch for the process, nobody is shown to have caused it, so everything the child held
 * reads WORKER_LOST with the engine's own text and the child is replaced. No program is known to
 * reach such a text, so the catastrophicOnTool hook reports one for the calling run's isolate,
 * through the same callback isolated-vm calls.
 */
import { workerLostMessage } from '@supolka/codemode-protocol';
import { expect, test } from 'vitest';
import { HOOK_CATASTROPHE_TEXT } from '../../src/pool/child/memory-guard.ts';
import { TOOLS_PROVIDER, Tools, usePool } from './helpers.ts';

test("any other catastrophe text: WORKER_LOST with the engine's text for the run, HANDLES_CLOSED for the retained one", async () => {
  const { pool, log } = usePool({ size: 1, testHooks: { catastrophicOnTool: 'boom' } });
  const retained = await pool.execute({
    code: `async () => ({ fetch: () => new Response('kept') })`,
    retainHandles: true,
  });
  const executionId = retained.executionId as string;
  const [pid] = log.pids('spawned');
  const tools = new Tools();
  const cause = `isolated-vm reported a catastrophic engine error (${HOOK_CATASTROPHE_TEXT}), and the process ended on SIGABRT`;

  expect(
    await pool.execute(
      { code: 'async () => await tools.boom()', providers: TOOLS_PROVIDER },
      { dispatch: tools.dispatch },
    ),
  ).toStrictEqual({ result: undefined, error: workerLostMessage(cause), code: 'WORKER_LOST', logs: [] });
  expect((await log.next('exited', (event) => event.pid === pid, true)).cause).toBe(cause);
  await expect(
    pool.invoke(executionId, 'fetch', { method: 'GET', url: 'https://h.test/', headers: [], body: null }),
  ).rejects.toMatchObject({ code: 'HANDLES_CLOSED' });
  expect(await pool.execute({ code: 'async () => 7' })).toStrictEqual({ result: 7, logs: [] });
});
