/**
 * Nested executions: a tool function (or an outbound function) that calls `execute` on the same
 * executor, as `@cloudflare/codemode`'s `codemode.run` does. The execution whose tool is waiting
 * holds its child for the whole wait, so a nested execution queued behind it would wait for ever
 * with a pool of one, and with as many waiting outer runs as children at any size.
 *
 * The pool serves every host call inside an async context naming that call (`serveInContext`, a
 * HostCallFrame per call); an `execute` that finds a call of an execution of the same pool still
 * pending in its context is nested, one level deeper than that execution. Nesting is decided by the
 * call, not by the execution: work a tool left running past its answer (a timer, a stored callback)
 * keeps the call's async context, but nobody waits on it any more, so an `execute` it makes is a
 * top-level execution of its own, neither counted toward the depth bound nor cancelled with the
 * execution whose tool made it. A nested execution d levels deep may run on the pool's own
 * children and on children started beyond the pool size for levels 1 to d (pool.ts), never on one
 * kept for a deeper level: the deepest level waits on nobody, so each level below it is freed in
 * turn, and no nested execution waits on its own ancestors. docs/pool.md, "Nested executions".
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** How many levels nested executions may go below a top-level one (which is level 0). */
export const MAX_NESTING_DEPTH = 3;

/** The error of an execution that would be nested past MAX_NESTING_DEPTH; it never runs. */
export const NESTING_TOO_DEEP_MESSAGE = `Nested executions go at most ${MAX_NESTING_DEPTH} levels deep: a tool of an execution nested ${MAX_NESTING_DEPTH} levels deep called execute on the same executor.`;

/** Why a nested execution was cancelled when the execution whose tool started it ended first. */
export const PARENT_ENDED_REASON = 'the execution whose tool call started it has ended';

/** Where an execution sits among nested ones, as a host call of it reads it. */
export interface ServedExecution {
  /** The pool the execution runs on: nesting is counted per pool. */
  readonly owner: object;
  /** 0 for a top-level execution. */
  readonly depth: number;
  /** The frame of the host call the execution was started in, when it was started inside one. */
  readonly parent: NestingFrame | undefined;
  /** Whether it has settled. */
  readonly settled: boolean;
  /**
   * Whether a call may still reach its caller's functions: while it runs, and, once it granted
   * retained handles, while they live (their invocations call as it does).
   */
  readonly servesCalls: boolean;
  /** Aborted when it settles, or, once it granted handles, when they close. */
  readonly endedSignal: AbortSignal;
}

/** What the context of a host call says about the call and the execution it serves. */
export interface NestingFrame extends ServedExecution {
  /**
   * Whether the call has answered or its execution has settled: an execute started from the
   * context of such a call is not nested in it, since nothing waits on it.
   */
  readonly settled: boolean;
}

/** The frame of one host call: pending until the caller's function answered (`answered`). */
export class HostCallFrame implements NestingFrame {
  readonly #execution: ServedExecution;
  #answered = false;

  constructor(execution: ServedExecution) {
    this.#execution = execution;
  }

  get owner(): object {
    return this.#execution.owner;
  }

  get depth(): number {
    return this.#execution.depth;
  }

  get parent(): NestingFrame | undefined {
    return this.#execution.parent;
  }

  get settled(): boolean {
    // A retained execution has settled, yet its invocation waits on this call as a run would.
    return this.#answered || !this.#execution.servesCalls;
  }

  get servesCalls(): boolean {
    return !this.settled;
  }

  get endedSignal(): AbortSignal {
    return this.#execution.endedSignal;
  }

  /** The caller's function answered: its execution no longer waits on what it left running. */
  answered(): void {
    this.#answered = true;
  }
}

/**
 * The context an `execute` is called in: the frame of the host call making it, and whether the
 * execution it starts is bound to that call's execution (cancelled when it ends). Only a call in
 * this process is known to be the caller; a server attributes a remote client's execute to one of
 * that client's pending calls (`withNestingCapacity`) by when it came, which may be wrong.
 */
interface NestingContext {
  readonly frame: NestingFrame;
  readonly bound: boolean;
}

const contexts = new AsyncLocalStorage<NestingContext>();

/** The frame of the host call that is calling `execute` now, and whether the new run is bound to it. */
export function currentContext(): NestingContext | undefined {
  return contexts.getStore();
}

/**
 * How deep an execute on `owner` started now is nested: 0 at the top level, or the depth of the
 * nearest execution of `owner` in the chain of pending calls plus one. A chain broken by a call
 * that answered already (a tool that left work running past its answer, here or in another
 * executor between) is not nested: nothing up to that call waits on the new execution.
 */
export function nestingDepth(owner: object, frame: NestingFrame | undefined): number {
  for (let ancestor: NestingFrame | undefined = frame; ancestor; ancestor = ancestor.parent) {
    if (ancestor.settled) return 0;
    if (ancestor.owner === owner) return ancestor.depth + 1;
  }
  return 0;
}

/** Runs a host call with its frame as its context. */
export function serveInContext<T>(frame: NestingFrame, serve: () => T): T {
  return contexts.run({ frame, bound: true }, serve);
}

/**
 * Runs `start` (an execute) as nested in `frame` for capacity only: it gets the children its
 * depth may use, but is not cancelled when `frame`'s execution ends, since it may not be its own.
 */
export function withNestingCapacity<T>(frame: NestingFrame, start: () => T): T {
  return contexts.run({ frame, bound: false }, start);
}
