/**
 * One `codemode-executor serve` as an operator runs it, in a process of its own: the CLI from
 * source, a token file, a port the kernel picks and an instance name, so a test can send it
 * SIGTERM or SIGKILL and watch its pool's children go with it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { waitUntil } from '../helpers.ts';

const main = new URL('../../../executor/src/cli/main.ts', import.meta.url).pathname;

export class ExecutorProcess {
  readonly instance: string;
  readonly #process: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  #stdout = '';
  #stderr = '';

  /** `env`: more of the server's environment (a durable key ring, CODEMODE_DURABLE_KEYS). */
  constructor(instance: string, tokenFile: string, poolSize: number, env: Record<string, string> = {}) {
    this.instance = instance;
    this.#process = spawn(
      process.execPath,
      [
        main,
        'serve',
        '--port',
        '0',
        '--instance',
        instance,
        '--pool-size',
        String(poolSize),
        '--token-file',
        tokenFile,
        '--log-level',
        'warn',
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, CODEMODE_EXECUTOR_TOKEN: undefined, ...env },
      },
    );
    this.#process.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      this.#stdout += chunk;
    });
    this.#process.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.#stderr += chunk;
    });
    this.exited = new Promise((resolve) =>
      this.#process.on('exit', (code, signal) => resolve({ code, signal })),
    );
  }

  /** Waits until the server prints its address. */
  async listening(): Promise<void> {
    await waitUntil(
      () => this.#stdout.includes('serving on') || this.#process.exitCode !== null,
      `${this.instance} listens`,
      30_000,
    );
    if (this.url === undefined) throw new Error(`${this.instance} did not start: ${this.#stderr}`);
  }

  /** Waits until its health check passes: a child of its pool has reported healthy. */
  async healthy(): Promise<void> {
    await waitUntil(
      async () => (await fetch(this.healthz).catch(() => undefined))?.status === 200,
      `${this.instance} answers /healthz 200`,
      120_000,
    );
  }

  get url(): string | undefined {
    return /serving on (ws:\S+)/.exec(this.#stdout)?.[1];
  }

  /** host:port, as HAProxy's server line takes it. */
  get address(): string {
    return new URL(this.url as string).host;
  }

  get healthz(): string {
    return new URL('/healthz', (this.url as string).replace('ws:', 'http:')).href;
  }

  get stdout(): string {
    return this.#stdout;
  }

  get running(): boolean {
    return this.#process.exitCode === null && this.#process.signalCode === null;
  }

  /** The pids of its pool's children, from its health report. */
  async childPids(): Promise<number[]> {
    const report = (await (await fetch(this.healthz)).json()) as { pool: { children: { pid: number }[] } };
    return report.pool.children.map((child) => child.pid);
  }

  signal(signal: NodeJS.Signals): void {
    this.#process.kill(signal);
  }
}

/** True while a process of that pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
