/**
 * A worker thread waited on with a deadline: jobs of named sources go to a thread module, and each
 * job settles with every source's answer, or with nothing once its deadline passes, when the
 * thread is terminated and the next job starts a fresh one. It exists for work on the host that
 * runs before any isolate, where no isolate limit applies, and that code can make slow: erasing
 * megabytes of TypeScript takes seconds (amaro erases about 2.4 MB/s here), and so does the Code
 * Mode read of code shaped for it. The sandbox erases types in one (sources/erasure-worker.ts),
 * the Code Mode normalizer reads code in several (codemode/normalize-lanes.ts).
 *
 * The thread starts with the first job (about 180 ms for the erasure thread, amaro's load included), so a
 * sandbox that never erases types never pays for it; the deadline counts from when a job reaches a
 * ready thread, so the job is never cut short by the start.
 * A job whose thread was terminated under it for another job's deadline is sent again to the next.
 *
 * A thread left idle for WORKER_IDLE_TIMEOUT is ended: it holds a V8 heap of its own and amaro's
 * WebAssembly (about 25 MB resident in a pool child, docs/pool.md, "Memory"), which only
 * TypeScript needs, and erasure is rare. The next job starts a fresh thread.
 *
 * A thread that holds more than WORKER_RETAINED_LIMIT outside its heap after a job is ended as soon
 * as it has no job left. That memory is amaro's WebAssembly, which grows with what the code parses
 * into (a megabyte of `1+1+…` takes it from 15 to 93 MB) and never shrinks, and no heap bound sees
 * it: without the rule, a lane kept busy after one hostile megabyte held it for as long as the
 * traffic lasted.
 *
 * This was sandbox/eraser.ts, whose TypeEraser named only the first of its uses (docs/sandbox.md,
 * "Renamed files").
 */
import type { ResourceLimits, Worker } from 'node:worker_threads';
import { BadRequestError } from '@supolka/codemode-protocol/wire';
import { monotonicNow } from '../bounds/monotonic.ts';
import { TypeErasureRefusedError } from '../errors/error-kind.ts';

export interface WorkerSource {
  readonly name: string;
  readonly source: string;
}

export interface WorkerJob {
  readonly id: number;
  readonly sources: readonly WorkerSource[];
}

/** What the thread answers a job with: each source's outcome, and its memory outside its heap. */
export interface WorkerAnswer {
  readonly id: number;
  readonly results: readonly WorkerResult[];
  /** Bytes the thread holds outside its JavaScript heap (threadRetainedBytes), after the job. */
  readonly retained: number;
}

export type WorkerResult =
  | { readonly code: string }
  | { readonly refused: string; readonly badRequest: boolean };

/** Each source's answer, or the error its refusal raised; undefined when the deadline passed first. */
export type WorkerOutcome = readonly (string | Error)[] | undefined;

interface Pending {
  readonly job: WorkerJob;
  /** Milliseconds of a ready thread's time the job has left. */
  within: number;
  sentAt?: number | undefined;
  readonly settle: (outcome: WorkerOutcome | Error) => void;
  timer?: NodeJS.Timeout | undefined;
}

/** What a job reads when its thread ended without answering it (the text kept from the type eraser's time). */
export const WORKER_STOPPED_MESSAGE = 'The type eraser stopped before it answered.';

/**
 * What a job reads when its thread ran out of the heap its resourceLimits allow: the input, not the
 * thread, is at fault, so it is a refusal of the request (BadRequestError), never an internal error.
 */
export function workerOutOfMemoryMessage(heapMb: number): string {
  return `The code needs more memory to read than the ${heapMb} MB its reader may use; send shorter or simpler code.`;
}

/** How long a thread with no job stays alive (ms): a burst of TypeScript reuses it, and a rest frees it. */
export const WORKER_IDLE_TIMEOUT = 5000;

/**
 * Bytes outside its heap past which a thread is ended once its jobs are done: 32 MiB. A thread
 * holds about 15 MB once amaro has erased anything, 17 MB after a 100 KB program and 20-24 MB after
 * 300 KB, so ordinary TypeScript keeps its thread; a megabyte of it leaves 41 MB, and a megabyte of
 * `1+1+…` that breaks amaro 93 MB (docs/sandbox.md, "TypeScript").
 */
