/**
 * `tools/run soak` (or `node --no-node-snapshot --no-wasm-code-gc --expose-gc packages/integration/reliability/soak-command.ts`):
 * the soak at full size against the build, its figures beside their targets (docs/reliability.md).
 *
 *   --executions N       mixed executions (default 10000)
 *   --callers-per-core N concurrent callers per core (default 2)
 *   --seed N             the mix's seed (default: the clock), printed so a run can be repeated
 *   --warmup N           executions a child serves before its memory counts as settled (default 100)
 *   --window N           executions per window of a child's memory readings (default 100)
 *   --sample-interval N  ms between readings of every child's memory (default 100)
 *
 * Exits 1 when a target is missed.
 */
import { writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBuild, numberFlags } from './build.ts';
import { mb, parentRows, printOutcomes, printRows, type ReportRow } from './process-sample.ts';
import { type LifeGrowth, lifeGrowth } from './resident-life.ts';
import { runSoak } from './soak.ts';

const flags = numberFlags(process.argv.slice(2), {
  executions: 10_000,
  'callers-per-core': 2,
  seed: Date.now() % 2 ** 31,
  warmup: 100,
  window: 100,
  'sample-interval': 100,
});
const cores = availableParallelism();
const { executor: build } = await loadBuild();
const executor = new build.IsolateExecutor({ poolSize: cores });
const callers = flags['callers-per-core'] * cores;
// The caller's own figures are first read after this many executions (soak.ts).
const parentWarmup = Math.min(500, Math.floor(flags.executions / 10));
console.log(
  `soak: ${flags.executions} executions, ${callers} callers, pool of ${cores}, seed ${flags.seed}, Node ${process.version}`,
);
const report = await runSoak({
  executor,
  executions: flags.executions,
  callers,
  poolSize: cores,
  seed: flags.seed,
  warmup: flags.warmup,
  sampleInterval: flags['sample-interval'],
  parentWarmup,
  lostAfter: 120_000,
  onProgress: (settled) => console.log(`  ${settled} settled`),
});
await executor.dispose();

const lives = report.lives
  .map((life) => lifeGrowth(life, flags.warmup, flags.window))
  .filter((growth) => growth !== undefined);
const worstMedian = Math.max(...lives.map((life) => life.median.growth));
const worstFloor = Math.max(...lives.map((life) => life.floor.growth));
// Every reading, for a second look at a life that grew (plot executions against rss per pid).
const samplesFile = join(tmpdir(), `codemode-soak-${flags.seed}.json`);
writeFileSync(samplesFile, JSON.stringify(report.lives));
const { parentBefore: before, parentAfter: after } = report;
const rows: ReportRow[] = [
  ['lost outcomes', String(report.lost.length), '0', report.lost.length === 0],
  ['wrong or misattributed envelopes', String(report.wrong.length), '0', report.wrong.length === 0],
  [
    'TIMEOUT or MEMORY_LIMIT before the run logged its token (its own, not checked)',
    String(report.unlogged),
    '',
    true,
  ],
  [
    `child memory, highest window floor against the settled one (${lives.length} lives of ${report.lives.length} long enough)`,
    `${(worstFloor * 100).toFixed(1)}%`,
    '<= 15%',
    lives.length > 0 && worstFloor <= 0.15,
  ],
  [
    'child memory, highest window median against the settled one',
    `${(worstMedian * 100).toFixed(1)}%`,
    '<= 15%',
    lives.length > 0 && worstMedian <= 0.15,
  ],
  ...parentRows(before, after),
];
const timed = report.executions - parentWarmup;
console.log(
  `\n${report.executions} executions; the ${timed} after the caller's warm-up in ${report.seconds.toFixed(1)} s (${(timed / report.seconds).toFixed(0)}/s)\n`,
);
printOutcomes(report.outcomes);
const percent = (ratio: number) => `${(ratio * 100).toFixed(1)}%`;
const window = ({ settled, highest, growth }: LifeGrowth['median']) =>
  `${mb(settled)} → ${mb(highest)} (${percent(growth)})`;
console.log(
  '\n| child | executions | floor: settled → highest | median: settled → highest | peak |\n| --- | --- | --- | --- | --- |',
);
for (const life of lives)
  console.log(
    `| ${life.pid} | ${life.executions} | ${window(life.floor)} | ${window(life.median)} | ${mb(life.peak)} |`,
  );
console.log(`(every reading: ${samplesFile})`);
console.log(`\nparent handles before: ${before.resources.join(', ')}; after: ${after.resources.join(', ')}`);
console.log(
  `parent resident memory ${mb(before.rss)} → ${mb(after.rss)}, heap ${mb(before.heapUsed)} → ${mb(after.heapUsed)}`,
);
const allMet = printRows(rows);
for (const outcome of report.wrong.slice(0, 20))
  console.log(
    `wrong: ${outcome.kind} ${outcome.token}: ${outcome.wrong}; ${JSON.stringify(outcome.envelope).slice(0, 500)}`,
  );
for (const missing of report.lost.slice(0, 20)) console.log(`lost: ${missing.kind} ${missing.token}`);
process.exitCode = allMet ? 0 : 1;
