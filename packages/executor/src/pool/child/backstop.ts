/**
 * The child's memory backstop: the bound for memory an isolate's own limit does not meter.
 *
 * isolated-vm enforces `memoryLimit` after the fact: when V8 nears the limit it grants the heap up to
 * 1 GiB more (its near-heap-limit callback) and asks for a full collection; only a collection that
 * still finds the heap over the limit terminates the isolate. One allocation V8 makes in a single
 * runtime call (a maximum-length string made flat, 512 MiB) completes before any check, and one
 * that is garbage again by the next full collection is never counted at all (docs/threat-model.md).
 * No in-isolate measure reaches inside that runtime call, so this one watches the process.
 *
 * While an isolate of this process may run guest code (a run, an invocation, a retained
 * execution's timers), a timer on the child's main thread reads its resident memory; isolates run
 * on their own threads, so it keeps firing while they compute. The next reading comes when the
 * process could reach the ceiling at BACKSTOP_GROWTH_RATE, between BACKSTOP_INTERVAL and
 * BACKSTOP_MAX_INTERVAL ms: far below the ceiling the child wakes 20 times a second, near it 500.
 * Past the ceiling it names the isolate whose CPU time grew most since the previous sample (the
 * one allocating) and the child ends itself: disposing that isolate would not stop a runtime call
 * already under way, and ending the process does at once.
 */
import { type IsolateHandle, liveIsolates, stoppingIsolates } from '../../sandbox/isolate.ts';
import { residentReader } from './resident.ts';

const MIB = 2 ** 20;

/** The shortest wait between two readings of resident memory while guest code may run, in ms. */
export const BACKSTOP_INTERVAL = 2;
/** The longest, far below the ceiling, in ms. */
export const BACKSTOP_MAX_INTERVAL = 50;
/**
 * The fastest the schedule assumes resident memory grows, in bytes per ms: 4 MB/ms, about three
 * times the fastest measured here (fresh pages touched at 1.0 to 1.1 MB/ms, a flat string at 1.1
 * to 1.4 MB/ms). Growth at most this fast is seen within BACKSTOP_INTERVAL of the ceiling.
 */
export const BACKSTOP_GROWTH_RATE = 4 * MIB;
/** The ceiling allows this many times the sum of the memory limits of the isolates the child holds. */
export const BACKSTOP_FACTOR = 2;
/**
 * Fixed room above the floor: a fresh isolate's own pages (about 10 MB from the snapshot) and the
 * young generation (up to 48 MB at limits of 512 MB and more), which `memoryLimit` does not count.
 */
export const BACKSTOP_SLACK = 64 * MIB;

/**
 * What a child may grow past the ceiling before the backstop stops it: the growth of one shortest
 * interval (8 MB at BACKSTOP_GROWTH_RATE) and the child's own exit. Measured here
 * (docs/threat-model.md): a flat string grows resident memory 1.4 MB per ms, and the first sample
 * past the ceiling landed within 2 MB of it at 2 ms (6 MB at 5 ms, 10 MB at 10 ms). Growth faster
 * than the rate could pass by more: at G bytes per ms, up to (G / rate - 1) times the room left
 * at the reading before, which is at most rate x BACKSTOP_MAX_INTERVAL (200 MB).
 */
export const BACKSTOP_OVERSHOOT = 32 * MIB;

/** The resident size at which the backstop ends a child whose floor is `floor` bytes. */
export function backstopCeiling(floor: number, limitsMb: number): number {
  return floor + BACKSTOP_FACTOR * limitsMb * MIB + BACKSTOP_SLACK;
}

/** How long to wait before the next reading: until the process could reach the ceiling. */
export function backstopDelay(rss: number, ceiling: number): number {
  const reach = Math.floor((ceiling - rss) / BACKSTOP_GROWTH_RATE);
  return Math.min(BACKSTOP_MAX_INTERVAL, Math.max(BACKSTOP_INTERVAL, reach));
}

/** The documented bound: the most resident memory a child reaches, the ceiling and the overshoot. */
export function backstopBound(floor: number, limitsMb: number): number {
  return backstopCeiling(floor, limitsMb) + BACKSTOP_OVERSHOOT;
}

export interface Breach {
  /** Resident memory that passed the ceiling, and the ceiling, in bytes. */
  readonly rss: number;
  readonly ceiling: number;
  /** The isolate that ran most since the previous sample; undefined when none ran. */
  readonly culprit: IsolateHandle | undefined;
}

