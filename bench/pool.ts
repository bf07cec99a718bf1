/**
 * Pool benchmark: IsolateExecutor end to end (parent, channel, child, isolate and back), with the
 * in-process floors beside it, all measured in the same run. Started by `tools/run bench`.
 *
 *   trivial latency            execute({ code: 'async () => 1' }), one caller at a time, back to back
 *   trivial latency, paced     the same with 20 ms between requests, so every child's next isolate is ready
 *   tool call                  per call, in a program making 100 sequential calls served in this process
 *   throughput                 executions per second with as many concurrent callers as cores
 *   RSS per child              at rest after warm-up, and the highest seen under the throughput load
 *   raw isolate floor          new Isolate from the runtime snapshot + context + eval + dispose, in process
 *   node:vm                    new context + runInContext, in process: the insecure baseline
 *   breakdown rows             where the pool's time goes: the sandbox alone, the message codec, a channel round trip
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { Duplex } from 'node:stream';
import vm from 'node:vm';
import ivm from 'isolated-vm';
import { IsolateExecutor } from '../packages/executor/dist/index.js';
import { Channel } from '../packages/executor/src/pool/channel.ts';
import { CHILD_STDIO } from '../packages/executor/src/pool/child-spawn.ts';
import { POOL_VALIDATION, validatePoolMessage } from '../packages/executor/src/pool/messages/table.ts';
import { encodePoolMessage } from '../packages/executor/src/pool/messages/wire.ts';
import { Sandbox } from '../packages/executor/src/sandbox/index.ts';
import { readRuntimeSnapshot } from '../packages/executor/src/sandbox/runtime.ts';
import { printTable, record, type Summary, sample, samplePaced, single, summarize } from './stats.ts';

const iterations = Number(process.env.BENCH_ITERATIONS ?? 300);
const cores = availableParallelism();
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Floors, in this process.
const snapshot = readRuntimeSnapshot();
const rawIsolate = summarize(
  'raw isolated-vm floor (snapshot isolate + context + eval + dispose)',
  await sample(iterations, () => {
    const isolate = new ivm.Isolate({ memoryLimit: 128, snapshot });
    isolate.createContextSync().evalSync('1');
    isolate.dispose();
  }),
);
const nodeVm = summarize(
  'node:vm (new context + run), insecure baseline',
  await sample(iterations, () => vm.runInContext('(async () => 1)()', vm.createContext({}))),
);
const sandbox = new Sandbox();
const sandboxSamples: number[] = [];
for (let index = 0; index < iterations; index++) {
  await pause(5);
  const started = performance.now();
  await sandbox.execute({ code: 'async () => 1' });
  sandboxSamples.push(performance.now() - started);
}
const inProcess = summarize('breakdown: Sandbox.execute in process, prepared isolate', sandboxSamples);
const sandboxToolRuns = await samplePaced(
  30,
  () =>
    sandbox.execute({
      code: 'async () => { for (let i = 0; i < 100; i++) await tools.echo(i); return 1 }',
      providers: [{ name: 'tools' }],
      dispatch: async (_provider, _tool, args) => `{"result":${args}}`,
    }),
  5,
);
const sandboxToolCall = summarize(
  'breakdown: tool call in the sandbox, in process (per call, 100 sequential calls)',
  sandboxToolRuns.map((ms) => (ms - inProcess.median) / 100),
);
sandbox.dispose();

const executeMessage = {
  type: 'execute',
  id: 'x1',
  request: {
    code: 'async () => 1',
    timeout: 60000,
    memoryLimit: 128,
    outbound: 'disabled',
    providers: [],
    modules: {},
  },
} as const;
const resultMessage = { type: 'result', id: 'x1', envelope: { result: 1, logs: [] } } as const;
// The pool's table: the protocol's hot checks for these two, behind the pool's decode.
const codec = summarize(
  'breakdown: encode + validate-and-decode of an execute and a result message',
  await sample(iterations * 10, () => {
    POOL_VALIDATION.decode(encodePoolMessage(executeMessage));
    POOL_VALIDATION.decode(encodePoolMessage(resultMessage));
  }),
);
const channel = await (async () => {
  // A child echoing every message it decodes: a round trip is two encodes, two frames, two decodes.
  const channelModule = new URL('../packages/executor/src/pool/channel.ts', import.meta.url).href;
  const echoSource =
    `import { openParentChannel } from ${JSON.stringify(channelModule)};` +
    'const channel = openParentChannel({ received: (decoded) => decoded.ok && channel.send(decoded.message),' +
    ' violation: () => process.exit(2), closed: () => process.exit(0) }, () => { throw new Error("not hot") });';
  const echo = spawn(process.execPath, ['--input-type=module', '-e', echoSource], {
    stdio: [...CHILD_STDIO],
  });
  let answered = () => {};
  const wire = new Channel(
    echo.stdio[3] as Duplex,
    {
      received: (decoded) => {
        if (!decoded.ok) throw new Error(decoded.fault.message);
        answered();
      },
      violation: (reason) => {
        throw new Error(reason);
      },
      closed: () => {},
    },
    { schemaPath: validatePoolMessage },
  );
  const dispatch = {
    type: 'dispatch',
    id: 'x1',
    call: 0,
    provider: 'tools',
    tool: 'echo',
    args: '[1]',
  } as const;
  const roundTrip = () =>
    new Promise<void>((resolve) => {
      answered = resolve;
      wire.send(dispatch);
    });
  const samples = await sample(iterations * 5, roundTrip, 50);
  echo.kill();
  return summarize(
    'breakdown: channel round trip of a dispatch message (frames on fd 3, validated at both ends)',
    samples,
  );
})();

// Through IsolateExecutor.
const executor = new IsolateExecutor({ heartbeatInterval: 200, heartbeatTimeout: 5000 });
await executor.engine();
await Promise.all(Array.from({ length: cores * 4 }, () => executor.execute({ code: 'async () => 1' })));
await pause(300);

const trivial = summarize(
  'trivial latency, back to back',
  await sample(iterations, () => executor.execute({ code: 'async () => 1' })),
);
const pacedSamples: number[] = [];
for (let index = 0; index < iterations; index++) {
  await pause(20);
  const started = performance.now();
  await executor.execute({ code: 'async () => 1' });
  pacedSamples.push(performance.now() - started);
}
const paced = summarize('trivial latency, paced (20 ms apart)', pacedSamples);

const calls = 100;
const toolRequest = {
  code: `async () => { for (let i = 0; i < ${calls}; i++) await tools.echo(i); return 'done' }`,
  providers: [{ name: 'tools', fns: { echo: (value: number) => value } }],
};
const toolRuns = await samplePaced(Math.max(30, iterations / 5), () => executor.execute(toolRequest), 20);
const toolCall = summarize(
  `tool call through the pool (per call, ${calls} sequential calls)`,
  toolRuns.map((ms) => (ms - paced.median) / calls),
);
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
    'raw apply round trip, in process',
    samples.map((ms) => ms / calls),
  );
})();

const rss = () => executor.stats().children.map((child) => childRss(child.pid));
const atRest = rss();
let underLoad = atRest.map(() => 0);
const duration = 3000;
let completed = 0;
const deadline = performance.now() + duration;
const sampler = setInterval(() => {
  underLoad = rss().map((value, index) => Math.max(value, underLoad[index] ?? 0));
}, 50);
const loadStarted = performance.now();
await Promise.all(
  Array.from({ length: cores }, async () => {
    while (performance.now() < deadline) {
      await executor.execute({ code: 'async () => 1' });
      completed++;
    }
  }),
);
const elapsed = (performance.now() - loadStarted) / 1000;
clearInterval(sampler);
const throughput = completed / elapsed;
const throughputTarget = (0.9 * cores) / (rawIsolate.median / 1000);
await executor.dispose();

const row = (summary: Summary, baseline?: Summary, target?: string) => ({
  summary,
  ...(baseline ? { baseline } : {}),
  ...(target ? { target } : {}),
});
printTable(`Pool, through IsolateExecutor (Node ${process.version}, ${cores} cores, pool of ${cores})`, [
  row(rawIsolate),
  row(nodeVm),
  row(trivial, rawIsolate, 'p50 ≤ 1.5 ms'),
  row(paced, rawIsolate, 'p50 ≤ 1.5 ms'),
  row(rawApply),
  row(toolCall, rawApply, '≤ 100 µs'),
  row(inProcess),
  row(sandboxToolCall, rawApply),
  row(codec),
  row(channel),
]);
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
console.log(
  `\nthroughput: ${throughput.toFixed(0)} executions/s with ${cores} concurrent callers over ${elapsed.toFixed(1)} s` +
    ` (target ≥ ${throughputTarget.toFixed(0)}/s: 90% of ${cores} cores / the ${rawIsolate.median.toFixed(2)} ms floor;` +
    ` ${((throughput / throughputTarget) * 100).toFixed(0)}% of it)`,
);
console.log(
  `RSS per child at rest: ${atRest.map(mb).join(', ')}; under load, highest: ${underLoad.map(mb).join(', ')}`,
);
// For the targets table of bench/run.mjs.
record('pool.trivial', trivial);
record('pool.paced', paced);
record('pool.toolCall', toolCall);
record('pool.throughput', single(`throughput, ${cores} concurrent callers`, throughput, completed), '/s');
// The floors measured in this file, minutes closer to the pool's rows than bench/floors.ts's.
record('pool.rawFloor', rawIsolate);
record('pool.rawApply', rawApply);
record(
  'pool.restRss',
  single(
    'RSS per child at rest, after trivial runs only (the largest child)',
    Math.max(...atRest),
    atRest.length,
  ),
  'bytes',
);

/** Resident memory of a process, read from /proc (bytes); 0 where /proc is not available. */
function childRss(pid: number): number {
  try {
    const pages = Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]);
    return pages * 4096;
  } catch {
    return 0;
  }
}
