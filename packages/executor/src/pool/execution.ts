/**
 * One execution as the parent holds it: what the child was asked, the caller's host side (tools,
 * outbound, host-wait edges, signal), and the one envelope it settles with. Whatever ends it (the
 * child's answer, a cancel, a lost child, dispose) settles it exactly once, and later outcomes are
 * dropped: execute never rejects and never answers twice.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  CancelledError,
  EXECUTION_ENDED_MESSAGE,
  faultEnvelope,
  type HostFunctions,
  type LogLine,
} from '@supolka/codemode-protocol/wire';
import type { OutboundFunction } from '../sandbox/fetch.ts';
import type { ExecuteResult } from '../sandbox/sandbox.ts';
import type { DurableCalls } from './durable-calls.ts';
import { DEFAULT_CALLER, type Queued } from './fair-queue.ts';
import type { ExecutionMeter } from './meter.ts';
import type { NestingFrame, ServedExecution } from './nested-executions.ts';
import { consoleCost, STREAMED_CONSOLE_LIMIT } from './streamed-console.ts';

export type { OutboundFunction };

/**
 * The host part of an execution, beside its wire request: the caller's functions (the tools'
 * dispatch, a proxied run's outbound function), its signal and its callbacks.
 */
export interface ExecutionHost extends HostFunctions<OutboundFunction> {
  /** The outermost edges of the run's waits on the caller, forwarded from the child. */
  readonly onHostWaitChanged?: ((waiting: boolean) => void) | undefined;
  /** Aborting ends the execution at once with CANCELLED. */
  readonly signal?: AbortSignal | undefined;
  /** Console lines of the run in batches as it writes them (the child batches them); a throw is dropped. */
  readonly onConsole?: ((lines: readonly LogLine[]) => unknown) | undefined;
  /** Filled with what the execution cost as it runs, when given. */
  readonly meter?: ExecutionMeter | undefined;
  /**
   * Called once when the handles the execution granted close, whatever closed them: its tools and
   * outbound function serve no call after that. A throw is dropped.
   */
  readonly onHandlesClosed?: (() => void) | undefined;
  /** Whom it runs for: waiting executions share the children between callers (fair-queue.ts). */
  readonly caller?: string | undefined;
  /** A durable run's start and the parent's half of its calls (durable-calls.ts). */
  readonly durable?: DurableCalls | undefined;
}

/** Where an execution sits among nested ones (nested-executions.ts). */
export interface Placement {
  /** The pool it runs on. */
  readonly owner: object;
  /** 0 at the top level; d for an execution nested d levels deep on the same pool. */
  readonly depth: number;
  /** The host call's frame it was started in, if it was started inside one. */
  readonly parent: NestingFrame | undefined;
}

export class PoolExecution implements ServedExecution, Queued {
  readonly id: string;
  /** The execute message, already encoded: measured against PAYLOAD_LIMIT before it queued. */
  /** Dropped once sent (`sent`): a retained execution's route holds this object while its handles live. */
  #text: string;
  readonly host: ExecutionHost;
  /** Whether it asked to retain handles: it needs a child with room for one more. */
  readonly retainHandles: boolean;
  readonly caller: string;
  readonly promise: Promise<ExecuteResult>;
  readonly owner: object;
  readonly depth: number;
  readonly parent: NestingFrame | undefined;
  /**
   * Runs a function in the async context `execute` was called in: the caller's tools and outbound
   * function see what an AsyncLocalStorage store (a tracing span among them) held around that call,
   * not whatever context the child's channel delivers its messages in. Taken only for an execution
   * with a caller's function to run: the snapshot cost 5-10 µs of every execution, about 50 after
   * an idle pause, and without a tool or outbound function nothing of the caller's ever runs.
   */
  readonly runInCaller: <R>(fn: () => R) => R;
  /** When it was handed to the pool, for the time it waited for a child. */
  readonly queuedAt = performance.now();
  /** Set once the child sent a message about the run (a tool call, an outbound request, a wait edge). */
  started = false;
  /** Host calls of its retained handles' invocations waiting on the caller's functions. */
  handleCalls = 0;
  #resolve: (envelope: ExecuteResult) => void = () => {};
  #settled = false;
  /** It granted handles that have not closed: its caller's functions still serve their invocations. */
  #handlesOpen = false;
  #waiting = false;
  #unwatch: (() => void) | undefined;
  #consoleCost = 0;
  /**
   * Aborted when the execution settles: outbound requests still in flight are no longer wanted.
   * Made on first use, by a proxied run's outbound call: aborting one dispatches an event, which
   * cost about 50 µs of every execution's settling here whether or not anything listened.
   */
  #ended: AbortController | undefined;

