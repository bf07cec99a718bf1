/**
 * prom-client's default metrics are loaded with import() (metrics.ts). A load that fails leaves the
 * server's own families served, says why the process's are missing in a comment that names no path,
 * and is tried again at a later scrape; it never ends the process. In a process of its own, with a
 * resolve hook refusing the load the first time.
 */
import { spawnSync } from 'node:child_process';
import { expect, test } from 'vitest';

test('a failed load of the default metrics is said at the scrape and tried again at the next', () => {
  const fixture = new URL('./fixtures/metrics-without-defaults.mjs', import.meta.url).pathname;
  const run = spawnSync(process.execPath, [fixture], { encoding: 'utf8', timeout: 30_000 });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  const { first, second, missing } = JSON.parse(run.stdout) as {
    first: string;
    second: string;
    missing: string;
  };
  expect(first).toMatch(/^codemode_executions_total\{outcome="ok"\} 0$/m);
  expect(first).not.toMatch(/^process_cpu_seconds_total /m);
  expect(first.endsWith(missing)).toBe(true);
  expect(missing).not.toMatch(/\//);
  expect(second).toMatch(/^process_cpu_seconds_total \d/m);
  expect(second).not.toContain(missing);
});
