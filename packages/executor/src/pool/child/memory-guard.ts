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
import { CLOCK_TOLERANCE, MAX_DELAY } from '@supolka/codemode-protocol/wire';
import { monotonicNow } from '../../sandbox/bounds/monotonic.ts';
import {
  endProcessOnCatastrophicError,
  type IsolateHandle,
  liveIsolates,
  stoppingIsolates,
} from '../../sandbox/isolate.ts';
import { causeOfCatastrophe } from '../catastrophe.ts';
import type { MessageEndpoint } from '../channel.ts';
import type { PoolMessageOf } from '../messages/table.ts';
import { encodePoolMessage } from '../messages/wire.ts';
import { BACKSTOP_FACTOR, BACKSTOP_SLACK, type Breach, MemoryBackstop } from './backstop.ts';

const MIB = 2 ** 20;

/** What the catastrophicOnTool test hook reports: a text about neither memory nor termination. */
export const HOOK_CATASTROPHE_TEXT = 'test hook: the engine reported a state it cannot recover from';

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

type Culprit = Pick<PoolMessageOf<'outOfMemory'>, 'conversations' | 'executionId' | 'memoryLimit'>;

export interface MemoryGuardOptions {
  readonly parent: MessageEndpoint;
  /** Retained executions the sandbox holds now: their timers may run guest code at any time. */
  readonly retained: () => number;
  /** The most the backstop's floor may rise to while retained executions are held, in bytes. */
  readonly floorCap: () => number;
  /** Headroom past each bound (the engine's timer on a call is set at timeout + grace), in ms. */
  readonly grace: number;
}

/** The run in progress: its conversation, its limits, and when it began (monotonicNow()). */
interface Run {
  readonly id: string;
  readonly memoryLimit: number;
  readonly timeout: number;
  readonly startedAt: number;
}

export class MemoryGuard {
  readonly #options: MemoryGuardOptions;
  readonly #backstop: MemoryBackstop;
  #run: Run | undefined;
  /** Invoke conversations in flight, by the retained execution they invoke, with when each began. */
  readonly #invokes = new Map<string, Map<string, number>>();
  #ending = false;

  constructor(options: MemoryGuardOptions) {
    this.#options = options;
    this.#backstop = new MemoryBackstop({
      // A disposed isolate still running (wedge.ts) allocates as freely as a live one.
      busy: () =>
        this.#run !== undefined ||
        this.#invokes.size > 0 ||
        options.retained() > 0 ||
        stoppingIsolates().size > 0,
      onBreach: (breach) => this.#onBreach(breach),
    });
  }

  beginRun(id: string, memoryLimit: number, timeout: number): void {
    this.#run = { id, memoryLimit, timeout, startedAt: monotonicNow() };
    this.#arm();
  }

  endRun(id: string): void {
    if (this.#run?.id === id) this.#run = undefined;
  }

  beginInvoke(id: string, executionId: string): void {
    const ids = this.#invokes.get(executionId) ?? new Map<string, number>();
    this.#invokes.set(executionId, ids);
    ids.set(id, monotonicNow());
    this.#arm();
  }

  endInvoke(id: string, executionId: string): void {
    const ids = this.#invokes.get(executionId);
    ids?.delete(id);
    if (ids?.size === 0) this.#invokes.delete(executionId);
  }

  /**
   * The sandbox's catastrophic-error handler: the isolate is the culprit, and the text says of
   * what (catastrophe.ts). Memory reads MEMORY_LIMIT for what it served, a termination that failed
   * past the bound TIMEOUT, and any other text WORKER_LOST for everyone, the text in the cause.
   */
  readonly onCatastrophicError = (message: string, handle: IsolateHandle): void => {
    const finish = () => endProcessOnCatastrophicError(message);
    // A disposed isolate serves nobody now: its run already settled (the host's race at the bound
    // ends a run and disposes its isolate; the engine's failed termination follows 5 s later), and
    // blaming the run in progress would blame a bystander. The child still ends, WORKER_LOST for all.
    if (!liveIsolates().includes(handle)) {
      this.#end(undefined, finish);
      return;
    }
    const culprit = this.#culpritOf(handle);
    const cause = causeOfCatastrophe(message, {
      overLimits: this.#backstop.overLimits(),
      boundPassed: this.#boundPassed(handle),
    });
    if (cause === 'engine') this.#end(undefined, finish);
    else if (cause === 'memory')
      this.#end(culprit && { type: 'outOfMemory', ...culprit, cause: 'engine' }, finish);
    else {
      const timeout = handle.retainedAs === undefined ? this.#run?.timeout : handle.timeout;
      this.#end(
        culprit &&
          timeout !== undefined && {
            type: 'timedOut',
            conversations: culprit.conversations,
            ...(culprit.executionId !== undefined ? { executionId: culprit.executionId } : {}),
            timeout,
          },
        finish,
      );
    }
  };

  /**
   * For the catastrophicOnTool test hook: the run's isolate reports a catastrophe whose text is
   * neither memory nor a failed termination, which no program is known to reach.
   */
  readonly catastropheInRun = (): void => {
    // During a run the child holds its isolate and retained ones; the next is prepared after it.
    const handle = liveIsolates().find((candidate) => candidate.retainedAs === undefined);
    if (handle) this.onCatastrophicError(HOOK_CATASTROPHE_TEXT, handle);
  };

  /**
   * Whether the isolate's call has run past its timeout + grace, where the engine's timer on it
   * fires. That timer counts wall time from the call, so the run's wall time is compared, not the
   * run clock, which pauses while the caller answers.
   */
  #boundPassed(handle: IsolateHandle): boolean {
    const now = monotonicNow();
    const past = (startedAt: number, timeout: number) =>
      now - startedAt >= Math.min(timeout + this.#options.grace, MAX_DELAY) - CLOCK_TOLERANCE;
    if (handle.retainedAs === undefined)
      return this.#run !== undefined && past(this.#run.startedAt, this.#run.timeout);
    const timeout = handle.timeout;
    if (timeout === undefined) return false;
    for (const startedAt of this.#invokes.get(handle.retainedAs)?.values() ?? [])
      if (past(startedAt, timeout)) return true;
    return false;
  }

  #arm(): void {
    this.#backstop.arm(this.#options.retained() > 0 ? this.#options.floorCap() : Number.POSITIVE_INFINITY);
  }

  #onBreach(breach: Breach): void {
    const floor = this.#backstop.floor;
    const culprit = this.#culpritOf(breach.culprit);
    this.#end(
      culprit && {
        type: 'outOfMemory',
        ...culprit,
        cause: 'backstop',
        rss: breach.rss,
        ceiling: breach.ceiling,
      },
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
      const conversations = [...(this.#invokes.get(executionId)?.keys() ?? [])];
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
    last: PoolMessageOf<'outOfMemory'> | PoolMessageOf<'timedOut'> | undefined | false,
    finish: () => void,
  ): void {
    if (this.#ending) return;
    this.#ending = true;
    this.#backstop.disarm();
    const { parent } = this.#options;
    if (!last || !parent.open) {
      finish();
      return;
    }
    const text = encodePoolMessage(last);
    const timer = setTimeout(finish, LAST_WORDS_TIMEOUT);
    parent.sendText(text, () => {
      clearTimeout(timer);
      finish();
    });
  }
}
