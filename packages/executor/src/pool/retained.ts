/**
 * Where each retained execution lives. A retained execution stays in the child that ran it, so
 * invocations route there by executionId; one left without an invocation for handlesIdleTimeout
 * is closed, and a caller after that meets HANDLES_CLOSED. A child holding any is not retired until
 * they close, and holds at most maxRetainedPerChild.
 */
import { HandlesClosedError } from '@supolka/codemode-protocol';
import type { PoolChild } from './child.ts';
import { faultError } from './conversations.ts';

/** Executions a child ended on its own, remembered so their next invoke says why; oldest forgotten first. */
const CLOSED_REASONS_LIMIT = 1024;

interface Route {
  readonly child: PoolChild;
  /** Armed only while no invocation is in flight: a long invocation is not idleness. */
  timer: NodeJS.Timeout | undefined;
  invocations: number;
}

export class RetainedRoutes {
  readonly #routes = new Map<string, Route>();
  /** Why the child ended an execution whose route went with a handlesClosed message. */
  readonly #closedReasons = new Map<string, string>();
  readonly #idleTimeout: number;
  readonly #onIdle: (executionId: string, child: PoolChild) => void;

  constructor(idleTimeout: number, onIdle: (executionId: string, child: PoolChild) => void) {
    this.#idleTimeout = idleTimeout;
    this.#onIdle = onIdle;
  }

  add(executionId: string, child: PoolChild): void {
    child.retained.add(executionId);
    this.#routes.set(executionId, { child, timer: this.#idleTimer(executionId), invocations: 0 });
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
