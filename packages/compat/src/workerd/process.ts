/**
 * One workerd process for the whole suite: started from a generated config, ready when its control
 * channel says the socket listens and the host Worker answers, and stopped whatever happens.
 * Shaped after miniflare's src/runtime/index.ts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { workerdBinary } from './binary.ts';
import { HOST_MODULE, HOST_SOCKET, renderConfig } from './config.ts';
import type { ConsoleTranscripts } from './console-transcript.ts';
import { lineSplitter, parseControlLine } from './control.ts';
import { onProcessExit } from './exit-hooks.ts';

export interface WorkerdOptions {
  /** `127.0.0.1:<port>` of the loopback server. */
  readonly loopbackAddress: string;
  /** How long startup may take before it counts as failed (default 15 s). */
  readonly readyTimeout?: number;
  /** The binary; defaults to workerdBinary(). */
  readonly binary?: string;
  /** Extra arguments, appended last (tests use it to make startup fail). */
  readonly extraArgs?: readonly string[];
  /** Where the case Workers' console output is read back (the loopback server's). */
  readonly transcripts?: ConsoleTranscripts;
}

/** The file descriptor workerd writes its control messages to (fds 0 to 2 are the usual three). */
const CONTROL_FD = 3;
/** How much of workerd's stderr is kept for error messages. */
const STDERR_KEEP = 64 * 1024;
/** How long a stopping workerd gets after SIGTERM before SIGKILL. */
const STOP_GRACE = 3000;

/** The host Worker's source, beside the package's src/ and dist/ alike. */
const HOST_SOURCE = new URL(`../../workers/${HOST_MODULE}`, import.meta.url);

export class WorkerdProcess {
  readonly #child: ChildProcess;
  readonly #directory: string;
  readonly #unhook: () => void;
  readonly #exited: Promise<void>;
  #stderr = '';
  #stopping: Promise<void> | undefined;
  #url: string | undefined;

  private constructor(child: ChildProcess, directory: string, transcripts: ConsoleTranscripts | undefined) {
    this.#child = child;
    this.#directory = directory;
    // The last resort: kill workerd and remove its config, synchronously, as exit hooks must.
    this.#unhook = onProcessExit(() => {
      child.kill('SIGKILL');
      rmSync(directory, { recursive: true, force: true });
    });
    this.#exited = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      child.once('exit', () => resolve());
      // A binary that cannot be spawned emits 'error' and may never emit 'exit'.
      child.once('error', () => resolve());
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString()).slice(-STDERR_KEEP);
    });
    // stdout and stderr carry the case Workers' own console output: read for the lines a case
    // marked (console-transcript.ts), and drained anyway so a chatty case cannot fill the pipe
    // and stall workerd.
    if (transcripts !== undefined) {
      child.stdout?.on('data', transcripts.stream());
      child.stderr?.on('data', transcripts.stream());
    } else {
      child.stdout?.resume();
    }
  }

  /** Writes the config, starts workerd, and resolves once it serves; on failure nothing is left running. */
  static async start(options: WorkerdOptions): Promise<WorkerdProcess> {
    const directory = await mkdtemp(join(tmpdir(), 'codemode-compat-'));
    await writeFile(join(directory, 'config.capnp'), renderConfig(options));
    await copyFile(HOST_SOURCE, join(directory, HOST_MODULE));
    const args = [
      'serve',
      join(directory, 'config.capnp'),
      // The Worker Loader binding is experimental; workerd refuses the config without this.
      '--experimental',
      // Control messages (the listening port) as JSON lines on fd 3: readiness and the port.
      `--control-fd=${CONTROL_FD}`,
      ...(options.extraArgs ?? []),
    ];
    const child = spawn(options.binary ?? workerdBinary(), args, {
      // stdin unused; stdout drained; stderr kept for errors; fd 3 is the control channel.
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    const workerd = new WorkerdProcess(child, directory, options.transcripts);
    try {
      await workerd.#ready(options.readyTimeout ?? 15_000);
    } catch (error) {
      await workerd.dispose();
      throw error;
    }
    return workerd;
  }

  /** `http://127.0.0.1:<port>` of the host Worker. */
  get url(): string {
    if (this.#url === undefined) throw new Error('workerd is not ready');
    return this.#url;
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** The tail of what workerd wrote to stderr. */
  get stderr(): string {
    return this.#stderr;
  }

  async #ready(timeout: number): Promise<void> {
    const deadline = Date.now() + timeout;
    const port = await this.#listening(timeout);
    this.#url = `http://127.0.0.1:${port}`;
    // Listening is not serving: ask the host Worker itself, within what is left of the deadline.
    for (;;) {
      try {
        const response = await fetch(`${this.#url}/__ready`, { signal: AbortSignal.timeout(1000) });
        const body = await response.text();
        if (response.ok && body === 'ready') return;
        throw new Error(`the host Worker answered ${response.status}: ${body}`);
      } catch (error) {
        if (Date.now() >= deadline)
          throw this.#failure(`did not serve within ${timeout} ms (${String(error)})`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  /** Resolves with the host socket's port once the control channel reports it. */
  #listening(timeout: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => settle(this.#failure(`did not listen within ${timeout} ms`)), timeout);
      const onExit = (code: number | null, signal: string | null) =>
        settle(this.#failure(`exited during startup (${signal ?? `code ${code}`})`));
      const onError = (error: Error) => settle(this.#failure(`could not be started: ${error.message}`));
      const settle = (outcome: Error | number) => {
        clearTimeout(timer);
        this.#child.off('exit', onExit);
        this.#child.off('error', onError);
        if (typeof outcome === 'number') resolve(outcome);
        else reject(outcome);
      };
      this.#child.once('exit', onExit);
      this.#child.once('error', onError);
      const control = this.#child.stdio[CONTROL_FD] as Readable | null;
      control?.on(
        'data',
        lineSplitter((line) => {
          try {
            const message = parseControlLine(line);
            if (message.kind === 'listen' && message.listen.socket === HOST_SOCKET)
              settle(message.listen.port);
          } catch (error) {
            settle(this.#failure((error as Error).message));
          }
        }),
      );
    });
  }

  #failure(what: string): Error {
    // stderr arrives on its own stream; by the time a failure is reported workerd has usually
    // written its reason, and when it has not, the message says so instead of ending in nothing.
    const stderr = this.#stderr.trim();
    return new Error(`workerd ${what}.\n${stderr === '' ? '(workerd wrote nothing to stderr)' : stderr}`);
  }

  /** Stops workerd (SIGTERM, then SIGKILL after a grace) and removes the config; safe to call twice. */
  dispose(): Promise<void> {
    this.#stopping ??= (async () => {
      if (this.#child.exitCode === null && this.#child.signalCode === null) {
        this.#child.kill('SIGTERM');
        const killer = setTimeout(() => this.#child.kill('SIGKILL'), STOP_GRACE);
        await this.#exited;
        clearTimeout(killer);
      }
      this.#unhook();
      await rm(this.#directory, { recursive: true, force: true });
    })();
    return this.#stopping;
  }
}
