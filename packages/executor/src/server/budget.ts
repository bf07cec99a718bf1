/**
 * The server's byte budget for the requests it holds (executions, invokes and closeHandles,
 * queued or in flight), shared by every connection, with a fair share for each.
 *
 * A request is charged HELD_REQUEST_COST times its size as received. What it holds in the
 * server's heap is not the frame but its decoded form (every string of it, up to one heap byte per
 * UTF-8 byte) plus the message encoded again for the child (the pool keeps that text until the run
 * settles, and one character past Latin-1 makes all of it two bytes a character): measured at
 * about 90 MB for a 30 MiB execute, three times its size.
 *
 * A connection's share is the budget divided by the open connections that have authenticated,
 * never below one full message: one connection cannot take what the others would need, and a lone
 * connection may use the whole budget. A connection that opens while another holds more than the
 * new share gets its share as that excess settles (each held execution is bounded by the wall
 * clock); the total never passes the budget.
 */
import { PAYLOAD_LIMIT } from '@supolka/codemode-protocol';
import { requestBudgetMessage, requestShareMessage } from './texts.ts';

/** What one held request costs the server's heap, per byte of the message as received. */
export const HELD_REQUEST_COST = 3;

/** The smallest budget: one message of PAYLOAD_LIMIT bytes, charged as it is held. */
export const MIN_REQUEST_BUDGET = HELD_REQUEST_COST * PAYLOAD_LIMIT;

/** What one connection holds of the budget. */
export class BudgetAccount {
  held = 0;
}

export class RequestBudget {
  readonly limit: number;
  readonly #connections: () => number;
  #held = 0;

  /** `connections` counts the authenticated connections open now. */
  constructor(limit: number, connections: () => number) {
    this.limit = limit;
    this.#connections = connections;
  }

  /** Bytes charged now, across every connection. */
  get held(): number {
    return this.#held;
  }

  /** One connection's share of the budget, with `connections` open. */
  share(connections: number): number {
    return Math.max(MIN_REQUEST_BUDGET, Math.floor(this.limit / Math.max(1, connections)));
  }

  /**
   * Charges a request of `bytes` (as received) to `account`. Returns the release, to call once
   * the server no longer holds the request (idempotent), or the refusal's text.
   */
  charge(account: BudgetAccount, bytes: number): (() => void) | string {
    const cost = HELD_REQUEST_COST * bytes;
    const connections = this.#connections();
    const share = this.share(connections);
    if (this.#held + cost > this.limit) return requestBudgetMessage(this.limit, HELD_REQUEST_COST);
    if (account.held + cost > share) {
      return requestShareMessage(share, this.limit, connections, HELD_REQUEST_COST);
    }
    account.held += cost;
    this.#held += cost;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      account.held -= cost;
      this.#held -= cost;
    };
  }
}
