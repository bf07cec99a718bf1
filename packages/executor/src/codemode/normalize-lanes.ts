/**
 * Where the Code Mode form's code is read into its entry (entry-code.ts): acorn's parse and, for
 * TypeScript, amaro's erasure, both outside every isolate limit, and both slow on code shaped for
 * it within the size bound. On the caller's thread that time stopped the event loop of the
 * application embedding the executor, and every other caller's execution with it: 170 KB of
 * `a < (b` nested 120 deep held it 9 s in amaro, 1 MB of JavaScript over a second in acorn
 * (docs/codemode.md, "Where the code is read").
 *
 * So the size and nesting bounds are checked first, before any parser sees the code; code no
 * longer than INLINE_READ_LIMIT that reads as JavaScript is read here, which is cheap at that
 * size; everything else goes to a lane: a deadline worker (sandbox/threads/deadline-worker.ts) whose thread runs
 * normalize-worker.ts, one read at a time, so one caller's slow read never holds another's. Each
 * read has a deadline of its own, the run's timeout counted from when it reaches a ready thread:
 * past it the lane's thread is terminated and the execution ends with the envelope a sandbox gives
 * an erasure past its deadline. Lanes are few (NORMALIZER_LANES): a read is CPU work, and more
 * threads than cores only divide them; a read that finds every lane busy waits for one, as an
 * execution waits for a child, and as with children the wait is bounded: each waiting read holds
 * its code (up to CODE_LIMIT) in the caller's process, so past the executor's queue limit a read
 * is refused at once with OVERLOADED. A lane that frees goes to the waiting read of the caller
 * holding fewest lanes (pool/fair-queue.ts), not to the oldest read: in arrival order one caller's
 * flood of slow reads held every lane, and another caller's 33-character program waited 10 s.
 */
import { availableParallelism } from 'node:os';
import {
  CancelledError,
  checkSourceLimits,
  ExecutionTimeoutError,
  OverloadedError,
} from '@supolka/codemode-protocol/wire';
import { DEFAULT_QUEUE_LIMIT } from '../executor/defaults.ts';
import { DEFAULT_CALLER, FairQueue } from '../pool/fair-queue.ts';
import { CODE_NAME, checkNesting } from '../sandbox/sources/nesting-scan.ts';
import { DeadlineWorker, threadModule } from '../sandbox/threads/deadline-worker.ts';
import type { CodePositions } from './code-positions.ts';
import type { EntryData } from './entry-code.ts';

/**
 * Threads that may read code at once: one per core, at least two (so one slow read never holds
 * every lane of a small machine) and at most four, since each holds what a megabyte of code
 * parses into while it reads (the worst megabyte measured, read in a process of its own, left it
 * at 376 MB resident: docs/codemode.md, "Where the code is read").
 */
export const NORMALIZER_LANES = Math.min(4, Math.max(2, availableParallelism()));

/**
 * Characters of code read on the caller's thread, as JavaScript only: acorn reads this much in a
 * few milliseconds however it is written (docs/codemode.md, "Where the code is read"), and most
 * programs a model writes are shorter, so they never wait for a thread to start. Erasure never
 * runs there: amaro took 600 ms over 2 KB of `f<a<a<...`.
 */
export const INLINE_READ_LIMIT = 4096;

/**
 * Megabytes of JavaScript heap each lane's thread may use. The worst megabyte of code measured
 * (docs/codemode.md, "Where the code is read") left its process at 376 MB resident, Node's own
 * and amaro's WebAssembly included, without reaching it; without a bound each of NORMALIZER_LANES threads may grow to Node's default heap,
 * sized from the machine's memory, inside the application that embeds the executor. Past it the
 * read ends as a refusal of the code (workerOutOfMemoryMessage), and the lane starts afresh.
 */
export const NORMALIZER_HEAP_LIMIT_MB = 256;

/** Why a read pending when the executor was disposed, or asked for after, is cancelled: the pool's words for an execution it never started. */
export const DISPOSED_BEFORE_START = 'the executor was disposed before it started';

/** The longest interval a timer takes: the one that holds the process fires never in practice. */
const HOLD_INTERVAL = 2 ** 31 - 1;

const WORKER_URL = threadModule('normalize-worker', import.meta.url);

/**
 * The read itself (entry-code.ts), which loads acorn: loaded at the first Code Mode read, not with
 * the library, whose import needs no parser until a program in the Code Mode form arrives.
 */
let reading: Promise<typeof import('./entry-code.ts')> | undefined;
const readModule = () => (reading ??= import('./entry-code.ts'));

/** The names the thread reads the code under: TypeScript on or off (normalize-worker.ts). */
const NAME = { typescript: 'code.ts', javascript: 'code.js' } as const;

export interface CodeNormalizerOptions {
  /** Threads that may read at once; NORMALIZER_LANES by default. */
  readonly lanes?: number;
  /** Each thread's JavaScript heap in MB; NORMALIZER_HEAP_LIMIT_MB by default. */
  readonly heapLimitMb?: number;
  /** Reads that may wait for a lane before one more is refused; IsolateExecutor passes its queueLimit. */
  readonly waitLimit?: number;
}

/** A read waiting for a lane. */
interface WaitingRead {
  readonly caller: string;
  readonly take: (lane: DeadlineWorker) => void;
  readonly cancel: (error: Error) => void;
}

