/**
 * The wall-clock bound around one execution or one invocation (docs/pool.md, "The wall-clock
 * bound"). The run clock pauses while the program waits on the caller's tools, as the seed says,
 * so a tool that never answers would hold the run, and its child, for ever; this clock counts
 * everything (the queue, the run, the tool waits) except an approval question a person is
 * answering, and ends the call at its limit. It also keeps the calls in flight, so the text that
 * ends the call can say what it was still waiting on, and the signal their functions read.
 */
import { DEFAULT_TIMEOUT, EXECUTION_ENDED_MESSAGE, MAX_DELAY } from '@supolka/codemode-protocol/wire';

/** How a call past the bound is described: the limit and the oldest call still pending, if any. */
export type WallClockText = (limit: number, pending: string | undefined, more: number) => string;

/**
 * The default bound of a call whose run bound is `timeout`: twice it, as the server's default is
 * twice its largest run bound (a run may wait on its tools as long as it computes; past that it is
 * parked, not working), and never under twice DEFAULT_TIMEOUT (120 s). The bound counts the queue,
 * and with it a child's start, which takes seconds on a loaded machine: a program with a short run
 * bound must not meet a bound its own run could not reach. A caller who wants less sets it.
 */
export function defaultWallClockLimit(timeout: number): number {
  return Math.min(2 * Math.max(timeout, DEFAULT_TIMEOUT), MAX_DELAY);
}

export class WallClock {
  /** Aborted only when the bound is reached: what ends the call (the pool watches it). */
  readonly #expiry = new AbortController();
  /**
   * What the functions serving the call's tools read. Made on first read: aborting a signal
   * dispatches an event, which is not worth paying at the end of every call nobody watched.
   */
  #tools: AbortController | undefined;
  readonly #limit: number;
  readonly #text: WallClockText;
  /** Labels of the calls in flight, oldest first; one key per call, so equal labels are kept apart. */
  readonly #pending = new Map<object, string>();
  #left: number;
  #since: number;
  #timer: NodeJS.Timeout | undefined;
  #pauses = 0;
  #state: 'counting' | 'expired' | 'ended' = 'counting';

  /** Starts counting from `startedAt` (a performance.now() reading taken when the call came). */
  constructor(limit: number, startedAt: number, text: WallClockText) {
    this.#limit = limit;
    this.#text = text;
    this.#since = performance.now();
    this.#left = limit - (this.#since - startedAt);
    this.#arm();
  }

  /** Aborted when the bound is reached; its reason is the error that ends the call. */
  get expiry(): AbortSignal {
    return this.#expiry.signal;
  }

  get expired(): boolean {
    return this.#state === 'expired';
  }

  /**
   * The signal of the call's tool and outbound functions (tool-context.ts): aborted when the
   * bound is reached, with its error, or when the call ends any other way.
   */
  get toolSignal(): AbortSignal {
    if (!this.#tools) {
      this.#tools = new AbortController();
      if (this.#state !== 'counting') this.#tools.abort(this.#reason());
    }
    return this.#tools.signal;
  }

  /** Keeps `label` as pending while `call` is in flight. */
  track<T>(label: string, call: Promise<T>): Promise<T> {
    const key = {};
    this.#pending.set(key, label);
    return call.finally(() => this.#pending.delete(key));
  }

  /**
   * Stops the clock until the returned function is called (each once): a person answering an
   * approval question is not the program holding its child, and the approval has its own bound.
   */
  pause(): () => void {
    if (this.#pauses++ === 0 && this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#left -= performance.now() - this.#since;
    }
    let resumed = false;
    return () => {
      if (resumed) return;
      resumed = true;
      if (--this.#pauses === 0 && this.#state === 'counting') {
        this.#since = performance.now();
        this.#arm();
      }
    };
  }

  /** The call ended: its tools' signal fires, if the bound did not fire it already. */
  end(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#state !== 'counting') return;
    this.#state = 'ended';
    this.#tools?.abort(this.#reason());
  }

  /**
   * Whole milliseconds, rounded up: a server's own clock of the same length, started just before
   * this one, then fires first (Node runs timers of one length in the order they were set), so
   * its client reads the server's text (server/connection.ts).
   */
  #arm(): void {
    this.#timer = setTimeout(() => this.#expire(), Math.max(Math.ceil(this.#left), 0));
  }

  #expire(): void {
    this.#timer = undefined;
    if (this.#state !== 'counting') return;
    this.#state = 'expired';
    const [oldest] = this.#pending.values();
    const error = new Error(this.#text(this.#limit, oldest, Math.max(this.#pending.size - 1, 0)));
    this.#expiry.abort(error);
    this.#tools?.abort(error);
  }

  #reason(): unknown {
    return this.#state === 'expired' ? this.#expiry.signal.reason : new Error(EXECUTION_ENDED_MESSAGE);
  }
}

/** What a call past the bound was waiting on, as the end of its text. */
function waitingOn(pending: string | undefined, more: number): string {
  if (pending === undefined) return 'no tool call or outbound request was pending';
  const others = more === 0 ? '' : ` (and ${more} more call${more === 1 ? '' : 's'})`;
  return `it was still waiting on the ${pending}${others}`;
}

/** The error of an execution the wall-clock bound ended (its code is TIMEOUT). */
export const executionPastWallClockMessage: WallClockText = (limit, pending, more) =>
  `Execution took longer than its wallClockLimit of ${limit} ms, which counts time spent queued, running and waiting on tools, so the executor ended it; ${waitingOn(pending, more)}.`;

/** The error of an invocation the wall-clock bound ended (its code is TIMEOUT); its execution is closed. */
export const invocationPastWallClockMessage: WallClockText = (limit, pending, more) =>
  `The invocation took longer than its wallClockLimit of ${limit} ms, which counts time spent running and waiting on tools, so the executor ended it and closed the retained execution; ${waitingOn(pending, more)}.`;