  constructor(id: string, text: string, host: ExecutionHost, retainHandles: boolean, placement: Placement) {
    this.id = id;
    this.#text = text;
    this.host = host;
    this.retainHandles = retainHandles;
    this.caller = host.caller ?? DEFAULT_CALLER;
    this.owner = placement.owner;
    this.depth = placement.depth;
    this.parent = placement.parent;
    this.runInCaller = host.dispatch || host.outbound ? AsyncLocalStorage.snapshot() : (fn) => fn();
    this.promise = new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }

  /** The execute message; empty once sent. */
  get text(): string {
    return this.#text;
  }

  /** The child has the message: up to PAYLOAD_LIMIT of text need not live as long as the handles. */
  sent(): void {
    this.#text = '';
  }

  get settled(): boolean {
    return this.#settled;
  }

  /** Whether a host call may still reach the caller's functions: while it runs, and while its handles live. */
  get servesCalls(): boolean {
    return !this.#settled || this.#handlesOpen;
  }

  /**
   * The signal handed to the caller's outbound function: aborted once the execution settled and
   * any handles it granted closed, when no request of it is wanted any more.
   */
  get endedSignal(): AbortSignal {
    if (!this.#ended) {
      this.#ended = new AbortController();
      if (!this.servesCalls) this.#ended.abort(endedError());
    }
    return this.#ended.signal;
  }

  /** It granted handles, before it settles: its caller's functions serve their invocations until they close. */
  holdForHandles(): void {
    if (!this.#settled) this.#handlesOpen = true;
  }

  /** Its handles closed: no call reaches the caller's functions any more, and the caller hears so once. */
  releaseHandles(): void {
    if (!this.#handlesOpen) return;
    this.#handlesOpen = false;
    this.#ended?.abort(endedError());
    try {
      const answer: unknown = this.host.onHandlesClosed?.();
      if (answer instanceof Promise) answer.catch(() => {});
    } catch {
      // The caller's listener must not fail whatever closed the handles.
    }
  }

  /**
   * Calls `onAbort` once with the first of `signals` to abort (the caller's, and the ended signal
   * of the execution whose tool started this one), until the execution settles.
   */
  watchSignals(signals: readonly AbortSignal[], onAbort: (signal: AbortSignal) => void): void {
    if (signals.length === 0) return;
    const listeners = signals.map((signal) => {
      const listener = () => onAbort(signal);
      signal.addEventListener('abort', listener, { once: true });
      return () => signal.removeEventListener('abort', listener);
    });
    this.#unwatch = () => {
      for (const remove of listeners) remove();
    };
  }

  settle(envelope: ExecuteResult): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    if (!this.#handlesOpen) this.#ended?.abort(endedError());
    this.#unwatch?.();
    // Ended during a wait (a cancel, a lost child): the caller still gets the closing edge.
    if (this.#waiting) this.#notifyWait(false);
    this.#resolve(envelope);
    return true;
  }

  /** Passes a host-wait edge on; an observer's throw must not fail the run it observes. */
  hostWaitChanged(waiting: boolean): void {
    if (this.#settled) return;
    this.#notifyWait(waiting);
  }

  /**
   * Charges streamed lines against what the run's console capture may hold (streamed-console.ts);
   * false once they pass it, which no sandbox sends.
   */
  chargeConsole(lines: readonly LogLine[]): boolean {
    this.#consoleCost += consoleCost(lines);
    return this.#consoleCost <= STREAMED_CONSOLE_LIMIT;
  }

  /** Passes a batch of console lines on; the caller's callback is not waited on, and its throw is dropped. */
  consoleLines(lines: readonly LogLine[]): void {
    if (this.#settled || !this.host.onConsole) return;
    try {
      const answer = this.host.onConsole(lines);
      if (answer instanceof Promise) answer.catch(() => {});
    } catch {
      // The run goes on as if nobody watched.
    }
  }

  #notifyWait(waiting: boolean): void {
    this.#waiting = waiting;
    try {
      this.host.onHostWaitChanged?.(waiting);
    } catch {
      // Dropped, as the sandbox drops a throwing subscriber.
    }
  }
}

export function cancelledEnvelope(signal: AbortSignal | undefined): ExecuteResult {
  const reason = signal?.reason instanceof Error ? signal.reason.message : undefined;
  return faultEnvelope('CANCELLED', new CancelledError(reason).message);
}

/** The reason the ended signal carries. */
function endedError(): Error {
  return new Error(EXECUTION_ENDED_MESSAGE);
}
