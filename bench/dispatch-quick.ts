/**
 * The in-process tool call beside the raw apply, paired: each round runs the raw loop, a program
 * making `calls` tool calls and the same program making none, and the figure is the median over
 * rounds of each round's own ratio, so the drift of a shared machine cancels within a round. No
 * isolate is prepared ahead and every step starts on a settled event loop: the preparation of the
 * next isolate and the disposal of the last one run when the loop is free, which is during a run
 * of tool calls and after a trivial run, and would land on whichever step comes next.
 * `node bench/dispatch-quick.ts [rounds] [calls]`.
 */
import ivm from 'isolated-vm';
import { Sandbox } from '../packages/executor/src/sandbox/index.ts';
import { readRuntimeSnapshot } from '../packages/executor/src/sandbox/runtime.ts';

const rounds = Number(process.argv[2] ?? 40);
const calls = Number(process.argv[3] ?? 300);
const snapshot = readRuntimeSnapshot();
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

const isolate = new ivm.Isolate({ memoryLimit: 128, snapshot });
const context = isolate.createContextSync();
await context.global.set('host', new ivm.Reference(async (value: string) => value));
const loop = await isolate.compileScript(`(async () => {
  for (let i = 0; i < ${calls}; i++) await host.apply(undefined, ['x'], { result: { promise: true, copy: true } });
})()`);

const sandbox = new Sandbox({ prepareAhead: false });
const program = (count: number) => ({
  code: `async () => { for (let i = 0; i < ${count}; i++) await tools.echo(i); return 'done' }`,
  providers: [{ name: 'tools' }],
  dispatch: async (_provider: string, _tool: string, args: string) => `{"result":${args}}`,
});
const toolProgram = program(calls);
const baseProgram = program(0);
const settle = () => new Promise((resolve) => setTimeout(resolve, 5));
// CPU of the whole process (every thread, the isolate's included) when BENCH_CPU is set: less
// disturbed by a busy machine's scheduling than wall time, and it says where the work goes.
const useCpu = process.env.BENCH_CPU !== undefined;
const time = async (run: () => Promise<unknown>) => {
  await settle();
  const cpu = process.cpuUsage();
  const started = performance.now();
  await run();
  if (!useCpu) return performance.now() - started;
  const spent = process.cpuUsage(cpu);
  return (spent.user + spent.system) / 1000;
};
const raw: number[] = [];
const tool: number[] = [];
const ratio: number[] = [];
for (let round = 0; round < rounds + 3; round++) {
  const r = ((await time(() => loop.run(context, { promise: true }))) / calls) * 1000;
  const t = await time(() => sandbox.execute(toolProgram));
  const b = await time(() => sandbox.execute(baseProgram));
  if (round < 3) continue;
  const perCall = ((t - b) / calls) * 1000;
  raw.push(r);
  tool.push(perCall);
  ratio.push(perCall / r);
}
console.log(
  `${useCpu ? 'CPU: ' : ''}raw apply ${median(raw).toFixed(1)} µs; tool call ${median(tool).toFixed(1)} µs; paired ratio ${median(ratio).toFixed(2)}x (median of ${rounds} rounds of ${calls} calls; shared machine)`,
);
sandbox.dispose();
isolate.dispose();
