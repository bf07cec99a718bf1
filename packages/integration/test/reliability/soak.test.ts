/**
 * The soak's short form (the full one is `tools/run soak`, docs/reliability.md): every kind of the
 * mix through a real IsolateExecutor, two callers per child, children retired by their service
 * life during the load. Every envelope carries its own execution's token and its kind's code, no
 * execution is lost, each child's memory stays within 15% of where it settled, and the caller's
 * descriptors and handles are where they were.
 */

import { IsolateExecutor } from '@supolka/codemode-executor';
import { afterAll, expect, test } from 'vitest';
import { KINDS } from '../../reliability/mix.ts';
import { resourcesGrown } from '../../reliability/process-sample.ts';
import { lifeGrowth } from '../../reliability/resident-life.ts';
import { runSoak } from '../../reliability/soak.ts';

const POOL_SIZE = 2;
const SERVICE_LIFE = 120;
const executor = new IsolateExecutor({
  poolSize: POOL_SIZE,
  maxExecutionsPerChild: SERVICE_LIFE,
  grace: 100,
});
afterAll(() => executor.dispose());

test('300 mixed executions: none lost, each with its own token and code; memory, descriptors and handles flat', async () => {
  const report = await runSoak({
    executor,
    executions: 300,
    callers: 2 * POOL_SIZE,
    poolSize: POOL_SIZE,
    seed: 14,
    warmup: 30,
    sampleInterval: 50,
    parentWarmup: 40,
    lostAfter: 60_000,
  });
  expect(report.lost).toStrictEqual([]);
  expect(report.wrong.map(({ kind, token, wrong }) => ({ kind, token, wrong }))).toStrictEqual([]);
  expect(Object.keys(report.outcomes).sort()).toStrictEqual(Object.keys(KINDS).sort());
  // Retirement happened: more lives than children, each replaced mid-load.
  expect(report.lives.length).toBeGreaterThan(POOL_SIZE);
  const grown = report.lives.map((life) => lifeGrowth(life, 30, 30)).filter((life) => life !== undefined);
  expect(grown.length).toBeGreaterThan(0);
  for (const life of grown) expect(life.floor.growth, `child ${life.pid}`).toBeLessThanOrEqual(0.15);
  expect(report.parentAfter.fds).toBeLessThanOrEqual(report.parentBefore.fds);
  expect(resourcesGrown(report.parentBefore, report.parentAfter)).toStrictEqual([]);
}, 300_000);
