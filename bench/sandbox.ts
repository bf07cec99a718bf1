/**
 * Sandbox benchmark: one whole execution of a trivial program, one tool-call round trip, and the raw
 * isolated-vm floor beside them, measured in the same run. Started by `tools/run bench`.
 *
 *   trivial execution, fresh isolate      Sandbox.execute of `async () => 1`, nothing prepared
 *   trivial execution, prepared isolate   the same, with the isolate made ready between requests
 *   tool call round trip                  per call, in a program making 1000 sequential calls
 *   raw isolate floor                     new Isolate from the same snapshot + context + eval 1 + dispose
 *   raw apply round trip                  one Reference.apply from the isolate to an async host function
 */
import ivm from 'isolated-vm';
import { Sandbox } from '../packages/executor/src/sandbox/index.ts';
import { isolatedVmVersion } from '../packages/executor/src/sandbox/isolate.ts';
import { readRuntimeSnapshot } from '../packages/executor/src/sandbox/runtime.ts';
import { printTable, record, sample, summarize } from './stats.ts';

const iterations = Number(process.env.BENCH_ITERATIONS ?? 200);
const snapshot = readRuntimeSnapshot();

const rawIsolate = summarize(
  'raw isolate floor (snapshot + context + eval + dispose)',
  await sample(iterations, () => {
    const isolate = new ivm.Isolate({ memoryLimit: 128, snapshot });
    const context = isolate.createContextSync();
    context.evalSync('1');
    isolate.dispose();
  }),
);

const applyCalls = 1000;
const rawApply = await (async () => {
  const isolate = new ivm.Isolate({ memoryLimit: 128, snapshot });
  const context = isolate.createContextSync();
  await context.global.set('host', new ivm.Reference(async (value: string) => value));
  const loop = await isolate.compileScript(`(async () => {
    for (let i = 0; i < ${applyCalls}; i++) await host.apply(undefined, ['x'], { result: { promise: true, copy: true } });
  })()`);
  const samples = await sample(Math.max(20, iterations / 5), () => loop.run(context, { promise: true }));
  isolate.dispose();
  return summarize(
    'raw apply round trip (isolate to async host function)',
    samples.map((ms) => ms / applyCalls),
  );
})();

const fresh = new Sandbox({ prepareAhead: false });
const trivialFresh = summarize(
  'trivial execution, fresh isolate',
  await sample(iterations, () => fresh.execute({ code: 'async () => 1' })),
);

const prepared = new Sandbox();
const settle = () => new Promise((resolve) => setTimeout(resolve, 30));
const preparedSamples: number[] = [];
for (let index = 0; index < iterations; index++) {
  await settle();
  const started = performance.now();
  await prepared.execute({ code: 'async () => 1' });
  preparedSamples.push(performance.now() - started);
}
const trivialPrepared = summarize('trivial execution, prepared isolate', preparedSamples);

const toolProgram = {
  code: `async () => { for (let i = 0; i < ${applyCalls}; i++) await tools.echo(i); return 'done' }`,
  providers: [{ name: 'tools' }],
  dispatch: async (_provider: string, _tool: string, args: string) => `{"result":${args}}`,
};
const withTools = await sample(Math.max(20, iterations / 5), () => prepared.execute(toolProgram), 5);
const base = summarize(
  'trivial',
  await sample(Math.max(20, iterations / 5), () => prepared.execute({ code: 'async () => 1' }), 5),
);
const toolCall = summarize(
  'tool call round trip (per call, 1000 sequential calls)',
  withTools.map((ms) => (ms - base.median) / applyCalls),
);

printTable(`Sandbox, in process (Node ${process.version}, isolated-vm ${isolatedVmVersion()})`, [
  { summary: rawIsolate },
  { summary: trivialFresh, baseline: rawIsolate, target: '≤ 1.3x the raw isolate floor' },
  { summary: trivialPrepared, target: '< 1.5 ms' },
  { summary: rawApply },
  { summary: toolCall, baseline: rawApply, target: '≤ 1.5x the raw apply' },
]);
console.log(`\nsnapshot: ${fresh.snapshotBytes} bytes`);
// For the targets table of bench/run.mjs.
record('sandbox.rawApply', rawApply);
record('sandbox.toolCall', toolCall);
fresh.dispose();
prepared.dispose();
