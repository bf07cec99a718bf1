/**
 * Retained handles: an execution whose program resolved to a fetch handler keeps its isolate, and
 * callers invoke the handler with requests until they close it (docs/handles.md).
 *
 * Invocations of one execution run one at a time, in arrival order, chained on a promise: the
 * isolate serializes their synchronous parts anyway, and a bound measuring one invocation alone is
 * the honest reading. Each runs under the bounds the execution was granted, with a fresh RunClock
 * in the same clock slot, so the dispatch and outbound wraps installed once per isolate pause the
 * clock that owns the invocation. Disposal is the only way to stop a wedged isolate, so most
 * failures of an invocation end the retained execution with it.
 *
 * Between invocations no run clock runs, yet timers the program left behind still deliver work into
 * the isolate. That work is bounded too (docs/sandbox.md, "Deviations from the specification, and
 * why"): a watcher reads each isolate's own execution time every PAUSED_RECHECK, and once the time
 * executed since the last invocation ended (or since the grant) passes the execution's timeout +
 * grace, the isolate is disposed and the next invoke reads HANDLES_CLOSED saying why. The same
 * reading tells the pool which retained executions are working right now (`working`), so their
 * child is not idle.
 */
import {
  EXECUTION_COMPLETED_MESSAGE,
  ExecutionTimeoutError,
  HandleNotFoundError,
  HandlesClosedError,
  type HttpRequest,
  type HttpResponse,
  MAX_DELAY,
  MemoryLimitError,
  PAUSED_RECHECK,
  PAYLOAD_LIMIT,
  PayloadTooLargeError,
} from '@supolka/codemode-protocol/wire';
import type ivm from 'isolated-vm';
import { RunClock } from './bounds/clock.ts';
import { protocolSchemas } from './crossing/schemas.ts';
import type { Performer } from './fetch.ts';
import { disposeIsolate, type IsolateHandle } from './isolate.ts';
import { nodeCrypto } from './node-crypto.ts';
import type { PreparedIsolate } from './setup/prepared-isolate.ts';
import { rewriteEngineTermination } from './timeout.ts';

/** The handles a retained execution can grant; only a fetch handler today. */
export const GRANTED_HANDLES = ['fetch'] as const;

type Frame = ['returned', HttpResponse] | ['thrown', string];

/**
 * Reads the invoker the entry installed once the run has settled. Presence of the invoker is the
 * grant; its absence means the program did not resolve to a handler. The read is asynchronous
 * (the isolate may still be running timers) and bounded by the caller.
 */
export async function captureInvokeReference(
  handle: IsolateHandle,
): Promise<ivm.Reference<(wire: HttpRequest) => Promise<Frame>> | undefined> {
  const reference = (await handle.jail.get('__invokeHandle', { reference: true })) as ivm.Reference<
    (wire: HttpRequest) => Promise<Frame>
  >;
  if (reference.typeof === 'function') return reference;
  reference.release();
  return undefined;
}

/**
 * Checks the handler's answer again on the host, whatever the isolate claimed: the status, the
 * status text, the header pairs and the body, and their size against PAYLOAD_LIMIT.
 */
export async function assertResponseWireShape(value: unknown): Promise<HttpResponse> {
  const { validate, HttpResponseSchema } = await protocolSchemas();
  const response = validate(HttpResponseSchema, value, 'response of the handler');
  let size = response.statusText.length + (response.body?.byteLength ?? 0);
  for (const [name, text] of response.headers) size += name.length + text.length;
  if (size > PAYLOAD_LIMIT) throw new PayloadTooLargeError('response of the handler', size, PAYLOAD_LIMIT);
  return response;
}

/** Why a retained execution reads closed after its timer work between invocations passed its bound. */
export function timerWorkClosedMessage(executionId: string, bound: number): string {
  return `Execution ${executionId} holds no handles: its timer work between invocations ran past its bound of ${bound} ms of isolate time (timeout + grace), so it was disposed.`;
}

/** HANDLES_CLOSED, for an execution the timer bound ended: the text says why. */
export class TimerWorkClosedError extends HandlesClosedError {
  constructor(executionId: string, bound: number) {
    super(executionId);
    this.message = timerWorkClosedMessage(executionId, bound);
  }
}

/** Executions the timer bound ended, remembered so their next invoke says why; oldest forgotten first. */
const CLOSED_REASONS_LIMIT = 1024;

interface Retained {
  readonly prepared: PreparedIsolate;
  /** The outbound choice the run made, put back in its slot for each invocation. */
  readonly outbound: Performer | undefined;
  readonly proxied: boolean;
  readonly invoker: ivm.Reference<(wire: HttpRequest) => Promise<Frame>>;
  readonly timeout: number;
  readonly grace: number;
  readonly countHostWaits: boolean;
  chain: Promise<unknown>;
  /** An invocation is running: its own clock bounds the isolate then. */
  invoking: boolean;
  /** The isolate's execution time (ms) when the last invocation ended, or at the grant. */
  idleFrom: number;
  /** The isolate's execution time at the watcher's last reading. */
  lastWall: number;
  /** Whether the isolate executed between the watcher's last two readings. */
  working: boolean;
}

