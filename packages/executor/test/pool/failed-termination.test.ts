/**
 * A termination the engine cannot carry out: a builtin that never checks for interrupts
 * (`Array.prototype.fill` over 2 ** 27 elements, `Object.keys` of such an array) keeps running
 * after the run's bound, and 5 s after its timer fired isolated-vm reports "Script failed to
 * terminate" and the child ends. The run reads TIMEOUT with the standard text: the host's own race
 * at the bound settles it before that, and the callback blames no bystander for an isolate already
 * disposed. What the child held then reads WORKER_LOST naming the engine's text, a retained
 * execution beside it HANDLES_CLOSED, and the replacement serves.
 *
 * memoryLimit is the largest the executor accepts, so the backstop's ceiling is far above what the
 * builtin allocates in those 5 s (about 600 MB measured) and the timer is what asked it to stop.
 */
import { executionTimeoutMessage, MAX_MEMORY_LIMIT, workerLostMessage } from '@supolka/codemode-protocol';
import { expect, test } from 'vitest';
import { causeOfCatastrophe, FAILED_TERMINATION_TEXT } from '../../src/pool/catastrophe.ts';
import { TOOLS_PROVIDER, Tools, usePool } from './helpers.ts';

const CAUSE = `isolated-vm reported a catastrophic engine error (${FAILED_TERMINATION_TEXT}), and the process ended on SIGABRT`;
const GET = { method: 'GET', url: 'https://h.test/', headers: [] as [string, string][], body: null };

const UNINTERRUPTIBLE = {
  'Array.prototype.fill over 2 ** 27 elements': `new Array(2 ** 27).fill(1.5)`,
  'Object.keys of an array of 2 ** 27 elements': `Object.keys(new Array(2 ** 27).fill(0))`,
};

test.each(Object.entries(UNINTERRUPTIBLE))(
  '%s past a 50 ms timeout: TIMEOUT for the run, WORKER_LOST for the run beside it, HANDLES_CLOSED for the retained one',
  async (_, builtin) => {
    const { pool, log } = usePool({ size: 1, grace: 0 });
    const retained = await pool.execute({
      code: `async () => ({ fetch: () => new Response('kept') })`,
      retainHandles: true,
    });
    const executionId = retained.executionId as string;
    const [pid] = log.pids('spawned');

    expect(
      await pool.execute({
        code: `async () => { await 0; ${builtin}; return 1 }`,
        memoryLimit: MAX_MEMORY_LIMIT,
        timeout: 50,
      }),
    ).toStrictEqual({ result: undefined, error: executionTimeoutMessage(50), code: 'TIMEOUT', logs: [] });

    // A bystander in flight when the child ends: the engine's report takes it too.
    const tools = new Tools();
    const bystander = pool.execute(
      { code: 'async () => await tools.gate("held")', providers: TOOLS_PROVIDER },
      { dispatch: tools.dispatch },
    );
    const exited = await log.next('exited', (event) => event.pid === pid, true);
    expect(exited.cause).toBe(CAUSE);
    expect(await bystander).toStrictEqual({
      result: undefined,
      error: workerLostMessage(CAUSE),
      code: 'WORKER_LOST',
      logs: [],
    });
    await expect(pool.invoke(executionId, 'fetch', GET)).rejects.toMatchObject({ code: 'HANDLES_CLOSED' });
    expect(await pool.execute({ code: 'async () => 5' })).toStrictEqual({ result: 5, logs: [] });
  },
  60_000,
);

test("an invocation past its bound in such a builtin reads TIMEOUT; the child's end follows", async () => {
  const { pool, log } = usePool({ size: 1, grace: 0 });
  const retained = await pool.execute({
    code: `async () => ({ fetch: () => { new Array(2 ** 27).fill(1.5); return new Response('never') } })`,
    retainHandles: true,
    memoryLimit: MAX_MEMORY_LIMIT,
    timeout: 50,
  });
  const executionId = retained.executionId as string;
  const [pid] = log.pids('spawned');
  await expect(pool.invoke(executionId, 'fetch', GET)).rejects.toMatchObject({
    code: 'TIMEOUT',
    message: executionTimeoutMessage(50),
  });
  expect((await log.next('exited', (event) => event.pid === pid, true)).cause).toBe(CAUSE);
  expect(await pool.execute({ code: 'async () => 6' })).toStrictEqual({ result: 6, logs: [] });
}, 60_000);

test('a failed termination reads by what the process shows: memory past every limit, else the bound', () => {
  const text = FAILED_TERMINATION_TEXT;
  expect(causeOfCatastrophe(text, { overLimits: true, boundPassed: true })).toBe('memory');
  expect(causeOfCatastrophe(text, { overLimits: false, boundPassed: true })).toBe('timeout');
  expect(causeOfCatastrophe(text, { overLimits: false, boundPassed: false })).toBe('memory');
  expect(
    causeOfCatastrophe('Catastrophic out-of-memory error', { overLimits: false, boundPassed: true }),
  ).toBe('memory');
  expect(causeOfCatastrophe('some other engine state', { overLimits: true, boundPassed: true })).toBe(
    'engine',
  );
});