export const WORKER_RETAINED_LIMIT = 32 * 1024 * 1024;

export interface DeadlineWorkerOptions {
  /** Milliseconds a thread without jobs lives before it is ended; WORKER_IDLE_TIMEOUT by default. */
  readonly idleTimeout?: number;
  /**
   * The thread's module (threadModule), answering each WorkerJob with a WorkerAnswer:
   * sources/erasure-worker.ts for the sandbox's erasure, codemode/normalize-worker.ts for the Code
   * Mode read.
   */
  readonly worker: URL;
  /**
   * The Node options the thread starts with; the process's own (process.execArgv) by default. A
   * caller's process may run with options a thread refuses (`--input-type` of `node -e`), and the
   * thread's module needs none of them.
   */
  readonly execArgv?: readonly string[];
  /**
   * The thread's heap bounds; Node's defaults (sized from the machine's memory) when absent. A job
   * whose thread runs out of them ends with workerOutOfMemoryMessage, and the next starts a fresh
   * thread. They bound the JavaScript heap only: amaro's WebAssembly memory lies outside them.
   */
  readonly resourceLimits?: ResourceLimits;
  /** Bytes outside its heap past which a thread ends once its jobs are done; WORKER_RETAINED_LIMIT by default. */
  readonly retainedLimit?: number;
}

/**
 * Thread module `name` beside the module at `base`, with the extension `base` was loaded with
 * (.ts from source, .js built).
 */
export function threadModule(name: string, base: string): URL {
  return new URL(`./${name}${new URL(base).pathname.endsWith('.ts') ? '.ts' : '.js'}`, base);
}

/**
 * node:worker_threads, loaded with the first thread: about 2 ms of a pool child's start (a process
 * started with --no-node-snapshot compiles every builtin it loads), for a module most runs never
 * need: only TypeScript that fails to compile as JavaScript, or CommonJS to read names from, starts
 * a thread (issue 28).
 */
function workerThreads(): typeof import('node:worker_threads') {
  return process.getBuiltinModule('node:worker_threads');
}

export class DeadlineWorker {
  #worker: Worker | undefined;
  #ready = false;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #disposed = false;
  readonly #idleTimeout: number;
  readonly #workerUrl: URL;
  readonly #execArgv: readonly string[] | undefined;
  readonly #resourceLimits: ResourceLimits | undefined;
  readonly #retainedLimit: number;
  /** The thread answered a job holding more than the retained limit: it ends once it has no job. */
  #retiring = false;
  #idleTimer: NodeJS.Timeout | undefined;

  constructor(options: DeadlineWorkerOptions) {
    this.#idleTimeout = options.idleTimeout ?? WORKER_IDLE_TIMEOUT;
    this.#workerUrl = options.worker;
    this.#execArgv = options.execArgv;
    this.#resourceLimits = options.resourceLimits;
    this.#retainedLimit = options.retainedLimit ?? WORKER_RETAINED_LIMIT;
  }

  /** Whether a thread is alive (starting or ready); false once it was ended for idleness or a deadline. */
  get threadAlive(): boolean {
    return this.#worker !== undefined;
  }

