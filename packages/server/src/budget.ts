/**
 * The server's byte budget for the messages it holds (executions, invokes and closeHandles,
 * queued or in flight, and every message while it is decoded), shared by every connection, with a
 * fair share for each.
 *
 * A message is charged its estimated heap cost (message-cost.ts), counted from its text before it
 * is decoded: the decoded form of `[{},{},...]` is twenty times its text, so the size as received
 * says little. A request keeps its charge until it settles; any other message gives it back once it
 * was routed, so only the total bounds those.
 *
 * A connection's share is the budget divided by the open connections that have authenticated,
 * never below one message of MESSAGE_COST_LIMIT: one connection cannot take what the others would
 * need, and a lone connection may use the whole budget. A connection that opens while another
 * holds more than the new share gets its share as that excess settles (each held execution is
 * bounded by the wall clock); the total never passes the budget.
 */
import { MESSAGE_COST_LIMIT } from './message-cost.ts';
import { requestBudgetMessage, requestShareMessage } from './texts.ts';

/** The smallest budget: one message of the most a message may cost. */
export const MIN_REQUEST_BUDGET = MESSAGE_COST_LIMIT;

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
   * Charges `cost` bytes to `account`, within the connection's share when `fair` (new work), within
   * the total only otherwise (a reply an admitted execution waits on). Returns the release, to call
   * once the server no longer holds the message (idempotent), or the refusal's text.
   */
  charge(account: BudgetAccount, cost: number, fair = true): (() => void) | string {
    const connections = this.#connections();
    const share = this.share(connections);
    if (this.#held + cost > this.limit) return requestBudgetMessage(this.limit);
    if (fair && account.held + cost > share) return requestShareMessage(share, this.limit, connections);
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
