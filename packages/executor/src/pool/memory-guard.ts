/**
 * How a child dies of memory its isolates' limits could not stop, and whose death it was.
 *
 * Two paths end the child: V8's fatal out-of-memory in one isolate (isolated-vm calls the isolate's
 * catastrophic-error callback on the main thread, while that isolate's thread waits for ever), and
 * the resident-memory backstop (backstop.ts). Either way the child knows which isolate it was, so
 * before it ends it tells the parent, in an `outOfMemory` message, what that isolate was serving:
 * the run in progress (its execute id) or a retained execution (its executionId and the invoke
 * conversations in flight). Those read MEMORY_LIMIT with the memory text; everything else the
 * child held reads WORKER_LOST. A death no isolate can be shown to have caused names nobody.
 */
import { encodeMessage, type MessageOf } from '@supolka/codemode-protocol';
import { endProcessOnCatastrophicError, type IsolateHandle, liveIsolates } from '../sandbox/isolate.ts';
import { BACKSTOP_FACTOR, BACKSTOP_SLACK, type Breach, MemoryBackstop } from './backstop.ts';
import type { MessageEndpoint } from './channel.ts';

const MIB = 2 ** 20;

/** How long the child waits for its last message to leave before it ends regardless, in ms. */
const LAST_WORDS_TIMEOUT = 100;

/** The line the child writes to stderr as the backstop ends it; exit-cause.ts reads it back. */
export function backstopLine(breach: Breach, floor: number): string {
  const mb = (bytes: number) => Math.round(bytes / MIB);
  return (
    `memory backstop: resident memory of ${mb(breach.rss)} MB passed the ceiling of ${mb(breach.ceiling)} MB ` +
    `(${mb(floor)} MB when guest code started, ${BACKSTOP_FACTOR} times the memory limits of its isolates, ` +
    `and ${mb(BACKSTOP_SLACK)} MB)`
  );
}

type Culprit = Pick<MessageOf<'outOfMemory'>, 'conversations' | 'executionId' | 'memoryLimit'>;

export interface MemoryGuardOptions {
  readonly parent: MessageEndpoint;
  /** Retained executions the sandbox holds now: their timers may run guest code at any time. */
  readonly retained: () => number;
  /** The most the backstop's floor may rise to while retained executions are held, in bytes. */
  readonly floorCap: () => number;
}

export class MemoryGuard {
  readonly #options: MemoryGuardOptions;
  readonly #backstop: MemoryBackstop;
  #run: { readonly id: string; readonly memoryLimit: number } | undefined;
  /** Invoke conversations in flight, by the retained execution they invoke. */
  readonly #invokes = new Map<string, Set<string>>();
  #ending = false;

  constructor(options: MemoryGuardOptions) {
    this.#options = options;
    this.#backstop = new MemoryBackstop({
      busy: () => this.#run !== undefined || this.#invokes.size > 0 || options.retained() > 0,
      onBreach: (breach) => this.#onBreach(breach),
    });
  }

  beginRun(id: string, memoryLimit: number): void {
    this.#run = { id, memoryLimit };
    this.#arm();
  }

  endRun(id: string): void {
    if (this.#run?.id === id) this.#run = undefined;
  }

  beginInvoke(id: string, executionId: string): void {
    const ids = this.#invokes.get(executionId) ?? new Set<string>();
    this.#invokes.set(executionId, ids);
    ids.add(id);
    this.#arm();
  }

  endInvoke(id: string, executionId: string): void {
    const ids = this.#invokes.get(executionId);
    ids?.delete(id);
    if (ids?.size === 0) this.#invokes.delete(executionId);
  }

  /** The sandbox's catastrophic-error handler: the isolate is the culprit. */
  readonly onCatastrophicError = (message: string, handle: IsolateHandle): void => {
    this.#end(this.#culpritOf(handle), { cause: 'engine' }, () => endProcessOnCatastrophicError(message));
  };

  /** For the catastrophicOnTool test hook: the run's isolate reports what V8's fatal out-of-memory reports. */
  readonly catastropheInRun = (): void => {
    // During a run the child holds its isolate and retained ones; the next is prepared after it.
    const handle = liveIsolates().find((candidate) => candidate.retainedAs === undefined);
    if (handle) this.onCatastrophicError('Catastrophic out-of-memory error', handle);
  };

  #arm(): void {
    this.#backstop.arm(this.#options.retained() > 0 ? this.#options.floorCap() : Number.POSITIVE_INFINITY);
  }

  #onBreach(breach: Breach): void {
    const floor = this.#backstop.floor;
    this.#end(
      this.#culpritOf(breach.culprit),
      { cause: 'backstop', rss: breach.rss, ceiling: breach.ceiling },
      () => {
        process.stderr.write(`${backstopLine(breach, floor)}\n`);
        process.kill(process.pid, 'SIGKILL');
      },
    );
  }

  /**
   * What the isolate was serving. Without an isolate (none ran since the previous sample: the host
   * allocated), the run in progress is named only when nothing else could have caused it.
   */
  #culpritOf(handle: IsolateHandle | undefined): Culprit | undefined {
    if (handle?.retainedAs !== undefined) {
      const executionId = handle.retainedAs;
      const conversations = [...(this.#invokes.get(executionId) ?? [])];
      return { conversations, executionId, memoryLimit: handle.memoryLimit };
    }
    if (this.#run === undefined) return undefined;
    if (handle) return { conversations: [this.#run.id], memoryLimit: handle.memoryLimit };
    if (this.#options.retained() === 0 && this.#invokes.size === 0) {
      return { conversations: [this.#run.id], memoryLimit: this.#run.memoryLimit };
    }
    return undefined;
  }

  /** Tells the parent whose death this is (when it is known), then ends the process with `finish`. */
  #end(
    culprit: Culprit | undefined,
    how: Omit<MessageOf<'outOfMemory'>, 'type' | keyof Culprit>,
    finish: () => void,
  ): void {
    if (this.#ending) return;
    this.#ending = true;
    this.#backstop.disarm();
    const { parent } = this.#options;
    if (culprit === undefined || !parent.send || parent.connected === false) {
      finish();
      return;
    }
    const text = encodeMessage({ type: 'outOfMemory', ...culprit, ...how });
    const timer = setTimeout(finish, LAST_WORDS_TIMEOUT);
    (parent.send as (message: string, callback: () => void) => boolean).call(parent, text, () => {
      clearTimeout(timer);
      finish();
    });
  }
}
