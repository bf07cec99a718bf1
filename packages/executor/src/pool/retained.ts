/**
 * Where each retained execution lives. A retained execution stays in the child that ran it, so
 * invocations route there by executionId; one left without an invocation for handlesIdleTimeout
 * is closed, and a caller after that meets HANDLES_CLOSED. A child holding any is not retired until
 * they close, and holds at most maxRetainedPerChild.
 *
 * A route also keeps the execution that granted it, by the id of the run the child knows it as: its
 * invocations call tools and fetch through the child as that run, so the caller's functions serve
 * them until the route goes. Then the execution hears so, and the run's id is remembered a while:
 * a call the child sent before it learnt of the close is answered, not taken for a stray.
 */
import { HandlesClosedError } from '@supolka/codemode-protocol';
import type { PoolChild } from './child.ts';
import { faultError } from './conversations.ts';
import type { PoolExecution } from './execution.ts';

/** Executions a child ended on its own, remembered so their next invoke says why; oldest forgotten first. */
const CLOSED_REASONS_LIMIT = 1024;

/**
 * Runs whose handles closed, remembered so a call their child sent before it learnt of the close is
 * answered; oldest forgotten first. A child learns of a close at once (the close is a message to it,
 * or its own doing) and has at most HOST_CALL_LIMIT calls in flight, so a late call names one of the
 * latest few runs; past this it is a child not running the sandbox.
 */
const CLOSED_RUNS_LIMIT = 1024;

interface Route {
  readonly child: PoolChild;
  /** The execution that granted the handles; its caller's functions serve their calls. */
  readonly execution: PoolExecution;
  /** Armed only while no invocation is in flight: a long invocation is not idleness. */
  timer: NodeJS.Timeout | undefined;
  invocations: number;
}

export class RetainedRoutes {
  readonly #routes = new Map<string, Route>();
  /** Why the child ended an execution whose route went with a handlesClosed message. */
  readonly #closedReasons = new Map<string, string>();
  /** Each route's execution by the id of the run its child knows it as. */
  readonly #byRun = new Map<string, Route>();
  /** The child of each run whose handles closed a moment ago (CLOSED_RUNS_LIMIT). */
  readonly #closedRuns = new Map<string, PoolChild>();
  readonly #idleTimeout: number;
  readonly #onIdle: (executionId: string, child: PoolChild) => void;

  constructor(idleTimeout: number, onIdle: (executionId: string, child: PoolChild) => void) {
    this.#idleTimeout = idleTimeout;
    this.#onIdle = onIdle;
  }

  /** Routes `executionId` to `child`; `execution`, which granted it, holds its caller's functions until it goes. */
  add(executionId: string, child: PoolChild, execution: PoolExecution): void {
    child.retained.add(executionId);
    execution.holdForHandles();
    const route = { child, execution, timer: this.#idleTimer(executionId), invocations: 0 };
    this.#routes.set(executionId, route);
    this.#byRun.set(execution.id, route);
  }

  /** The execution whose handles `child` holds as run `runId`, while they are open. */
  host(child: PoolChild, runId: string): PoolExecution | undefined {
    const route = this.#byRun.get(runId);
    return route?.child === child ? route.execution : undefined;
  }

  /** Whether run `runId` of `child` had handles that closed a moment ago. */
  closedRecently(child: PoolChild, runId: string): boolean {
    return this.#closedRuns.get(runId) === child;
  }

  /** The child holding the execution; its idle clock stops until the invocation ends. */
  beginInvocation(executionId: string): PoolChild | undefined {
    const route = this.#routes.get(executionId);
    if (!route) return undefined;
    clearTimeout(route.timer);
    route.timer = undefined;
    route.invocations++;
    return route.child;
  }

  /** Restarts the idle clock once the last invocation in flight ended, if the route is still there. */
  endInvocation(executionId: string, child: PoolChild): void {
    const route = this.#routes.get(executionId);
    if (!route || route.child !== child) return;
    route.invocations--;
    if (route.invocations === 0) route.timer = this.#idleTimer(executionId);
  }

  get(executionId: string): PoolChild | undefined {
    return this.#routes.get(executionId)?.child;
  }

  remove(executionId: string): PoolChild | undefined {
    const route = this.#routes.get(executionId);
    if (!route) return undefined;
    clearTimeout(route.timer);
    this.#routes.delete(executionId);
    route.child.retained.delete(executionId);
    const runId = route.execution.id;
    this.#byRun.delete(runId);
    this.#closedRuns.set(runId, route.child);
    if (this.#closedRuns.size > CLOSED_RUNS_LIMIT)
      this.#closedRuns.delete(this.#closedRuns.keys().next().value as string);
    route.execution.releaseHandles();
    return route.child;
  }

  /** The child ended the execution itself (its timer work passed its bound) and said why. */
  closedInChild(executionId: string, reason: string): void {
    this.remove(executionId);
    this.#closedReasons.set(executionId, reason);
    if (this.#closedReasons.size > CLOSED_REASONS_LIMIT)
      this.#closedReasons.delete(this.#closedReasons.keys().next().value as string);
  }

  /** HANDLES_CLOSED for an execution without a route, with the child's reason when it gave one. */
  closedError(executionId: string): Error {
    const reason = this.#closedReasons.get(executionId);
    return reason === undefined ? new HandlesClosedError(executionId) : faultError('HANDLES_CLOSED', reason);
  }

  /** A child that left takes its retained executions with it. */
  dropChild(child: PoolChild): void {
    for (const executionId of [...child.retained]) this.remove(executionId);
  }

  clear(): void {
    for (const executionId of [...this.#routes.keys()]) this.remove(executionId);
  }

  #idleTimer(executionId: string): NodeJS.Timeout {
    const timer = setTimeout(() => {
      const child = this.remove(executionId);
      if (child) this.#onIdle(executionId, child);
    }, this.#idleTimeout);
    // An idle retained execution must not keep the caller's process alive on its own.
    timer.unref();
    return timer;
  }
}
