/**
 * A queue whose slots (pool children, Code Mode reading lanes) are shared between callers instead
 * of handed out in arrival order. Handed out in arrival order, one caller that sends many slow
 * requests (megabytes of TypeScript to erase, say) holds every slot for as long as they last, and
 * another caller's small program waits behind all of them: a 33-character program waited 10 s.
 *
 * So the next free slot goes to the caller that holds the fewest slots now; among those that hold
 * as many, to the one whose turn came longest ago (a caller goes to the back of the turn once it is
 * served, and a caller new to the queue joins at the back). Each caller's own requests keep their
 * arrival order. With one caller (an executor used by one application) this is arrival order.
 *
 * A caller is a string: a server connection, an IsolateExecutor without a caller id, or an
 * application's own caller id (docs/pool.md, "Fair queues").
 */

/** The caller of everything an executor is handed without a caller id. */
export const DEFAULT_CALLER = '';

/** What waits in a fair queue: it names its caller. */
export interface Queued {
  readonly caller: string;
}

export class FairQueue<T extends Queued> {
  /** Each caller's waiting requests in arrival order; the map's own order is the turn order. */
  readonly #callers = new Map<string, T[]>();
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

  /** `item` was given a slot: it leaves the queue, and its caller goes to the back of the turn. */
  serve(item: T): void {
    if (!this.remove(item)) return;
    const waiting = this.#callers.get(item.caller);
    if (!waiting) return;
    this.#callers.delete(item.caller);
    this.#callers.set(item.caller, waiting);
  }

  /**
   * The queued requests in the order the next free slot is offered to them: callers holding
   * fewest slots (`held`) first, then by turn, each caller's requests in arrival order. Only the
   * first one a slot takes is served: after that the callers' holdings differ, so ask again.
   */
  *inTurn(held: (caller: string) => number): Generator<T> {
    const callers = [...this.#callers.keys()];
    if (callers.length > 1) {
      const holding = new Map(callers.map((caller) => [caller, held(caller)]));
      // Stable: callers that hold as many keep their turn order.
      callers.sort((a, b) => (holding.get(a) as number) - (holding.get(b) as number));
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
