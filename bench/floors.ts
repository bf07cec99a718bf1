/**
 * The engine floors and the in-process baselines, with nothing of this project's executor in the
 * way: isolated-vm called directly, over the project's own runtime snapshot. Started by
 * `tools/run bench`.
 *
 *   raw apply round trip          one Reference.apply from the isolate to an async host function and
 *                                 back, per call, in a loop of 100 sequential calls
 *   raw floor                     new Isolate from the runtime snapshot + context + eval + dispose, back
 *                                 to back: the in-process isolated-vm loop a trivial execution is held to
 *   raw floor, throughput         the same loop with 2 concurrent callers (async context and eval)
 *   bare isolate, throughput      the loop without a snapshot, 2 concurrent callers
 *   node:vm                       new context + run: the insecure baseline
 */
import vm from 'node:vm';
import ivm from 'isolated-vm';
import { readRuntimeSnapshot } from '../packages/executor/src/sandbox/runtime.ts';
import { printTable, record, type Summary, sample, single, summarize } from './stats.ts';

const iterations = Number(process.env.BENCH_ITERATIONS ?? 300);
const calls = 100;
const callers = 2;
const snapshot = readRuntimeSnapshot();

const rawApply = await (async () => {
  const isolate = new ivm.Isolate({ memoryLimit: 128, snapshot });
  const context = isolate.createContextSync();
  await context.global.set('host', new ivm.Reference(async (value: string) => value));
  const loop = await isolate.compileScript(
    `(async () => { for (let i = 0; i < ${calls}; i++) await host.apply(undefined, ['x'], { result: { promise: true, copy: true } }) })()`,
  );
  const samples = await sample(Math.max(30, iterations / 5), () => loop.run(context, { promise: true }));
  isolate.dispose();
  return summarize(
    `raw apply round trip, in process (per call, ${calls} sequential)`,
    samples.map((ms) => ms / calls),
  );
})();

const rawFloor = summarize(
  'raw floor: isolate from the runtime snapshot + context + eval + dispose, back to back',
  await sample(iterations, () => {
    const isolate = new ivm.Isolate({ memoryLimit: 128, snapshot });
    isolate.createContextSync().evalSync('1');
    isolate.dispose();
  }),
);

/** Executions per second of `run` with `callers` concurrent loops over `duration` ms. */
async function throughput(name: string, run: () => Promise<unknown>, duration = 2000): Promise<Summary> {
  let completed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (performance.now() - started < duration) {
        await run();
        completed++;
      }
    }),
  );
  return single(name, completed / ((performance.now() - started) / 1000), completed);
}

const rawThroughput = await throughput(
  `raw floor, throughput, ${callers} concurrent callers (executions/s)`,
  async () => {
    const isolate = new ivm.Isolate({ memoryLimit: 128, snapshot });
    const context = await isolate.createContext();
    await context.eval('1');
    isolate.dispose();
  },
);
const bareThroughput = await throughput(
  `bare isolate (no snapshot), throughput, ${callers} concurrent callers (executions/s)`,
  async () => {
    const isolate = new ivm.Isolate({ memoryLimit: 128 });
    const context = await isolate.createContext();
    await context.eval('1');
    isolate.dispose();
  },
);

const nodeVm = summarize(
  'node:vm (new context + run), insecure baseline',
  await sample(iterations, () => vm.runInContext('(async () => 1)()', vm.createContext({}))),
);

printTable(`Engine floors, in process (Node ${process.version}, isolated-vm over the runtime snapshot)`, [
  { summary: rawApply },
  { summary: rawFloor },
  { summary: nodeVm, baseline: rawFloor },
]);
console.log(
  `\nthroughput, ${callers} concurrent callers: ${rawThroughput.median.toFixed(0)}/s from the runtime snapshot, ${bareThroughput.median.toFixed(0)}/s bare`,
);
record('floors.rawApply', rawApply);
record('floors.rawFloor', rawFloor);
record('floors.rawThroughput', rawThroughput, '/s');
record('floors.bareThroughput', bareThroughput, '/s');
record('floors.nodeVm', nodeVm);
