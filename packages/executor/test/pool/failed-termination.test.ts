/**
 * An isolate that keeps running after its run ended: a builtin that never checks for interrupts
 * (`Array.prototype.fill` over 2 ** 27 elements, `Object.keys` of such an array) goes on after the
 * sandbox disposed its isolate at the bound or at a cancel, on the isolate's own thread. The run
 * reads TIMEOUT (or CANCELLED) with the standard text; before that answer the child says it is
 * wedged (its disposed isolate did not stop within ISOLATE_SETTLE_BOUND), so the pool takes it out
 * of service and kills it once it answered. No later execution is ever given to it: the next one
 * runs on the replacement and succeeds, and a retained execution the wedged child held reads
 * HANDLES_CLOSED, since its process is gone.
 *
 * memoryLimit is the largest the executor accepts, so neither the engine's limit nor the backstop
 * ends the builtin first: the wedge is what ends the child.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cancelledMessage, executionTimeoutMessage, MAX_MEMORY_LIMIT } from '@supolka/codemode-protocol';
import { expect, onTestFinished, test } from 'vitest';
import { causeOfCatastrophe, FAILED_TERMINATION_TEXT } from '../../src/pool/catastrophe.ts';
import { WEDGED_REASON } from '../../src/pool/exit-cause.ts';
import type { Pool } from '../../src/pool/pool.ts';
import type { DispatchFunction } from '../../src/sandbox/dispatch.ts';
import { busyChild, type EventLog, TOOLS_PROVIDER, Tools, usePool } from './helpers.ts';

const CAUSE = `${WEDGED_REASON}; the pool ended it with SIGKILL`;
const GET = { method: 'GET', url: 'https://h.test/', headers: [] as [string, string][], body: null };

const UNINTERRUPTIBLE = {
  'Array.prototype.fill over 2 ** 27 elements': `new Array(2 ** 27).fill(1.5)`,
  'Object.keys of an array of 2 ** 27 elements': `Object.keys(new Array(2 ** 27).fill(0))`,
  'Array.prototype.fill.call with a string over 2 ** 27 holes': `Array.prototype.fill.call(new Array(2 ** 27), 'x')`,
};

/**
 * After the wedged child `pid` answered: it retired for the wedge and was killed, and the next
 * execution, held inside a tool call, runs on the replacement, never on `pid`, and succeeds.
 */
async function nextRunsElsewhere(pool: Pool, log: EventLog, pid: number): Promise<void> {
  const retiring = await log.next('retiring', (event) => event.pid === pid, true);
  expect(retiring.reason).toBe(WEDGED_REASON);
  const tools = new Tools();
  const bystander = pool.execute(
    { code: 'async () => await tools.gate("held")', providers: TOOLS_PROVIDER },
    { dispatch: tools.dispatch },
  );
  await tools.arrived('held');
  const replacement = busyChild(pool);
  expect(replacement).not.toBe(pid);
  expect(log.pids('spawned')).toContain(replacement);
  tools.open('held', 'served');
  expect(await bystander).toStrictEqual({ result: 'served', logs: [] });
  expect((await log.next('exited', (event) => event.pid === pid, true)).cause).toBe(CAUSE);
}

test.each(Object.entries(UNINTERRUPTIBLE))(
  '%s past a 50 ms timeout, under the engine timer: TIMEOUT, the child retired, the next run elsewhere, HANDLES_CLOSED for the retained one',
  async (_, builtin) => {
    const { pool, log } = usePool({ size: 1, grace: 0 });
    const retained = await pool.execute({
      code: `async () => ({ fetch: () => new Response('kept') })`,
      retainHandles: true,
    });
    const executionId = retained.executionId as string;
    const [pid] = log.pids('spawned') as [number];

    expect(
      await pool.execute({
        code: `async () => { await 0; ${builtin}; return 1 }`,
        memoryLimit: MAX_MEMORY_LIMIT,
        timeout: 50,
      }),
    ).toStrictEqual({ result: undefined, error: executionTimeoutMessage(50), code: 'TIMEOUT', logs: [] });
    await nextRunsElsewhere(pool, log, pid);
    await expect(pool.invoke(executionId, 'fetch', GET)).rejects.toMatchObject({ code: 'HANDLES_CLOSED' });
  },
  60_000,
);

test('started after a tool call, where no engine timer covers it: TIMEOUT, the next run elsewhere', async () => {
  const { pool, log } = usePool({ size: 1, grace: 0 });
  await pool.execute({ code: 'async () => 0' });
  const [pid] = log.pids('spawned') as [number];
  const tools = new Tools();
  expect(
    await pool.execute(
      {
        code: `async () => { await tools.echo(1); new Array(2 ** 27).fill(1.5); return 1 }`,
        providers: TOOLS_PROVIDER,
        memoryLimit: MAX_MEMORY_LIMIT,
        timeout: 50,
      },
      { dispatch: tools.dispatch },
    ),
  ).toStrictEqual({ result: undefined, error: executionTimeoutMessage(50), code: 'TIMEOUT', logs: [] });
  await nextRunsElsewhere(pool, log, pid);
}, 60_000);

