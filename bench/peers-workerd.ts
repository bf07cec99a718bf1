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
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { workerdBinary, workerdVersion } from '../packages/compat/src/workerd/binary.ts';
import { lineSplitter, parseControlLine } from '../packages/compat/src/workerd/control.ts';
import { printTable, record, type Summary, sample, single, summarize } from './stats.ts';

const iterations = Number(process.env.BENCH_ITERATIONS ?? 300);
const calls = 100;
const callers = 2;
/** How long workerd may take to listen and serve before the bench gives up on it. */
const START_TIMEOUT = 15_000;
/** How long one request may take before the bench gives up on workerd. */
const REQUEST_TIMEOUT = 10_000;
/** The compat suite's date (packages/compat/src/workerd/config.ts says why). */
const COMPATIBILITY_DATE = '2025-09-01';
const HOST_SOCKET = 'http';

/**
 * The host Worker. Each /run loads a Worker without a name, with no network (globalOutbound null),
 * and calls its entrypoint over RPC with a tools stub; /noop answers without loading anything.
 * Unnamed, because the loader caches a named Worker for as long as workerd lives: a fresh name per
 * run (what the compat suite does) is a fresh isolate too, but every one of them stays resident
 * (about 1 MB each, measured), so a long run would time a growing process. An unnamed Worker is
 * loaded for its run and released after it, as each execution here is.
 */
const HOST_SOURCE = `
import { RpcTarget } from 'cloudflare:workers';

class Tools extends RpcTarget {
  echo(value) { return value; }
}

const PROGRAM = \`
import { WorkerEntrypoint } from 'cloudflare:workers';
export default class extends WorkerEntrypoint {
  async run(tools, calls) {
    for (let i = 0; i < calls; i++) await tools.echo(i);
    return 1;
  }
}
\`;

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === '/noop') return new Response('ready');
    if (url.pathname !== '/run') return new Response('not found', { status: 404 });
    const calls = Number(url.searchParams.get('calls') ?? '0');
    const worker = env.LOADER.get(null, () => ({
      compatibilityDate: ${JSON.stringify(COMPATIBILITY_DATE)},
      mainModule: 'program.js',
      modules: { 'program.js': PROGRAM },
      globalOutbound: null,
    }));
    const result = await worker.getEntrypoint().run(new Tools(), calls);
    return new Response(String(result));
  },
};
`;

/** Cap'n Proto text literal: JSON's escaping is a subset capnp reads the same way. */
const text = (value: string) => JSON.stringify(value);

const CONFIG = `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "bench-host", worker = (
      modules = [(name = "host.js", esModule = ${text(HOST_SOURCE)})],
      compatibilityDate = ${text(COMPATIBILITY_DATE)},
      bindings = [(name = "LOADER", workerLoader = ())],
    )),
  ],
  sockets = [(name = ${text(HOST_SOCKET)}, address = "127.0.0.1:0", http = (), service = "bench-host")],
);
`;

/** Starts workerd and resolves with its origin once the host Worker answers; rejects with why it could not. */
async function start(directory: string): Promise<{ child: ChildProcess; origin: string }> {
  writeFileSync(join(directory, 'config.capnp'), CONFIG);
  // fd 3 is the control channel: workerd reports the port it bound there.
  const child = spawn(
    workerdBinary(),
    ['serve', join(directory, 'config.capnp'), '--experimental', '--control-fd=3'],
    {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4096);
  });
  const failed = (what: string) => new Error(`workerd ${what}${stderr === '' ? '' : `:\n${stderr.trim()}`}`);
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(failed(`did not listen within ${START_TIMEOUT} ms`)),
      START_TIMEOUT,
    );
    child.once('error', (error) => reject(failed(`could not be started (${error.message})`)));
    child.once('exit', (code, signal) =>
      reject(failed(`exited during startup (${signal ?? `code ${code}`})`)),
    );
    (child.stdio[3] as Readable).on(
      'data',
      lineSplitter((line) => {
        // A line of unknown shape rejects the start instead of throwing out of this listener.
        try {
          const message = parseControlLine(line);
          if (message.kind === 'listen' && message.listen.socket === HOST_SOCKET) {
            clearTimeout(timer);
            resolve(message.listen.port);
          }
        } catch (error) {
          clearTimeout(timer);
          reject(failed((error as Error).message));
        }
      }),
    );
  }).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  const origin = `http://127.0.0.1:${port}`;
  const answer = await fetch(`${origin}/run?calls=1`, { signal: AbortSignal.timeout(START_TIMEOUT) })
    .then((response) => response.text())
    .catch((error: unknown) => String(error));
  if (answer !== '1') {
    child.kill('SIGKILL');
    throw failed(`does not run a loaded Worker (answered ${JSON.stringify(answer)})`);
  }
  return { child, origin };
}

async function request(url: string): Promise<void> {
  const response = await fetch(url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT) });
  const body = await response.text();
  if (!response.ok) throw new Error(`workerd answered ${response.status}: ${body}`);
}

const directory = mkdtempSync(join(tmpdir(), 'codemode-bench-workerd-'));
let workerd: { child: ChildProcess; origin: string } | undefined;
try {
  workerd = await start(directory);
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
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(killer);
    }
  }
}
rmSync(directory, { recursive: true, force: true });
