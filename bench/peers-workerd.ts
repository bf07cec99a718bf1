/**
 * Peer benchmark: workerd's Worker Loader, the platform Code Mode runs on at Cloudflare, measured the
 * way this project is measured. Started by `tools/run bench`.
 *
 *   trivial execution, back to back   one HTTP request to a host Worker, which loads a fresh Worker
 *                                     (a new name, so a new isolate) and calls its entrypoint's run()
 *   tool call                         per call, in a program making 100 sequential calls to an RPC stub
 *                                     (an RpcTarget) served by the host Worker, the way
 *                                     DynamicWorkerExecutor hands its ToolDispatcher to the program
 *   throughput                        executions per second with 2 concurrent callers
 *   breakdown: HTTP round trip        the same request answered by the host without loading a Worker
 *
 * workerd is the compat package's dependency; its binary and control channel are read through that
 * package's own src/workerd modules. It listens on 127.0.0.1 only, on a port the kernel picks, is
 * started and stopped here, and is given a bounded time to start: when it cannot start, this prints
 * why and exits 0, so the other benches' rows and the targets table still print (their Worker Loader
 * baselines then read "not measured").
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { workerdVersion } from '../packages/compat/src/workerd/binary.ts';
import { printTable, record, type Summary, sample, single, summarize } from './stats.ts';
import { startWorkerdHost, stopWorkerd } from './workerd-host.ts';

const iterations = Number(process.env.BENCH_ITERATIONS ?? 300);
const calls = 100;
const callers = 2;
/** How long one request may take before the bench gives up on workerd. */
const REQUEST_TIMEOUT = 10_000;

async function request(url: string): Promise<void> {
  const response = await fetch(url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT) });
  const body = await response.text();
  if (!response.ok) throw new Error(`workerd answered ${response.status}: ${body}`);
}

const directory = mkdtempSync(join(tmpdir(), 'codemode-bench-workerd-'));
let workerd: { child: ChildProcess; origin: string } | undefined;
try {
  workerd = await startWorkerdHost(directory);
} catch (error) {
  console.log(`\nWorker Loader (workerd ${workerdVersion()}): not measured. ${(error as Error).message}`);
}
if (workerd !== undefined) {
  const { child, origin } = workerd;
  // However this process ends, workerd ends with it.
  process.once('exit', () => child.kill('SIGKILL'));
  try {
    const noop = summarize(
      'breakdown: HTTP round trip to the host Worker, nothing loaded',
      await sample(iterations, () => request(`${origin}/noop`)),
    );
    const trivial = summarize(
      'Worker Loader: trivial execution, back to back',
      await sample(iterations, () => request(`${origin}/run?calls=0`)),
    );
    // Paired: each program with calls right after one without, so the spread of a trivial execution
    // (its fresh isolate is most of the time, and the noisiest part) moves both sides of each
    // difference alike.
    const timed = async (url: string) => {
      const started = performance.now();
      await request(url);
      return performance.now() - started;
    };
    for (let index = 0; index < 5; index++) await request(`${origin}/run?calls=${calls}`);
    const perCall: number[] = [];
    for (let index = 0; index < Math.max(30, iterations / 5); index++) {
      const without = await timed(`${origin}/run?calls=0`);
      perCall.push(((await timed(`${origin}/run?calls=${calls}`)) - without) / calls);
    }
    const toolCall = summarize(
      `Worker Loader: tool call to an RPC stub of the host (per call, ${calls} sequential)`,
      perCall,
    );
    let completed = 0;
    const duration = 3000;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: callers }, async () => {
        while (performance.now() - started < duration) {
          await request(`${origin}/run?calls=0`);
          completed++;
        }
      }),
    );
    const elapsed = performance.now() - started;
    const throughput = single(
      `Worker Loader: throughput, ${callers} concurrent callers (executions/s)`,
      completed / (elapsed / 1000),
      completed,
    );
    const rows: { summary: Summary; baseline?: Summary }[] = [
      { summary: noop },
      { summary: trivial, baseline: noop },
      { summary: toolCall },
    ];
    printTable(`Worker Loader (workerd ${workerdVersion()}, loopback HTTP to a host Worker)`, rows);
    console.log(
      `\nthroughput: ${throughput.median.toFixed(0)} executions/s with ${callers} concurrent callers over ${(elapsed / 1000).toFixed(1)} s`,
    );
    record('workerd.noop', noop);
    record('workerd.trivial', trivial);
    record('workerd.toolCall', toolCall);
    record('workerd.throughput', throughput, '/s');
  } catch (error) {
    console.log(`\nWorker Loader: the measurement failed: ${(error as Error).message}`);
  } finally {
    await stopWorkerd(child);
  }
}
rmSync(directory, { recursive: true, force: true });