test('cancelled while the builtin runs: CANCELLED, the next run elsewhere', async () => {
  const { pool, log } = usePool({ size: 1, grace: 0 });
  await pool.execute({ code: 'async () => 0' });
  const [pid] = log.pids('spawned') as [number];
  const controller = new AbortController();
  // The call is not awaited: the isolate goes on into the builtin while the parent serves it.
  const dispatch: DispatchFunction = async () => {
    controller.abort(new Error('the test cancels it'));
    return JSON.stringify({ result: null });
  };
  const run = await pool.execute(
    {
      code: `async () => { tools.filling(); Object.keys(new Array(2 ** 27).fill(0)); return 1 }`,
      providers: TOOLS_PROVIDER,
      memoryLimit: MAX_MEMORY_LIMIT,
      timeout: 60_000,
    },
    { dispatch, signal: controller.signal },
  );
  expect(run).toMatchObject({ code: 'CANCELLED', error: cancelledMessage('the test cancels it') });
  await nextRunsElsewhere(pool, log, pid);
}, 60_000);

/**
 * Grants a fetch handler that fills a gigabyte, bound at 300 ms, on the pool's one child; answers
 * its executionId and the child's pid.
 */
async function grantFilling(pool: Pool, log: EventLog): Promise<{ executionId: string; pid: number }> {
  // A fresh child's first run pays its one-time costs inside its bound (over 300 ms measured at a
  // load average of 10); the grant must fit its bound, so it runs on a child that has run before.
  await pool.execute({ code: 'async () => 0' });
  const retained = await pool.execute({
    code: `async () => ({ fetch: () => { new Array(2 ** 27).fill(1.5); return new Response('never') } })`,
    retainHandles: true,
    memoryLimit: MAX_MEMORY_LIMIT,
    // The grant itself must fit its bound on a loaded machine; the fill of a gigabyte outlasts it.
    timeout: 300,
  });
  expect(retained).toStrictEqual({ result: undefined, logs: [], executionId: expect.any(String) });
  const [pid] = log.pids('spawned') as [number];
  return { executionId: retained.executionId as string, pid };
}

test('an invocation past its bound in such a builtin reads TIMEOUT; the next run goes elsewhere', async () => {
  const { pool, log } = usePool({ size: 1, grace: 0 });
  const { executionId, pid } = await grantFilling(pool, log);
  await expect(pool.invoke(executionId, 'fetch', GET)).rejects.toMatchObject({
    code: 'TIMEOUT',
    message: executionTimeoutMessage(300),
  });
  await nextRunsElsewhere(pool, log, pid);
}, 60_000);

test('an invocation whose TIMEOUT the child sends long after its wedge report still reads TIMEOUT', async () => {
  // The child says it is wedged, then answers the invocation: a loaded machine can stall it between
  // the two, and the pool must not kill it (and lose the answer) before the answer is in.
  const folder = mkdtempSync(join(tmpdir(), 'wedge-answer-'));
  onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
  const marker = join(folder, 'answer');
  const { pool, log } = usePool({ size: 1, grace: 0, testHooks: { holdAnswerAfterWedge: marker } });
  const { executionId, pid } = await grantFilling(pool, log);
  const invocation = pool.invoke(executionId, 'fetch', GET).catch((error: unknown) => error);
  // The pool heard the wedge report (its `retiring`); only then may the child answer.
  await log.next('retiring', (event) => event.pid === pid, true);
  writeFileSync(marker, '');
  expect(await invocation).toMatchObject({ code: 'TIMEOUT', message: executionTimeoutMessage(300) });
  await nextRunsElsewhere(pool, log, pid);
}, 60_000);

test('a run ended at its bound by an interruptible loop leaves its child in service', async () => {
  const { pool, log } = usePool({ size: 1, grace: 0 });
  const tools = new Tools();
  expect(
    await pool.execute(
      { code: `async () => { await tools.echo(1); for (;;) {} }`, providers: TOOLS_PROVIDER, timeout: 50 },
      { dispatch: tools.dispatch },
    ),
  ).toStrictEqual({ result: undefined, error: executionTimeoutMessage(50), code: 'TIMEOUT', logs: [] });
  expect(await pool.execute({ code: 'async () => 7' })).toStrictEqual({ result: 7, logs: [] });
  expect(log.pids('spawned')).toHaveLength(1);
  expect(log.pids('retiring')).toHaveLength(0);
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
