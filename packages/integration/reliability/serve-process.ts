/**
 * `codemode-executor serve` in a process of its own, as an operator starts it, so a message that
 * crashed it would show as its exit (with the last of its stderr) instead of taking the fuzzer
 * down. Listens on 127.0.0.1 on a port the kernel picks, with a token from the environment.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

const SERVING = /^codemode-executor serving on (\S+)$/;
const STDERR_KEPT = 8192;

export interface ServeExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** The last of what it wrote to stderr. */
  readonly stderr: string;
}

export class ServeProcess {
  readonly url: string;
  readonly child: ChildProcess;
  readonly #exited: Promise<ServeExit>;
  #exit: ServeExit | undefined;

  private constructor(url: string, child: ChildProcess, exited: Promise<ServeExit>) {
    this.url = url;
    this.child = child;
    this.#exited = exited;
    void exited.then((exit) => {
      this.#exit = exit;
    });
  }

  /** Starts the command at `entry` (dist/cli/main.js, or the sources' main.ts) with `args` after `serve`. */
  static async start(entry: string, token: string, args: readonly string[] = []): Promise<ServeProcess> {
    const child = spawn(
      process.execPath,
      [entry, 'serve', '--port', '0', '--host', '127.0.0.1', '--log-level', 'fatal', ...args],
      { env: { ...process.env, CODEMODE_EXECUTOR_TOKEN: token }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_KEPT);
    });
    const exited = once(child, 'exit').then(([code, signal]) => ({ code, signal, stderr }) as ServeExit);
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    const url = await Promise.race([
      new Promise<string>((resolve) =>
        lines.on('line', (line) => {
          const match = SERVING.exec(line);
          if (match) resolve(match[1] as string);
        }),
      ),
      exited.then((exit) => {
        throw new Error(
          `codemode-executor serve exited (${exit.signal ?? exit.code}) before it served: ${exit.stderr}`,
        );
      }),
    ]);
    return new ServeProcess(url, child, exited);
  }

  /** How the process ended, once it has; undefined while it serves. */
  get exit(): ServeExit | undefined {
    return this.#exit;
  }

  /** SIGTERM (the server drains and stops), and its exit. */
  async stop(): Promise<ServeExit> {
    if (this.#exit === undefined) this.child.kill('SIGTERM');
    return this.#exited;
  }
}
