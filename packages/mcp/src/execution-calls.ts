/**
 * The upstream calls one execution has made and not yet seen answered. They belong to the
 * execution: when it ends (the program answered, its client cancelled it, or a bound ended it),
 * `end` aborts them, and the SDK tells each upstream with the protocol's `notifications/cancelled`;
 * a call or an approval question the program left running cannot leave after that. What was still
 * in flight is named in the answer, since cancellation is only advisory on the upstream's side.
 */
import { executionEndedMessage } from './texts.ts';

export class ExecutionCalls {
  readonly #ended = new AbortController();
  readonly #inFlight = new Map<number, string>();
  #next = 0;

  /** Aborted when the execution ends: every call and question of it listens. */
  get signal(): AbortSignal {
    return this.#ended.signal;
  }

  /** Throws when the execution has ended: nothing of it may leave any more. */
  assertRunning(call: string): void {
    if (this.#ended.signal.aborted) throw new Error(executionEndedMessage(call));
  }

  /** Runs `send` as a call in flight under `call`'s name until it settles. */
  async track<T>(call: string, send: (signal: AbortSignal) => Promise<T>): Promise<T> {
    this.assertRunning(call);
    const id = this.#next++;
    this.#inFlight.set(id, call);
    try {
      return await send(this.#ended.signal);
    } finally {
      this.#inFlight.delete(id);
    }
  }

  /** Ends the execution: cancels what is in flight and answers its names, in the order they left. */
  end(): string[] {
    const pending = [...this.#inFlight.values()];
    this.#ended.abort();
    return pending;
  }
}
