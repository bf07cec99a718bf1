/**
 * A workerd process serving the host Worker the Worker Loader peer measures (bench/peers-workerd.ts),
 * and the start that waits for it to run a loaded Worker; bench/cold-start.ts times that start as
 * Worker Loader's ready time, the peer issue 28 sets engine ready against.
 *
 * workerd is the compat package's dependency; its binary and control channel are read through that
 * package's own src/workerd modules. It listens on 127.0.0.1 only, on a port the kernel picks.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { workerdBinary } from '../packages/compat/src/workerd/binary.ts';
import { lineSplitter, parseControlLine } from '../packages/compat/src/workerd/control.ts';

/** How long workerd may take to listen and serve before the bench gives up on it. */
export const START_TIMEOUT = 15_000;
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

/** Writes the host's config into `directory`; answers its path. */
export function writeHostConfig(directory: string): string {
  const path = join(directory, 'config.capnp');
  writeFileSync(path, CONFIG);
  return path;
}

/** Starts workerd and resolves with its origin once the host Worker answers; rejects with why it could not. */
export async function startWorkerdHost(directory: string): Promise<{ child: ChildProcess; origin: string }> {
  const config = writeHostConfig(directory);
  // fd 3 is the control channel: workerd reports the port it bound there.
  const child = spawn(workerdBinary(), ['serve', config, '--experimental', '--control-fd=3'], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
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

/** Ends a workerd this bench started: SIGTERM, then SIGKILL after 3 s. */
export async function stopWorkerd(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(killer);
}
