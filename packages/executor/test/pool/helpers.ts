/**
 * Builds real pools for tests: real child processes, real isolates. Each pool records its
 * supervision events so a test can wait for one instead of for time, and is disposed when its test
 * ends, with a check that every child it ever forked is gone.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, onTestFinished } from 'vitest';
import { resolveOptions } from '../../src/executor/options.ts';
import type { PackageBundle } from '../../src/packages/bundle.ts';
import type { PoolEvent } from '../../src/pool/events.ts';
import { Pool, type PoolOptions } from '../../src/pool/pool.ts';
import type { DispatchFunction } from '../../src/sandbox/dispatch.ts';

/** Every event a pool emitted, and a way to wait for one that has not happened yet. */
export class EventLog {
  readonly events: PoolEvent[] = [];
  #waiters: { match: (event: PoolEvent) => boolean; resolve: (event: PoolEvent) => void }[] = [];

  readonly record = (event: PoolEvent): void => {
    this.events.push(event);
    this.#waiters = this.#waiters.filter((waiter) => {
      if (!waiter.match(event)) return true;
      waiter.resolve(event);
      return false;
    });
  };

  /** The next event matching, or one already recorded when `past` is true. */
  next<Type extends PoolEvent['type']>(
    type: Type,
    match: (event: Extract<PoolEvent, { type: Type }>) => boolean = () => true,
    past = false,
  ): Promise<Extract<PoolEvent, { type: Type }>> {
    const matches = (event: PoolEvent): event is Extract<PoolEvent, { type: Type }> =>
      event.type === type && match(event as Extract<PoolEvent, { type: Type }>);
    if (past) {
      const seen = this.events.find(matches);
      if (seen) return Promise.resolve(seen);
    }
    return new Promise((resolve) => {
      this.#waiters.push({ match: matches, resolve: resolve as (event: PoolEvent) => void });
    });
  }

  pids(type: PoolEvent['type']): number[] {
    return this.events.filter((event) => event.type === type).map((event) => event.pid);
  }
}

/**
 * Pool options as IsolateExecutor resolves them (executor/options.ts), with `options` over them: the
 * pool applies no defaults of its own.
 */
export function poolOptions(options: Partial<PoolOptions> = {}): PoolOptions {
  return { ...resolveOptions().pool, ...options };
}

/** A pool for one test, disposed when it finishes; every child it forked must be gone by then. */
export function usePool(options: Partial<PoolOptions> = {}): { pool: Pool; log: EventLog } {
  const log = new EventLog();
  const pool = new Pool(poolOptions({ ...options, onEvent: log.record }));
  onTestFinished(async () => {
    await pool.dispose();
    for (const pid of log.pids('spawned'))
      expect(processAlive(pid), `child ${pid} outlived dispose`).toBe(false);
  });
  return { pool, log };
}

/** Whether a process exists and is not a zombie waiting to be reaped. */
export function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state is the first field after the parenthesized command name.
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

/**
 * Tools served in the parent: each call is recorded, and `gate(name)` calls wait until the test
 * opens the gate with that name, so a test can hold an execution inside a tool call.
 */
export class Tools {
  readonly calls: { tool: string; args: unknown }[] = [];
  readonly #gates = new Map<string, Deferred<unknown>>();
  readonly #arrivals = new Map<string, Deferred<void>>();

  /** Resolves once a `gate(name)` call has arrived. */
  arrived(name: string): Promise<void> {
    return this.#arrival(name).promise;
  }

  open(name: string, value: unknown = name): void {
    this.#gate(name).resolve(value);
  }

  readonly dispatch: DispatchFunction = async (_provider, tool, argsJson) => {
    const args = JSON.parse(argsJson) as unknown[];
    this.calls.push({ tool, args });
    if (tool === 'gate') {
      const name = String(args[0]);
      this.#arrival(name).resolve();
      return JSON.stringify({ result: await this.#gate(name).promise });
    }
    if (tool === 'echo') return JSON.stringify({ result: args[0] });
    if (tool === 'fail') return JSON.stringify({ error: String(args[0]) });
    return JSON.stringify({ error: `no tool ${tool}` });
  };

  #gate(name: string): Deferred<unknown> {
    const gate = this.#gates.get(name) ?? deferred();
    this.#gates.set(name, gate);
    return gate;
  }

  #arrival(name: string): Deferred<void> {
    const arrival = this.#arrivals.get(name) ?? deferred<void>();
    this.#arrivals.set(name, arrival);
    return arrival;
  }
}

export const TOOLS_PROVIDER = [{ name: 'tools' }];

/** The pid of the one busy child. */
export function busyChild(pool: Pool): number {
  const busy = pool.stats().children.filter((child) => child.state === 'busy');
  expect(busy).toHaveLength(1);
  return (busy[0] as { pid: number }).pid;
}

/** A bundle of one package, as @supolka/codemode-packages makes them (src/packages/bundle.ts): `tiny` exports `one`, 1. */
export const TINY_BUNDLE: PackageBundle = {
  packages: [
    {
      name: 'tiny',
      version: '1.0.0',
      source: 'module.exports = { tiny: () => ({ one: 1 }) };',
      requires: [],
      subpaths: { tiny: { format: 'esm', names: ['one'] } },
    },
  ],
};

/**
 * A program that reads the runtime a child's snapshot holds (URL, TextEncoder, crypto,
 * structuredClone), and its answer: however a child started (its own start, one handed on, one
 * read from disk), it must run this as a child that made its own does.
 */
export const RUNTIME_PROGRAM = `async () => [
  new URL('https://a.test/b?c=d').searchParams.get('c'),
  new TextEncoder().encode('é').length,
  crypto.randomUUID().length,
  structuredClone({ kept: [1] }),
]`;
export const RUNTIME_ANSWER = { result: ['d', 2, 36, { kept: [1] }], logs: [] };

/**
 * A folder of the test's own in the system's temporary folder, its name starting with `prefix`,
 * removed when the test finishes, whether it passed or failed: for a hook's marker file or a cache.
 */
export function testFolder(prefix: string): string {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
  return folder;
}
