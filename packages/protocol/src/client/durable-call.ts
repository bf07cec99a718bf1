/**
 * A client's side of a durable run's tool call (docs/durable.md, "Over the wire"): pause(), which
 * a tool the client serves throws to pause the run on the server, and durableCall(), which tells
 * the tool the call's sequence and, on a call a resume performs, the idempotency key to pass to
 * the service it calls. A browser has no async context to carry the call's context across awaits,
 * so durableCall() answers during the tool's synchronous start only: read it before the tool's
 * first `await`. The client sets it around its call of the tool function, which runs the
 * function's synchronous start at once (host-part.ts, buildDispatch).
 */
import { PauseSignal, pauseRequest } from '../pause-signal.ts';
import type { DurableCallMessage } from '../schemas/durable.ts';

/** The durable context of a tool call the server asked for. */
export type ClientDurableCall = DurableCallMessage;

let current: ClientDurableCall | undefined;

/**
 * The durable context of the call the tool serves: its sequence, and on a call a resume performs,
 * the idempotency key and the token's id. Undefined outside a durable run's call, and after the
 * tool's first await.
 */
export function durableCall(): ClientDurableCall | undefined {
  return current;
}

/** Runs `start` (which calls the tool) with `context` as the call's durable context. */
export function withDurableCall<T>(context: ClientDurableCall | undefined, start: () => T): T {
  const previous = current;
  current = context;
  try {
    return start();
  } finally {
    current = previous;
  }
}

/**
 * Pauses the durable run the calling tool serves: the run ends on the server and its envelope
 * says it paused, with `data` (JSON), the reason and the pending calls. Always throws; in a run
 * that is not durable the throw is the tool's failure.
 */
export function pause(data?: unknown, options: { reason?: string } = {}): never {
  throw new PauseSignal(pauseRequest(data, options));
}
