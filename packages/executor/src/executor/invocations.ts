/**
 * What the executor keeps about retained executions for the wall-clock bound of their
 * invocations: the clock of each invocation in flight (a tool call the handler makes is served
 * under the oldest, which is the one running: a retained execution runs its invocations one at a
 * time), and the run bound each asked for, so an invocation's default bound is twice its own.
 */
import type { WallClock } from './wall-clock.ts';

export class Invocations {
  readonly #running = new Map<string, WallClock[]>();
  readonly #timeouts = new Map<string, number>();

  /** A retained execution was granted under run bound `timeout`. */
  granted(executionId: string, timeout: number): void {
    this.#timeouts.set(executionId, timeout);
  }

  /** The run bound the retained execution asked for, if still known. */
  timeoutOf(executionId: string): number | undefined {
    return this.#timeouts.get(executionId);
  }

  /** Its handles closed (the pool says so, whatever closed them): its invocations are refused from now on. */
  closed(executionId: string): void {
    this.#timeouts.delete(executionId);
  }

  begin(executionId: string, clock: WallClock): void {
    const clocks = this.#running.get(executionId);
    if (clocks) clocks.push(clock);
    else this.#running.set(executionId, [clock]);
  }

  end(executionId: string, clock: WallClock): void {
    const clocks = this.#running.get(executionId);
    if (!clocks) return;
    const index = clocks.indexOf(clock);
    if (index >= 0) clocks.splice(index, 1);
    if (clocks.length === 0) this.#running.delete(executionId);
  }

  /** The clock of the invocation running now, if one is in flight. */
  current(executionId: string): WallClock | undefined {
    return this.#running.get(executionId)?.[0];
  }
}