  /** Sends `sources` to the thread, each answered on its own; settles undefined once `within` ms pass on a ready thread. */
  async run(sources: readonly WorkerSource[], within: number): Promise<WorkerOutcome> {
    if (sources.length === 0) return [];
    if (this.#disposed) throw new Error('The sandbox was disposed before its types were erased.');
    const outcome = await new Promise<WorkerOutcome | Error>((settle) => {
      const pending: Pending = { job: { id: this.#nextId++, sources }, within, settle };
      this.#pending.set(pending.job.id, pending);
      clearTimeout(this.#idleTimer);
      this.#idleTimer = undefined;
      this.#start();
      // A retiring thread takes no new job: under a steady stream of jobs it would never run out
      // of them. The job waits for the fresh thread that follows, uncharged, as during any start.
      if (this.#ready && !this.#retiring) this.#send(pending);
    });
    if (outcome instanceof Error) throw outcome;
    return outcome;
  }

  dispose(): void {
    this.#disposed = true;
    this.#stop();
    for (const pending of this.#pending.values()) {
      clearTimeout(pending.timer);
      pending.settle(new Error('The sandbox was disposed before its types were erased.'));
    }
    this.#pending.clear();
  }

  #start(): void {
    if (this.#worker) return;
    const worker = new (workerThreads().Worker)(this.#workerUrl, {
      ...(this.#execArgv ? { execArgv: [...this.#execArgv] } : {}),
      ...(this.#resourceLimits ? { resourceLimits: this.#resourceLimits } : {}),
    });
    // The thread never keeps the process alive: an idle sandbox lets its process end.
    worker.unref();
    this.#worker = worker;
    this.#ready = false;
    this.#retiring = false;
    worker.on('message', (message: 'ready' | WorkerAnswer) => {
      // A thread already ended for a deadline or its memory speaks for no one now.
      if (this.#worker !== worker) return;
      if (message === 'ready') {
        this.#ready = true;
        for (const pending of this.#pending.values()) this.#send(pending);
        return;
      }
      if (message.retained > this.#retainedLimit) this.#retiring = true;
      const pending = this.#pending.get(message.id);
      if (pending === undefined) return;
      this.#finish(pending, message.results.map(toOutcome));
    });
    let outOfMemory = false;
    worker.on('error', (error: NodeJS.ErrnoException) => {
      outOfMemory ||= error.code === 'ERR_WORKER_OUT_OF_MEMORY';
    });
    worker.on('exit', () => {
      if (this.#worker !== worker) return;
      // A thread that died on its own (not terminated for a deadline) fails the jobs it held, and
      // every job when it never became ready: starting it again would fail the same way.
      const wasReady = this.#ready;
      this.#worker = undefined;
      this.#ready = false;
      const heapMb = this.#resourceLimits?.maxOldGenerationSizeMb;
      // A thread that ran out before it was ready could not load its module: not the code's fault.
      const stopped = () =>
        outOfMemory && wasReady && heapMb !== undefined
          ? new BadRequestError(workerOutOfMemoryMessage(heapMb))
          : new Error(WORKER_STOPPED_MESSAGE);
      for (const pending of this.#pending.values()) {
        if (!wasReady || pending.timer !== undefined) this.#finish(pending, stopped());
      }
      if (this.#pending.size > 0 && !this.#disposed) this.#start();
    });
  }

  #stop(): void {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    const worker = this.#worker;
    this.#worker = undefined;
    this.#ready = false;
    void worker?.terminate();
  }

  #send(pending: Pending): void {
    clearTimeout(pending.timer);
    pending.sentAt = monotonicNow();
    pending.timer = setTimeout(() => this.#expire(pending), Math.max(0, pending.within));
    this.#worker?.postMessage(pending.job);
  }

  /** The deadline passed: the thread is ended and every other job goes to a fresh one. */
  #expire(pending: Pending): void {
    // Stopped first, so finishing the job cannot hand the others to a thread ended next.
    this.#stop();
    this.#finish(pending, undefined);
    // The others keep what they had left of their time; the restart is not charged to them.
    const now = monotonicNow();
    for (const other of this.#pending.values()) {
      clearTimeout(other.timer);
      other.timer = undefined;
      if (other.sentAt !== undefined) other.within -= now - other.sentAt;
      // Charged once: until it is sent again, it is no thread's, and a later deadline charges nothing.
      other.sentAt = undefined;
    }
    if (this.#pending.size > 0) this.#start();
  }

  #finish(pending: Pending, outcome: WorkerOutcome | Error): void {
    clearTimeout(pending.timer);
    this.#pending.delete(pending.job.id);
    pending.settle(outcome);
    if (this.#worker === undefined) return;
    if (this.#retiring) {
      // Ended once the jobs it was sent are done; those that waited for it go to a fresh thread.
      for (const other of this.#pending.values()) if (other.timer !== undefined) return;
      this.#stop();
      if (this.#pending.size > 0) this.#start();
      return;
    }
    if (this.#pending.size === 0) this.#idleAfterLastJob();
  }

  /** The last job settled: the thread is ended unless another job arrives within the idle timeout. */
  #idleAfterLastJob(): void {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => this.#stop(), this.#idleTimeout);
    // The timer never keeps the process alive, as the thread does not.
    this.#idleTimer.unref();
  }
}

function toOutcome(result: WorkerResult): string | Error {
  if ('code' in result) return result.code;
  return result.badRequest
    ? new BadRequestError(result.refused)
    : new TypeErasureRefusedError(result.refused);
}