export interface RetainOptions {
  readonly timeout: number;
  readonly grace: number;
  readonly countHostWaits: boolean;
  /** Its fetch reaches the caller's outbound function: refused between invocations, as tool calls are. */
  readonly proxied: boolean;
}

/**
 * A proxied fetch made between invocations (a timer's): the caller's function is the caller's, as
 * its tools are, and serves a retained execution only while an invocation runs.
 */
const refusedBetweenInvocations: Performer = () => Promise.reject(new TypeError(EXECUTION_COMPLETED_MESSAGE));

export class RetainedHandles {
  readonly #executions = new Map<string, Retained>();
  /** Executions the timer bound ended, with that bound. */
  readonly #outran = new Map<string, number>();
  #watch: NodeJS.Timeout | undefined;
  readonly #onTimerWorkClosed: ((executionId: string, reason: string) => void) | undefined;
  readonly #onEnded: ((executionId: string) => void) | undefined;

  /**
   * `onTimerWorkClosed` hears of each execution the timer bound ends, so a layer above can drop its
   * route; `onEnded` hears of every ending, whatever caused it, so what a layer above kept for the
   * execution's invocations (the functions serving its tool calls) can go.
   */
  constructor(
    onTimerWorkClosed?: (executionId: string, reason: string) => void,
    onEnded?: (executionId: string) => void,
  ) {
    this.#onTimerWorkClosed = onTimerWorkClosed;
    this.#onEnded = onEnded;
  }

  get size(): number {
    return this.#executions.size;
  }

