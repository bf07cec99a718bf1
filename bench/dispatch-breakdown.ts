/**
 * Where an in-process tool call's time goes beyond the raw apply: CPU of the whole process (every
 * thread, the isolate's included) per call, over 1000 sequential calls, each variant on an isolate
 * prepared as the sandbox prepares one, the variants alternated in rounds. CPU, not wall time: a
 * busy machine disturbs it less, and it says where the work goes. `node bench/dispatch-breakdown.ts [rounds]`.
 *
 *   raw apply           host.apply of an async host function answering its argument
 *   __dispatch          a script awaiting the bridge itself: the crossing, the frames, the run clock
 *   tools.echo          the whole call: the namespace proxy, the codec both ways, __callTool
 *   Sandbox.execute     the same program through Sandbox.execute, less the program making no call
 */
import ivm from 'isolated-vm';
import { RunClock, wrapHostWait } from '../packages/executor/src/sandbox/bounds/clock.ts';
import { Sandbox } from '../packages/executor/src/sandbox/index.ts';
import { prepareIsolate } from '../packages/executor/src/sandbox/setup/prepared-isolate.ts';

const calls = 1000;
const rounds = Number(process.argv[2] ?? 11);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const settle = () => new Promise((resolve) => setTimeout(resolve, 5));
const cpuPerCall = async (run: () => Promise<unknown>) => {
  await settle();
  const before = process.cpuUsage();
  await run();
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / calls;
};
const echo = async (_provider: string, _tool: string, args: string) => `{"result":${args}}`;

/** A prepared isolate out of global scope, with `tools` bound, running `body` `calls` times in a script. */
const onPrepared = async (body: string) => {
  const { handle, slots, internal } = prepareIsolate({ memoryLimit: 128 });
  slots.clock.set(new RunClock(handle.isolate));
  slots.dispatch.dispatch = wrapHostWait(slots.clock, echo);
  handle.context.global.setSync('rawHost', new ivm.Reference(async (value: string) => value));
  const setup = handle.isolate.compileModuleSync(
    `import { __provider, __loaded } from 'codemode:sandbox'; __loaded(0, 0); globalThis.tools = __provider('tools', true);`,
  );
  setup.instantiateSync(handle.context, () => internal);
  setup.evaluateSync();
  const loop = handle.isolate.compileScriptSync(
    `(async () => { for (let i = 0; i < ${calls}; i++) ${body}; })()`,
  );
  await loop.run(handle.context, { promise: true });
  handle.isolate.dispose();
};
const sandbox = new Sandbox({ prepareAhead: false });
const program = (count: number) => ({
  code: `async () => { for (let i = 0; i < ${count}; i++) await tools.echo(i); return 'done' }`,
  providers: [{ name: 'tools' }],
  dispatch: echo,
});

const variants: Record<string, () => Promise<unknown>> = {
  'prepared isolate, no call': () => onPrepared(''),
  'raw apply': () =>
    onPrepared(`await rawHost.apply(undefined, ['x'], { result: { promise: true, copy: true } })`),
  __dispatch: () => onPrepared(`await __dispatch('tools', 'echo', String(i))`),
  'tools.echo': () => onPrepared('await tools.echo(i)'),
  'Sandbox.execute, no call': () => sandbox.execute(program(0)),
  'Sandbox.execute': () => sandbox.execute(program(calls)),
};
const figures: Record<string, number[]> = {};
for (let round = 0; round < rounds + 2; round++) {
  for (const [name, run] of Object.entries(variants)) {
    const value = await cpuPerCall(run);
    if (round < 2) continue;
    figures[name] ??= [];
    figures[name].push(value);
  }
}
const of = (name: string) => median(figures[name] ?? []);
const base = of('prepared isolate, no call');
const raw = of('raw apply') - base;
for (const name of ['raw apply', '__dispatch', 'tools.echo']) {
  const net = of(name) - base;
  console.log(`${name.padEnd(18)} ${net.toFixed(1).padStart(6)} µs CPU  ${(net / raw).toFixed(2)}x`);
}
const whole = of('Sandbox.execute') - of('Sandbox.execute, no call');
console.log(
  `${'Sandbox.execute'.padEnd(18)} ${whole.toFixed(1).padStart(6)} µs CPU  ${(whole / raw).toFixed(2)}x`,
);
console.log(`(median of ${rounds} rounds of ${calls} calls; Node ${process.version}; shared machine)`);
sandbox.dispose();
