/**
 * Chaos's short form (the full one is `tools/run chaos`, docs/reliability.md): the mix under load
 * on a real pool while children get SIGKILL and SIGSTOP at random moments. Every run comes back
 * as its kind ends or WORKER_LOST naming the kill or the silence, at most one per child lost; none
 * hangs; every victim is gone and the pool is back at its size; the caller's descriptors and
 * handles are where they were.
 */

import type { PoolEvent } from '@supolka/codemode-executor';
import { IsolateExecutor } from '@supolka/codemode-executor';
import { afterAll, expect, test } from 'vitest';
import { runChaos } from '../../reliability/chaos.ts';
import { resourcesGrown } from '../../reliability/process-sample.ts';

const POOL_SIZE = 2;
const events: PoolEvent[] = [];
const executor = new IsolateExecutor({
  poolSize: POOL_SIZE,
  grace: 100,
  heartbeatInterval: 250,
  heartbeatTimeout: 2000,
  killTimeout: 500,
  onPoolEvent: (event) => events.push(event),
});
afterAll(() => executor.dispose());

test('100 mixed executions through 4 SIGKILLs and SIGSTOPs: each settles with its code, the pool recovers', async () => {
  const report = await runChaos({
    executor,
    poolSize: POOL_SIZE,
    executions: 100,
    callers: 2 * POOL_SIZE,
    signals: 4,
    pause: [300, 900],
    seed: 14,
    warmup: 20,
    // A hang, not a slow start: under load a replacement takes seconds to start, and queued runs wait for it.
    bound: 120_000,
  });
  expect(report.wrong.map(({ kind, token, wrong }) => ({ kind, token, wrong }))).toStrictEqual([]);
  expect(report.lost.other).toStrictEqual([]);
  expect(report.victims).toHaveLength(4);
  const killed = report.victims.filter((victim) => victim.signal === 'SIGKILL').length;
  // A loaded machine can make a child nobody stopped miss its heartbeat too: the pool ends it the same way.
  const silenced = events.filter(
    (event) => event.type === 'terminating' && event.reason.startsWith('it stopped answering its heartbeat'),
  ).length;
  expect(report.lost.killed).toBeLessThanOrEqual(killed);
  expect(report.lost.silent).toBeLessThanOrEqual(silenced);
  expect(report.pastBound).toStrictEqual([]);
  expect(report.survivors).toStrictEqual([]);
  expect(report.parentAfter.fds).toBeLessThanOrEqual(report.parentBefore.fds);
  expect(resourcesGrown(report.parentBefore, report.parentAfter)).toStrictEqual([]);
}, 300_000);
