/**
 * The parent's side of handing a child's start on (docs/pool.md, "Handing the start on"): the one
 * start it keeps (the `handOn` a child sent, the runtime snapshot and the engine report its start
 * made), whom it takes one from, and whom it hands it to.
 *
 * It takes one only from a child that has not reported healthy yet, once: such a child has run no
 * program, so what it sends is what this package's own code made, never what a program running in
 * it could have changed. Anything else is a child not speaking the protocol. It hands the start
 * only to children spawned as its maker was (the same Node, flags and NODE_OPTIONS); the child
 * checks it again before V8 sees it. A child that was handed it and ended before it reported healthy
 * takes it out of service: the next child makes its own, and hands that on.
 */
import type { PoolChild } from './child-handle.ts';
import type { PoolMessageOf } from './messages/table.ts';
import { encodePoolMessage } from './messages/wire.ts';

export const LATE_HAND_ON_MESSAGE =
  'it handed a start on after its own start (a child may once, before it reports healthy)';

export class HandedStart {
  /** The start kept, encoded once, and what its maker was spawned as. */
  #kept: { readonly text: string; readonly spawnedAs: string } | undefined;

  /** The `handOn` text to send a child spawned as `spawnedAs`, or undefined when none fits it. */
  offer(spawnedAs: string): string | undefined {
    return this.#kept?.spawnedAs === spawnedAs ? this.#kept.text : undefined;
  }

  /** Keeps `child`'s start; answers why not when it may not send one (a protocol violation). */
  take(child: PoolChild, message: PoolMessageOf<'handOn'>): string | undefined {
    if (child.healthy || child.handedOn || child.executions > 0) return LATE_HAND_ON_MESSAGE;
    child.handedOn = true;
    try {
      this.#kept = { text: encodePoolMessage(message), spawnedAs: child.spawnedAs };
    } catch {
      // Past the message bound: it could not be sent on, so it is not kept.
    }
    return undefined;
  }

  /** `child` was handed the start and ended before it reported healthy: the start may be why. */
  failedWith(child: PoolChild): void {
    if (child.handedStart !== undefined && child.handedStart === this.#kept?.text) this.#kept = undefined;
  }

  /** Whether a start is kept (for tests and stats). */
  get kept(): boolean {
    return this.#kept !== undefined;
  }
}
