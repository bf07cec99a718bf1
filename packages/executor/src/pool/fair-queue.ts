/**
 * A queue whose slots (pool children, Code Mode reading lanes) are shared between callers instead
 * of handed out in arrival order. Handed out in arrival order, one caller that sends many slow
 * requests (megabytes of TypeScript to erase, say) holds every slot for as long as they last, and
 * another caller's small program waits behind all of them: a 33-character program waited 10 s.
 *
 * So the next free slot goes to the caller that holds the fewest slots now; among those that hold
 * as many, to the one served longest ago (a caller never served, or not among the last
 * TURN_MEMORY served, first), then to the one queued first. Each caller's own requests keep their
 * arrival order. With one caller (an executor used by one application) this is arrival order.
 *
 * A caller is a string: a server connection, an MCP session, an IsolateExecutor without a caller
 * id, or an application's own caller id (docs/pool.md, "Fair queues").
 */

/** The caller of everything an executor is handed without a caller id. */
export const DEFAULT_CALLER = '';

/**
 * Callers whose last service is remembered: enough for every caller a busy server has at once,
 * and a bound on what callers that came once and left (closed connections) leave behind.
 */
export const TURN_MEMORY = 1024;

/** What waits in a fair queue: it names its caller. */
export interface Queued {
  readonly caller: string;
}

export class FairQueue<T extends Queued> {
  /** Each caller's waiting requests in arrival order; the map's own order is the order they queued. */
  readonly #callers = new Map<string, T[]>();
  /** When each caller recently served was served last; the map's order is the order of service. */
  readonly #served = new Map<string, number>();
  #services = 0;
  #length = 0;

  get length(): number {
    return this.#length;
  }

  push(item: T): void {
    const waiting = this.#callers.get(item.caller);
    if (waiting) waiting.push(item);
    else this.#callers.set(item.caller, [item]);
    this.#length++;
  }

  /** Takes `item` out of the queue unserved (cancelled); false when it was not queued. */
  remove(item: T): boolean {
    const waiting = this.#callers.get(item.caller);
    const index = waiting?.indexOf(item) ?? -1;
    if (!waiting || index < 0) return false;
    waiting.splice(index, 1);
    this.#length--;
    if (waiting.length === 0) this.#callers.delete(item.caller);
    return true;
  }

  /** `item` was given a slot: it leaves the queue, and its caller's turn was taken. */
  serve(item: T): void {
    if (this.remove(item)) this.served(item.caller);
  }

  /** `caller` was given a slot, from the queue or straight away (a slot was free when it asked). */
  served(caller: string): void {
    this.#served.delete(caller);
    this.#served.set(caller, ++this.#services);
    if (this.#served.size > TURN_MEMORY) {
      const [oldest] = this.#served.keys();
      this.#served.delete(oldest as string);
    }
  }

  /**
   * The queued requests in the order the next free slot is offered to them: callers holding
   * fewest slots (`held`) first, then the one served longest ago, then the one queued first; each
   * caller's requests in arrival order. Only the first one a slot takes is served: after that
   * the callers' holdings differ, so ask again.
   */
  *inTurn(held: (caller: string) => number): Generator<T> {
    const callers = [...this.#callers.keys()];
    if (callers.length > 1) {
      const rank = new Map(callers.map((caller) => [caller, [held(caller), this.#served.get(caller) ?? 0]]));
      // Stable: callers equal on both keep the order they queued in.
      callers.sort((a, b) => {
        const [heldA, servedA] = rank.get(a) as number[];
        const [heldB, servedB] = rank.get(b) as number[];
        return (heldA as number) - (heldB as number) || (servedA as number) - (servedB as number);
      });
    }
    for (const caller of callers) yield* this.#callers.get(caller) as T[];
  }

  /** Every queued request, in no promised order. */
  *[Symbol.iterator](): Generator<T> {
    for (const waiting of [...this.#callers.values()]) yield* [...waiting];
  }

  /** Empties the queue and answers what it held. */
  clear(): T[] {
    const all = [...this];
    this.#callers.clear();
    this.#length = 0;
    return all;
  }
}