export class CodeNormalizer {
  /** Every lane opened, busy or idle: disposal ends the threads of both. */
  readonly #lanes = new Set<DeadlineWorker>();
  readonly #idle: DeadlineWorker[] = [];
  /** The caller each busy lane reads for. */
  readonly #reading = new Map<DeadlineWorker, string>();
  readonly #waiting = new FairQueue<WaitingRead>();
  readonly #limit: number;
  readonly #heapLimitMb: number;
  readonly #waitLimit: number;
  #disposed = false;

  constructor({
    lanes = NORMALIZER_LANES,
    heapLimitMb = NORMALIZER_HEAP_LIMIT_MB,
    waitLimit = DEFAULT_QUEUE_LIMIT,
  }: CodeNormalizerOptions = {}) {
    this.#limit = lanes;
    this.#heapLimitMb = heapLimitMb;
    this.#waitLimit = waitLimit;
  }

  /**
   * The entry toEntryCode makes of `code`, read in a thread of its own, with where the code sits in
   * it (code-positions.ts). Throws BadRequestError for
   * code past CODE_LIMIT or NESTING_LIMIT (before any thread sees it) and for a refusal the read
   * raised, ExecutionTimeoutError(timeout) when the read took longer than `timeout` ms of a ready
   * thread, CancelledError once the normalizer was disposed, OverloadedError when every lane is
   * busy and `waitLimit` reads already wait. `caller` is whom the read is for: lanes are shared
   * between callers (pool/fair-queue.ts).
   */
  async normalize(
    code: string,
    typescript: boolean,
    timeout: number,
    caller: string = DEFAULT_CALLER,
  ): Promise<{ code: string; positions: CodePositions }> {
    if (this.#disposed) throw new CancelledError(DISPOSED_BEFORE_START);
    // Both are one linear pass, and a string past CODE_LIMIT is never copied to a thread.
    checkSourceLimits(code, undefined);
    checkNesting(code, CODE_NAME);
    if (code.length <= INLINE_READ_LIMIT) {
      // Read as JavaScript, which erases nothing: what reads so is the entry either way.
      const { entryData, normalize, withPositions } = await readModule();
      const read = normalize(code, false);
      if (read.entry !== undefined || !typescript) return withPositions(code, entryData(read));
    }
    // A lane's thread never keeps the process alive (it idles out unreferenced), so a script whose
    // only work is this execution would end while the thread starts: the read holds the process.
    const holdProcess = setInterval(() => {}, HOLD_INTERVAL);
    let read: Awaited<ReturnType<DeadlineWorker['run']>>;
    try {
      const lane = await this.#take(caller);
      try {
        read = await lane.run(
          [{ name: typescript ? NAME.typescript : NAME.javascript, source: code }],
          timeout,
        );
      } finally {
        this.#give(lane);
      }
    } catch (error) {
      if (this.#disposed) throw new CancelledError(DISPOSED_BEFORE_START);
      throw error;
    } finally {
      clearInterval(holdProcess);
    }
    if (this.#disposed) throw new CancelledError(DISPOSED_BEFORE_START);
    if (read === undefined) throw new ExecutionTimeoutError(timeout);
    const [entry] = read;
    if (entry instanceof Error) throw entry;
    // The thread answers the entry with the slices it copied, as JSON text (normalize-worker.ts).
    const { withPositions } = await readModule();
    return withPositions(code, JSON.parse(entry as string) as EntryData);
  }

  /** Ends every thread; reads pending or asked for later end with CancelledError. */
  dispose(): void {
    this.#disposed = true;
    for (const lane of this.#lanes) lane.dispose();
    this.#lanes.clear();
    this.#idle.length = 0;
    this.#reading.clear();
    for (const { cancel } of this.#waiting.clear()) cancel(new CancelledError(DISPOSED_BEFORE_START));
  }

  /**
   * An idle lane, a new one while fewer than the limit are open, or the next one given back, in
   * turn; refused with OverloadedError when `waitLimit` reads wait already.
   */
  #take(caller: string): Promise<DeadlineWorker> {
    const idle = this.#idle.pop();
    if (idle) {
      this.#reading.set(idle, caller);
      this.#waiting.served(caller);
      return Promise.resolve(idle);
    }
    if (this.#lanes.size < this.#limit) {
      // The embedding application's Node options are its own: `node -e`'s --input-type, for one,
      // would stop the thread from loading its module file.
      const lane = new DeadlineWorker({
        worker: WORKER_URL,
        execArgv: [],
        resourceLimits: { maxOldGenerationSizeMb: this.#heapLimitMb },
      });
      this.#lanes.add(lane);
      this.#reading.set(lane, caller);
      this.#waiting.served(caller);
      return Promise.resolve(lane);
    }
    if (this.#waiting.length >= this.#waitLimit) return Promise.reject(new OverloadedError());
    return new Promise((take, cancel) => this.#waiting.push({ caller, take, cancel }));
  }

  /**
   * A lane whose read settled goes straight to a waiting read: that of the caller reading in
   * fewest lanes, the oldest of its reads (pool/fair-queue.ts).
   */
  #give(lane: DeadlineWorker): void {
    this.#reading.delete(lane);
    if (this.#disposed) return;
    const [next] = this.#waiting.inTurn((caller) => this.#lanesOf(caller));
    if (next === undefined) {
      this.#idle.push(lane);
      return;
    }
    this.#waiting.serve(next);
    this.#reading.set(lane, next.caller);
    next.take(lane);
  }

  /** How many lanes read for `caller` now. */
  #lanesOf(caller: string): number {
    let count = 0;
    for (const reader of this.#reading.values()) if (reader === caller) count++;
    return count;
  }
}
