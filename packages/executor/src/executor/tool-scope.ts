/**
 * The caller's functions of one execution, bound to the wall clock of whatever they serve: the
 * run's while it runs, and once a retained execution's run has settled, the clock of the
 * invocation in flight. Each call is kept as pending on that clock (for the text of a call the
 * bound ends) and runs with toolSignal() and pauseWallClock() reading it (tool-context.ts).
 */
import type { HttpRequest } from '@supolka/codemode-protocol/wire';
import type { Invocations } from './invocations.ts';
import type { RequestHost } from './request.ts';
import { serveUnder } from './tool-context.ts';
import type { WallClock } from './wall-clock.ts';

/** How much of a URL a pending outbound request is named by. */
const URL_SHOWN = 200;

export class ToolScope {
  readonly #run: WallClock;
  readonly #invocations: Invocations;
  #executionId: string | undefined;
  #running = true;
  #closed = false;

  constructor(run: WallClock, invocations: Invocations) {
    this.#run = run;
    this.#invocations = invocations;
  }

  /** The functions as the pool is to call them. */
  bind({ dispatch, outbound }: RequestHost): RequestHost {
    return {
      dispatch:
        dispatch &&
        ((provider, tool, args) =>
          this.#serve(`tool call ${provider}.${tool}`, () => dispatch(provider, tool, args))),
      outbound:
        outbound && ((request, init) => this.#serve(outboundLabel(request), () => outbound(request, init))),
    };
  }

  /**
   * The run settled under run bound `timeout`; `executionId` when it retained handles, whose
   * invocations serve its calls from now on, until they close.
   */
  settled(executionId: string | undefined, timeout: number): void {
    this.#running = false;
    if (executionId === undefined || this.#closed) return;
    this.#executionId = executionId;
    this.#invocations.granted(executionId, timeout);
  }

  /** The handles it granted closed: the executor forgets them. */
  handlesClosed(): void {
    this.#closed = true;
    if (this.#executionId !== undefined) this.#invocations.closed(this.#executionId);
  }

  #serve<T>(label: string, call: () => Promise<T> | T): Promise<T> | T {
    const clock = this.#running
      ? this.#run
      : this.#executionId === undefined
        ? undefined
        : this.#invocations.current(this.#executionId);
    // No invocation in flight: the pool refuses such a call before it gets here; served bare if not.
    return clock ? serveUnder(clock, label, call) : call();
  }
}

function outboundLabel(request: HttpRequest): string {
  const url = request.url.length > URL_SHOWN ? `${request.url.slice(0, URL_SHOWN)}…` : request.url;
  return `outbound request ${request.method} ${url}`;
}
