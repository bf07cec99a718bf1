/**
 * Where each retained execution lives. A retained execution stays in the child that ran it, so
 * invocations route there by executionId; one left without an invocation for handlesIdleTimeout
 * is closed, and a caller after that meets HANDLES_CLOSED. A child holding any is not retired until
 * they close, and holds at most maxRetainedPerChild.
 *
 * A route also keeps the execution that granted it, by the id of the run the child knows it as: its
 * invocations call tools and fetch through the child as that run, so the caller's functions serve
 * them until the route goes. Then the execution hears so, and, when this process closes it, the
 * run's id is remembered until the child answered the close: a call the child sent before it read
 * the close is answered, not taken for a stray.
 */
import { HandlesClosedError } from '@supolka/codemode-protocol/wire';
import type { PoolChild } from './child-handle.ts';
import { faultError } from './conversations.ts';
import type { PoolExecution } from './execution.ts';

/** Executions a child ended on its own, remembered so their next invoke says why; oldest forgotten first. */
const CLOSED_REASONS_LIMIT = 1024;

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
  /**
   * Runs whose handles this process closed and whose child has not yet answered the close: a call
   * the child sent before it read the close may still arrive, and is answered. Once the child
   * answered, nothing it sends can name the run (the close ended the run's channel first), so the
   * entry goes. Closes the child made itself need none: it stopped calling before it said so.
   */
  readonly #closingRuns = new Map<string, PoolChild>();
  /** The run behind each execution in #closingRuns. */
  readonly #closingIds = new Map<string, string>();
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

  /** Whether run `runId` of `child` had handles this process is closing, the child not yet having answered. */
  isClosing(child: PoolChild, runId: string): boolean {
    return this.#closingRuns.get(runId) === child;
  }

  /** The child answered the close of `executionId` (or is gone): no call of its run can follow. */
  closeAnswered(executionId: string): void {
    const runId = this.#closingIds.get(executionId);
    if (runId === undefined) return;
    this.#closingIds.delete(executionId);
    this.#closingRuns.delete(runId);
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

  /**
   * Drops the route; `closing` when this process is about to tell the child to close it (then
   * closeAnswered once the child answered).
   */
  remove(executionId: string, closing = false): PoolChild | undefined {
    const route = this.#routes.get(executionId);
    if (!route) return undefined;
    clearTimeout(route.timer);
    this.#routes.delete(executionId);
    route.child.retained.delete(executionId);
    const runId = route.execution.id;
    this.#byRun.delete(runId);
    if (closing) {
      this.#closingRuns.set(runId, route.child);
      this.#closingIds.set(executionId, runId);
    }
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
    for (const [executionId, runId] of [...this.#closingIds]) {
      if (this.#closingRuns.get(runId) === child) this.closeAnswered(executionId);
    }
  }

  clear(): void {
    for (const executionId of [...this.#routes.keys()]) this.remove(executionId);
    this.#closingIds.clear();
    this.#closingRuns.clear();
  }

  #idleTimer(executionId: string): NodeJS.Timeout {
    const timer = setTimeout(() => {
      const child = this.remove(executionId, true);
      if (child) this.#onIdle(executionId, child);
    }, this.#idleTimeout);
    // An idle retained execution must not keep the caller's process alive on its own.
    timer.unref();
    return timer;
  }
}
