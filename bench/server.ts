/**
 * Server benchmark: the executor over a loopback WebSocket (ExecutorClient, Node's own WebSocket,
 * the codec and validation at both ends) beside the same IsolateExecutor called in process, all
 * in one run and on one pool. Started by `tools/run bench`.
 *
 *   trivial latency           execute({ code: 'async () => 1' }), one at a time, 20 ms apart
 *   tool call                 per call, in a program making 100 sequential calls served by the caller
 *   added per tool call       remote minus in process: what the socket costs each call (target ≤ 150 µs)
 *   WebSocket round trip      one dispatch-sized message to a ws echo server and back: the transport
 *                             floor, back to back and after 20 ms idle (a paced execution starts cold)
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { ExecutorClient } from '../packages/protocol/src/client/index.ts';
import { createServer } from '../packages/server/dist/index.js';
import { printTable, type Summary, sample, samplePaced, summarize } from './stats.ts';

// ws is the executor package's dependency, not the root's: resolve it from there.
const { WebSocketServer } = createRequire(new URL('../packages/server/package.json', import.meta.url))(
  'ws',
) as typeof import('ws');

const iterations = Number(process.env.BENCH_ITERATIONS ?? 300);
const cores = availableParallelism();
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const token = 'bench-token-0123456789abcdef';

const server = await createServer({ port: 0, token, executor: { heartbeatInterval: 200 } });
const executor = server.executor;
await executor.engine();
const socket = new WebSocket(server.url, {
  headers: { authorization: `Bearer ${token}` },
} as unknown as string[]);
const client = await ExecutorClient.connect(socket);

// Warm both paths: every child's prepared isolate, the JIT of both ends.
for (let index = 0; index < 50; index++) {
  await executor.execute({ code: 'async () => 1' });
  await client.execute({ code: 'async () => 1' });
}

async function paced(run: () => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let index = 0; index < iterations; index++) {
    await pause(20);
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  return samples;
}

const calls = 100;
const toolCode = `async () => { for (let i = 0; i < ${calls}; i++) await tools.echo(i); return 'done' }`;
const echo = { echo: (value: number) => value };
const toolRuns = Math.max(30, iterations / 5);

const localTrivial = summarize(
  'in process: trivial latency (paced)',
  await paced(() => executor.execute({ code: 'async () => 1' })),
);
const remoteTrivial = summarize(
  'over WebSocket: trivial latency (paced)',
  await paced(() => client.execute({ code: 'async () => 1' })),
);
const perCall = (name: string, samples: number[], trivial: Summary) =>
  summarize(
    name,
    samples.map((ms) => (ms - trivial.median) / calls),
  );
const localTool = perCall(
  `in process: tool call (per call, ${calls} sequential)`,
  await samplePaced(
    toolRuns,
    () => executor.execute({ code: toolCode, providers: [{ name: 'tools', fns: echo }] }),
    20,
  ),
  localTrivial,
);
const remoteTool = perCall(
  `over WebSocket: tool call (per call, ${calls} sequential)`,
  await samplePaced(
    toolRuns,
    () => client.execute({ code: toolCode, providers: [{ name: 'tools', fns: echo }] }),
    20,
  ),
  remoteTrivial,
);
const added = {
  name: 'added per tool call by the socket (remote − in process)',
  median: remoteTool.median - localTool.median,
  // A difference of two unpaired tails means nothing; only the medians subtract.
  p99: Number.NaN,
  samples: remoteTool.samples,
};
const addedTrivial = {
  name: 'added per trivial execution by the socket (remote − in process)',
  median: remoteTrivial.median - localTrivial.median,
  p99: Number.NaN,
  samples: remoteTrivial.samples,
};

client.close();
await server.close();

// The transport alone: ws on both ends of a loopback socket, one dispatch-sized message each way.
const roundTrip = await (async () => {
  const echoServer = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  echoServer.on('connection', (peer) => peer.on('message', (data) => peer.send(data.toString())));
  await new Promise((resolve) => echoServer.once('listening', resolve));
  const { port } = echoServer.address() as { port: number };
  const peer = new WebSocket(`ws://127.0.0.1:${port}/`);
  await new Promise((resolve) => peer.addEventListener('open', resolve, { once: true }));
  const message = JSON.stringify({
    type: 'dispatch',
    id: 'c1',
    call: 0,
    provider: 'tools',
    tool: 'echo',
    args: '[1]',
  });
  const samples = await sample(
    iterations * 5,
    () =>
      new Promise<void>((resolve) => {
        peer.addEventListener('message', () => resolve(), { once: true });
        peer.send(message);
      }),
    50,
  );
  const pacedSamples = await paced(
    () =>
      new Promise<void>((resolve) => {
        peer.addEventListener('message', () => resolve(), { once: true });
        peer.send(message);
      }),
  );
  peer.close();
  echoServer.close();
  return [
    summarize('breakdown: WebSocket round trip of one dispatch message (loopback, back to back)', samples),
    summarize('breakdown: the same round trip after 20 ms idle, as a paced execution meets it', pacedSamples),
  ] as const;
})();

printTable(
  `Server over a loopback WebSocket beside IsolateExecutor in process (Node ${process.version}, ${cores} cores, pool of ${cores})`,
  [
    { summary: localTrivial },
    { summary: remoteTrivial, baseline: localTrivial },
    { summary: addedTrivial },
    { summary: localTool },
    { summary: remoteTool, baseline: localTool },
    { summary: added, target: '≤ 150 µs' },
    { summary: roundTrip[0] },
    { summary: roundTrip[1] },
  ],
);
