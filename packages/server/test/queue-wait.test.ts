/**
 * The server's queue-wait histogram on GET /metrics, fed from the pool's hand-off through the
 * executor's onExecution observer, against a real server with a pool of one: runs that queued
 * behind each other are counted, and the caller's own observer still sees each run.
 */
import { expect, test } from 'vitest';
import type { ExecutionReport } from '../../executor/src/executor/observer.ts';
import { connect, useServer } from './helpers.ts';

const observed: ExecutionReport[] = [];
const setup = useServer({ executor: { poolSize: 1, onExecution: (report) => observed.push(report) } });

async function queueWait(): Promise<{ count: number; sum: number }> {
  const text = await (await fetch(new URL('/metrics', setup.server.url.replace('ws:', 'http:')))).text();
  return {
    count: Number(/^codemode_queue_wait_seconds_count (\d+)$/m.exec(text)?.[1]),
    sum: Number(/^codemode_queue_wait_seconds_sum (\S+)$/m.exec(text)?.[1]),
  };
}

test('every run a child took is counted, and runs queued behind a busy child waited', async () => {
  const before = await queueWait();
  const client = await connect(setup.server);
  const envelopes = await Promise.all(
    [1, 2, 3].map((n) =>
      client.execute({
        code: `async () => { const end = Date.now() + 50; while (Date.now() < end); return ${n} }`,
      }),
    ),
  );
  expect(envelopes.map((envelope) => envelope.result)).toStrictEqual([1, 2, 3]);
  const after = await queueWait();
  expect(after.count - before.count).toBe(3);
  // With one child, the second and third runs waited while the first spun.
  expect(after.sum).toBeGreaterThan(before.sum);
  expect(observed.filter((report) => report.queueWait !== undefined)).toHaveLength(before.count + 3);
});
