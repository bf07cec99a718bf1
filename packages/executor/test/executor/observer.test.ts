/**
 * IsolateExecutor's onExecution observer through real children: what each execution cost (its
 * outcome and code, its tool calls and outbound requests, the bytes each way, its wait for a
 * child, its duration), for runs that end every way; an observer that throws harms nothing.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { IsolateExecutor } from '../../src/executor/isolate-executor.ts';
import type { ExecutionReport } from '../../src/executor/observer.ts';

const reports: ExecutionReport[] = [];
let throwing = false;
const executor = new IsolateExecutor({
  poolSize: 1,
  timeout: 5000,
  onExecution: (report) => {
    reports.push(report);
    if (throwing) throw new Error('the observer broke');
  },
});
afterAll(() => executor.dispose());

async function reportOf(run: () => Promise<unknown>): Promise<ExecutionReport> {
  reports.length = 0;
  await run();
  expect(reports).toHaveLength(1);
  return reports[0] as ExecutionReport;
}

describe('the report of an execution', () => {
  test('counts its calls and the bytes each way, and its wait for a child', async () => {
    const answer = 'a'.repeat(50_000);
    const report = await reportOf(() =>
      executor.execute({
        code: `async () => {
          const big = await t.big();
          await t.small();
          await fetch('https://example.test/');
          return big + 'b'.repeat(100000);
        }`,
        providers: [{ name: 't', fns: { big: () => answer, small: () => 1 } }],
        outbound: () => ({ status: 204, statusText: 'No Content', headers: [], body: null }),
      }),
    );
    expect(report).toMatchObject({ outcome: 'ok', code: undefined, toolCalls: 2, outboundRequests: 1 });
    // The tool's answer crossed to the child; the result, with both strings, came back.
    expect(report.bytesOut).toBeGreaterThan(answer.length);
    expect(report.bytesIn).toBeGreaterThan(answer.length + 100_000);
    expect(report.queueWait).toBeGreaterThanOrEqual(0);
    expect(report.duration).toBeGreaterThanOrEqual(report.queueWait as number);
  });

  test('a run the executor ended says its code; a program that failed says error', async () => {
    const timedOut = await reportOf(() =>
      executor.execute({ code: 'async () => { for (;;) {} }', timeout: 200 }),
    );
    expect(timedOut).toMatchObject({ outcome: 'TIMEOUT', code: 'TIMEOUT', toolCalls: 0 });
    const failed = await reportOf(() => executor.execute({ code: 'async () => { throw new Error("no") }' }));
    expect(failed).toMatchObject({ outcome: 'error', code: undefined });
  });

  test('a request refused before any child took it has no queue wait and moved no bytes', async () => {
    const report = await reportOf(() => executor.execute({ code: 'async () => 1', timeout: -1 }));
    expect(report).toMatchObject({
      outcome: 'BAD_REQUEST',
      code: 'BAD_REQUEST',
      queueWait: undefined,
      bytesOut: 0,
      bytesIn: 0,
    });
  });

  test('the Code Mode form is observed too', async () => {
    const report = await reportOf(() =>
      executor.execute('async () => await codemode.one()', { one: async () => 1 }),
    );
    expect(report).toMatchObject({ outcome: 'ok', toolCalls: 1 });
  });

  test('an observer that throws changes nothing for the caller', async () => {
    throwing = true;
    try {
      expect(await executor.execute({ code: 'async () => 42' })).toStrictEqual({ result: 42, logs: [] });
    } finally {
      throwing = false;
    }
    expect(reports.at(-1)).toMatchObject({ outcome: 'ok' });
  });
});