  /** Retained executions whose isolate is executing timer work now (between invocations). */
  get working(): number {
    let count = 0;
    for (const retained of this.#executions.values()) if (retained.working && !retained.invoking) count += 1;
    return count;
  }

  /** Keeps the isolate, its timers, its clock slot and its bounds; answers the executionId. */
  retain(prepared: PreparedIsolate, invoker: Retained['invoker'], options: RetainOptions): string {
    const executionId = nodeCrypto().randomUUID();
    // The pool child's memory backstop names this execution when its isolate is the culprit.
    prepared.handle.retainedAs = executionId;
    prepared.handle.timeout = options.timeout;
    const wall = wallTimeOf(prepared.handle);
    const outbound = prepared.slots.outbound;
    if (options.proxied) prepared.slots.outbound = refusedBetweenInvocations;
    this.#executions.set(executionId, {
      prepared,
      outbound,
      invoker,
      ...options,
      chain: Promise.resolve(),
      invoking: false,
      idleFrom: wall,
      lastWall: wall,
      working: false,
    });
    this.#watch ??= setInterval(() => this.#check(), PAUSED_RECHECK);
    // The watcher must not keep a process alive on its own.
    this.#watch.unref();
    return executionId;
  }

  /**
   * The watcher: ends each retained execution whose isolate executed more than its timeout +
   * grace since its last invocation ended, and notes which executed since the last reading.
   */
  #check(): void {
    for (const [executionId, retained] of this.#executions) {
      if (retained.invoking) continue;
      const wall = wallTimeOf(retained.prepared.handle);
      retained.working = wall > retained.lastWall;
      retained.lastWall = wall;
      const bound = Math.min(retained.timeout + retained.grace, MAX_DELAY);
      // Written so a disposed isolate's NaN passes no bound: the memory limit's disposal is not timer work.
      if (!(wall - retained.idleFrom > bound)) continue;
      this.#executions.delete(executionId);
      this.#end(executionId, retained);
      this.#outran.set(executionId, bound);
      if (this.#outran.size > CLOSED_REASONS_LIMIT)
        this.#outran.delete(this.#outran.keys().next().value as string);
      try {
        this.#onTimerWorkClosed?.(executionId, timerWorkClosedMessage(executionId, bound));
      } catch {
        // A listener must not stop the watcher bounding the other executions.
      }
    }
  }

  has(executionId: string): boolean {
    return this.#executions.has(executionId);
  }

  /** Invokes a granted handle; rejects with HANDLES_CLOSED or HANDLE_NOT_FOUND errors by code. */
  invoke(executionId: string, request: HttpRequest, handle = 'fetch'): Promise<HttpResponse> {
    const retained = this.#executions.get(executionId);
    if (retained === undefined) return Promise.reject(this.#closedError(executionId));
    if (!(GRANTED_HANDLES as readonly string[]).includes(handle)) {
      return Promise.reject(new HandleNotFoundError(handle, GRANTED_HANDLES));
    }
    const result = retained.chain.then(() => {
      // A closeHandles, or the timer bound, that ended the execution while this one waited its turn.
      if (this.#executions.get(executionId) !== retained) throw this.#closedError(executionId);
      return this.#perform(executionId, retained, request);
    });
    retained.chain = result.catch(() => undefined);
    return result;
  }

  /** HANDLES_CLOSED for an execution no longer held, saying why when the timer bound ended it. */
  #closedError(executionId: string): HandlesClosedError {
    const bound = this.#outran.get(executionId);
    return bound === undefined
      ? new HandlesClosedError(executionId)
      : new TimerWorkClosedError(executionId, bound);
  }

  /** Ends a retained execution and disposes its isolate. */
  close(executionId: string): boolean {
    const retained = this.#executions.get(executionId);
    if (retained === undefined) return false;
    this.#executions.delete(executionId);
    this.#end(executionId, retained);
    return true;
  }

  closeAll(): void {
    for (const executionId of [...this.#executions.keys()]) this.close(executionId);
  }

  #end(executionId: string, retained: Retained): void {
    if (this.#executions.size === 0) {
      clearInterval(this.#watch);
      this.#watch = undefined;
    }
    const { slots, handle } = retained.prepared;
    slots.dispatch.completed = true;
    slots.outbound = undefined;
    slots.abortOutbound();
    slots.clock.current?.release();
    slots.clock.clear();
    slots.timers.cancelAll();
    retained.invoker.release();
    disposeIsolate(handle);
    try {
      this.#onEnded?.(executionId);
    } catch {
      // A listener must not keep the isolate from going, nor fail the call that ended it.
    }
  }

  /**
   * performInvocation: the engine timeout at timeout + grace on the call, as the backstop for a
   * synchronous spin, raced against the run clock's expiry at the timeout. The invoker always
   * answers a frame, so an undefined answer means the bound expired on a parked run.
   */
  async #perform(executionId: string, retained: Retained, request: HttpRequest): Promise<HttpResponse> {
    const { handle, slots } = retained.prepared;
    const total = Math.min(retained.timeout + retained.grace, MAX_DELAY);
    const clock = new RunClock(handle.isolate, { countHostWaits: retained.countHostWaits });
    slots.clock.set(clock);
    retained.invoking = true;
    slots.dispatch.completed = false;
    slots.outbound = retained.outbound;
    let watch: NodeJS.Timeout | undefined;
    const disposed = new Promise<'disposed'>((resolve) => {
      watch = setInterval(() => {
        if (handle.isolate.isDisposed) resolve('disposed');
      }, PAUSED_RECHECK);
    });
    const call = retained.invoker
      .apply(undefined, [request], {
        arguments: { copy: true },
        result: { promise: true, copy: true },
        timeout: total,
      })
      .then(
        (frame) => ({ frame: frame as unknown as Frame }),
        (error: unknown) => ({ error }),
      );
    try {
      const outcome = await Promise.race([
        call,
        clock.expire(retained.timeout).then(() => undefined),
        disposed,
      ]);
      // Closed while it ran (closeHandles, the timer bound): its isolate went for that, not for its memory.
      if (this.#executions.get(executionId) !== retained) throw this.#closedError(executionId);
      if (outcome === undefined)
        throw this.#fail(executionId, retained, new ExecutionTimeoutError(retained.timeout));
      if (outcome === 'disposed')
        throw this.#fail(executionId, retained, new MemoryLimitError(handle.memoryLimit));
      if ('error' in outcome) {
        const message = outcome.error instanceof Error ? outcome.error.message : String(outcome.error);
        const rewritten = rewriteEngineTermination(message, {
          elapsed: clock.elapsed(),
          bound: total,
          disposed: handle.isolate.isDisposed,
          timeout: retained.timeout,
          memoryLimit: handle.memoryLimit,
        });
        if (rewritten?.code === 'TIMEOUT')
          throw this.#fail(executionId, retained, new ExecutionTimeoutError(retained.timeout));
        if (rewritten?.code === 'MEMORY_LIMIT' || handle.isolate.isDisposed) {
          throw this.#fail(executionId, retained, new MemoryLimitError(handle.memoryLimit));
        }
        // An isolate still alive that failed the call for its own reason: the execution survives.
        throw new Error(message);
      }
      const [kind, payload] = outcome.frame;
      if (kind === 'thrown') throw new Error(payload);
      return await assertResponseWireShape(payload);
    } finally {
      clearInterval(watch);
      retained.invoking = false;
      // Timer work after this invocation is measured from here: the invocation had its own clock.
      retained.idleFrom = wallTimeOf(handle);
      retained.lastWall = retained.idleFrom;
      if (this.#executions.get(executionId) === retained) {
        slots.dispatch.completed = true;
        if (retained.proxied) slots.outbound = refusedBetweenInvocations;
        clock.release();
        slots.clock.clear();
      }
    }
  }

  /** Ends the execution for a failure that leaves its isolate unusable, and answers that failure. */
  #fail(executionId: string, retained: Retained, error: Error): Error {
    if (this.#executions.get(executionId) === retained) {
      this.#executions.delete(executionId);
      this.#end(executionId, retained);
    }
    return error;
  }
}

/**
 * The isolate's own execution time in ms. A disposed isolate's reads NaN, which passes no bound: a
 * disposal the watcher did not make (the memory limit) is the next invoke's to report.
 */
function wallTimeOf(handle: IsolateHandle): number {
  try {
    return Number(handle.isolate.wallTime) / 1e6;
  } catch {
    return Number.NaN;
  }
}
