/**
 * The durable request the server's durable tests and the two-server test (packages/integration)
 * both send: a shop whose tools are served on the client, where `refund` pauses the run until the
 * test approves it. Written once so the two exercise the same tools; each file keeps its own
 * program and its own answer for an approved refund.
 */
import { durableCall, pause } from '@supolka/codemode-protocol/client';

/** Whether the refund is approved yet, and the tools called so far, in order. */
export interface ShopState {
  approved: boolean;
  calls: string[];
}

/** A refund's answer once it is approved. */
export type Refunded = (id: string, total: number) => unknown;

const refundedText: Refunded = (_id, total) => `refunded ${total}`;

/**
 * A durable request for `code`: `shop.find` answers the order, `shop.refund` pauses until
 * `state.approved` and then answers what `refunded` makes of it, and `shop.key` answers the
 * idempotency key it was called with (null outside a resume's live call).
 */
export function shopRequest(code: string, state: ShopState, refunded: Refunded = refundedText) {
  return {
    code,
    durable: true,
    providers: [
      {
        name: 'shop',
        fns: {
          find: (id: string) => {
            state.calls.push('find');
            return { id, total: 12 };
          },
          refund: (id: string, total: number) => {
            state.calls.push('refund');
            if (!state.approved) pause({ id, total }, { reason: 'approval' });
            return refunded(id, total);
          },
          key: () => durableCall()?.idempotencyKey ?? null,
        },
      },
    ],
  };
}
