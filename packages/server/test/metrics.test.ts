/**
 * The process's default metrics are one registry per process (metrics.ts): every server's /metrics
 * text carries them once, while each server's own families count apart.
 */
import { expect, test } from 'vitest';
import { ServerMetrics } from '../src/metrics.ts';

const gauges = () => ({ pool: { queued: 0, children: [] }, connections: 0, inFlight: 0 });

test('every server renders the process families, from one collection for the process', async () => {
  const servers = Array.from({ length: 50 }, () => new ServerMetrics(gauges));
  const texts = await Promise.all([servers[0], servers[49]].map((metrics) => metrics?.render()));
  for (const text of texts) {
    expect(text).toMatch(/^process_cpu_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    expect(text).toMatch(/^codemode_executions_total\{outcome="ok"\} 0$/m);
  }
  // The same family once per text: the server's own and the process's are not merged twice.
  expect(texts[1]?.match(/^# TYPE process_cpu_seconds_total/gm)).toHaveLength(1);
  // Counting apart: one server's execution is not another's.
  servers[0]?.execution({ result: 1, logs: [] }, 0.01);
  expect(await servers[0]?.render()).toMatch(/^codemode_executions_total\{outcome="ok"\} 1$/m);
  expect(await servers[1]?.render()).toMatch(/^codemode_executions_total\{outcome="ok"\} 0$/m);
});