export interface BackstopOptions {
  /** Whether guest code may run now; the sampling stops once nothing is held or running. */
  readonly busy: () => boolean;
  readonly onBreach: (breach: Breach) => void;
  /** Resident memory in bytes (tests replace it). */
  readonly rss?: () => number;
}

export class MemoryBackstop {
  readonly #options: BackstopOptions;
  readonly #rss: () => number;
  #timer: NodeJS.Timeout | undefined;
  #floor = 0;
  #cpu = new Map<IsolateHandle, bigint>();
  /**
   * The isolates counted in the ceiling: every one seen since the floor was last measured. One
   * disposed meanwhile still counts, since its pages leave the process some time after disposal
   * (an isolate the engine ended at its limit is disposed while its heap is still resident).
   */
  #counted = new Set<IsolateHandle>();

  constructor(options: BackstopOptions) {
    this.#options = options;
    this.#rss = options.rss ?? residentReader();
  }

  /** The resident size the ceiling starts from while armed, in bytes. */
  get floor(): number {
    return this.#floor;
  }

  /** The ceiling now: the floor plus room for every isolate the process held since it was measured. */
  get ceiling(): number {
    return backstopCeiling(this.#floor, this.#limits());
  }

  /**
   * Whether the process holds more than its floor, one whole limit of every isolate counted and
   * the slack: then some isolate holds more than its own limit (a catastrophe's evidence).
   */
  overLimits(): boolean {
    if (this.#floor === 0) return false;
    return this.#rss() > this.#floor + this.#limits() * MIB + BACKSTOP_SLACK;
  }

  /** The sum of the memory limits of the isolates counted, in MB. */
  #limits(): number {
    for (const handle of heldIsolates()) this.#counted.add(handle);
    let limits = 0;
    for (const handle of this.#counted) limits += handle.memoryLimit;
    return limits;
  }

  /**
   * Guest code is about to run. Disarmed, the floor is what the process holds now. Armed already
   * (a retained execution holds an isolate), the floor only rises, to what the process holds now
   * but never past `cap`: so memory left behind by runs that ended is not counted against the next,
   * and a retained execution cannot raise its own ceiling step by step.
   */
  arm(cap: number): void {
    const now = this.#rss();
    // What disposed isolates left behind is in `now`, so the floor holds it from here on.
    this.#counted = new Set(heldIsolates());
    if (this.#timer === undefined) {
      this.#floor = now;
      this.#cpu = cpuTimes();
      this.#schedule(now);
    } else {
      this.#floor = Math.max(this.#floor, Math.min(now, cap));
      // The ceiling may have dropped (disposed isolates no longer count): the wait is measured anew.
      clearTimeout(this.#timer);
      this.#schedule(now);
    }
  }

  #schedule(rss: number): void {
    this.#timer = setTimeout(() => this.#sample(), backstopDelay(rss, this.ceiling));
    // Sampling must never keep the child alive on its own.
    this.#timer.unref();
  }

  get armed(): boolean {
    return this.#timer !== undefined;
  }

  disarm(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #sample(): void {
    if (!this.#options.busy()) {
      this.disarm();
      return;
    }
    const rss = this.#rss();
    const ceiling = this.ceiling;
    const previous = this.#cpu;
    this.#cpu = cpuTimes();
    if (rss <= ceiling) {
      this.#schedule(rss);
      return;
    }
    this.disarm();
    let culprit: IsolateHandle | undefined;
    let most = 0n;
    for (const [handle, time] of this.#cpu) {
      const grown = time - (previous.get(handle) ?? 0n);
      if (grown > most) {
        most = grown;
        culprit = handle;
      }
    }
    this.#options.onBreach({ rss, ceiling, culprit });
  }
}

/** Live isolates and disposed ones whose thread has not stopped: each may still grow. */
function heldIsolates(): IsolateHandle[] {
  return [...liveIsolates(), ...stoppingIsolates().keys()];
}

function cpuTimes(): Map<IsolateHandle, bigint> {
  const times = new Map<IsolateHandle, bigint>();
  for (const handle of liveIsolates()) {
    try {
      times.set(handle, handle.isolate.cpuTime);
    } catch {
      // Disposed between the listing and the read: it allocates nothing any more.
    }
  }
  return times;
}
