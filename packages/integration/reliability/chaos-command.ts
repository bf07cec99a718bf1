/**
 * `tools/run chaos` (or `node --no-node-snapshot --no-wasm-code-gc --expose-gc packages/integration/reliability/chaos-command.ts`):
 * chaos at full size against the build, with the pool's default supervision settings, its
 * figures beside their targets (docs/reliability.md).
 *
 *   --executions N       mixed executions (default 2000)
 *   --signals N          SIGKILLs and SIGSTOPs sent to random children (default 40)
 *   --pause-min N        least pause before a signal, ms (default 200)
 *   --pause-max N        longest pause before a signal, ms (default 2000)
 *   --callers-per-core N concurrent callers per core (default 2)
 *   --seed N             the seed (default: the clock)
 *
 * Exits 1 when a target is missed.
 */
import { availableParallelism } from 'node:os';
import type { PoolEvent } from '@supolka/codemode-executor';
import { loadBuild, numberFlags } from './build.ts';
import { runChaos } from './chaos.ts';
import { parentRows, printOutcomes, printRows, type ReportRow } from './process-sample.ts';

const flags = numberFlags(process.argv.slice(2), {
  executions: 2000,
  signals: 40,
  'pause-min': 200,
  'pause-max': 2000,
  'callers-per-core': 2,
  seed: Date.now() % 2 ** 31,
});
const cores = availableParallelism();
const { executor: build } = await loadBuild();
const events: PoolEvent[] = [];
const executor = new build.IsolateExecutor({ poolSize: cores, onPoolEvent: (event) => events.push(event) });
const settings = {
  timeout: 60_000,
  grace: build.DEFAULT_GRACE,
  heartbeat: build.DEFAULT_HEARTBEAT_TIMEOUT,
  kill: build.DEFAULT_KILL_TIMEOUT,
  start: build.DEFAULT_START_TIMEOUT,
};
// A run's own bound, the heartbeat timeout that finds a stopped child, SIGTERM's wait, and a
// replacement's start for each signal a queued run may wait behind: past that it hangs.
const bound = settings.grace + settings.heartbeat + settings.kill + settings.start * 2 + 10_000;
console.log(
  `chaos: ${flags.executions} executions, ${flags.signals} signals, ${flags['callers-per-core'] * cores} callers, pool of ${cores}, seed ${flags.seed}, Node ${process.version}`,
);
const report = await runChaos({
  executor,
  poolSize: cores,
  executions: flags.executions,
  callers: flags['callers-per-core'] * cores,
  signals: flags.signals,
  pause: [flags['pause-min'], flags['pause-max']],
  seed: flags.seed,
  warmup: 200,
  bound,
});
await executor.dispose();

const killed = report.victims.filter((victim) => victim.signal === 'SIGKILL').length;
const stopped = report.victims.length - killed;
const silenced = events.filter(
  (event) => event.type === 'terminating' && event.reason.startsWith('it stopped answering its heartbeat'),
).length;
const { parentBefore: before, parentAfter: after } = report;
console.log(
  `\n${report.executions} executions in ${report.seconds.toFixed(1)} s; ${killed} SIGKILL, ${stopped} SIGSTOP`,
);
printOutcomes(report.outcomes);
console.log(`\nparent handles before: ${before.resources.join(', ')}; after: ${after.resources.join(', ')}`);
const rows: ReportRow[] = [
  [
    "envelopes neither their kind's nor WORKER_LOST",
    String(report.wrong.length),
    '0',
    report.wrong.length === 0,
  ],
  [
    'WORKER_LOST naming neither a kill nor a silence',
    String(report.lost.other.length),
    '0',
    report.lost.other.length === 0,
  ],
  [
    'WORKER_LOST naming the SIGKILL, against SIGKILLs sent',
    `${report.lost.killed} of ${killed}`,
    '<= one each',
    report.lost.killed <= killed,
  ],
  [
    'WORKER_LOST naming the silence, against children ended silent',
    `${report.lost.silent} of ${silenced} (${stopped} SIGSTOP sent)`,
    '<= one each',
    report.lost.silent <= silenced,
  ],
  [
    `executions past the hang bound (${bound} ms); the longest`,
    `${report.pastBound.length}; ${(report.longest / 1000).toFixed(1)} s`,
    '0',
    report.pastBound.length === 0,
  ],
  [
    'victims alive once the pool settled back at its size',
    String(report.survivors.length),
    '0',
    report.survivors.length === 0,
  ],
  ...parentRows(before, after),
];
const allMet = printRows(rows);
for (const outcome of report.wrong.slice(0, 20))
  console.log(`wrong: ${outcome.kind} ${outcome.token}: ${outcome.wrong}`);
for (const text of report.lost.other.slice(0, 10)) console.log(`other WORKER_LOST: ${text}`);
for (const slow of report.pastBound.slice(0, 10)) console.log(`past the bound: ${JSON.stringify(slow)}`);
process.exitCode = allMet ? 0 : 1;
