// Runs every benchmark under bench/, each in its own process with --no-node-snapshot and --no-wasm-code-gc (adr/0002),
// prints their tables, then the "Issue 11 targets" table from the figures they recorded (docs/benchmarks.md).
// Usage: tools/run bench   (BENCH_ITERATIONS=n for more or fewer samples)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { printTargets } from './targets.mjs';

/** How long one bench file may run before it is killed and the run goes on without it. */
const BENCH_TIMEOUT = 10 * 60 * 1000;

const here = new URL('.', import.meta.url);
const benches = readdirSync(here).filter((file) => file.endsWith('.ts') && file !== 'stats.ts');
// Each bench writes its figures here as <key>.json (bench/stats.ts, record).
const results = mkdtempSync(join(tmpdir(), 'codemode-bench-'));
let failed = false;
for (const bench of benches) {
  const { status, signal } = spawnSync(
    process.execPath,
    ['--no-node-snapshot', '--no-wasm-code-gc', new URL(bench, here).pathname],
    {
      stdio: 'inherit',
      env: { ...process.env, BENCH_RESULTS: results },
      timeout: BENCH_TIMEOUT,
      killSignal: 'SIGKILL',
    },
  );
  if (status !== 0) {
    failed = true;
    console.log(`\n${bench} failed (${signal ?? `exit code ${status}`}); its figures are missing below.`);
  }
}
const figures = new Map(
  readdirSync(results).map((file) => {
    const figure = JSON.parse(readFileSync(join(results, file), 'utf8'));
    return [figure.key, figure];
  }),
);
rmSync(results, { recursive: true, force: true });
printTargets(figures);
process.exit(failed ? 1 : 0);
