/**
 * The parent's side of handing a child's start on (docs/pool.md, "Handing the start on"): the one
 * start it keeps (the `handOn` a child sent, the runtime snapshot and the engine report its start
 * made), which child it asks for one, when it takes one, and whom it hands it to.
 *
 * It takes one only when it is due: as the message right after a child's first healthy answer,
 * from a child that said it made its own start and was asked for it (or refused the one it was
 * handed). The child writes the two together, before it reads any message after them, so no
 * program has run in it yet: what it hands on is what this package's own code made, never what a
 * program running in it could have changed. A `handOn` at any other time is a child not speaking
 * the protocol. Sent after the healthy answer, the start costs the first execution nothing in the
 * parent: the execution is on its way to the child while the parent decodes the start.
 *
 * It hands the start only to children spawned as its maker was (the same Node, flags and
 * NODE_OPTIONS); the child checks it again before V8 sees it. A child that refused it hands its own
 * on, which replaces it; a child that was handed it and ended before it reported healthy takes it
 * out of service: the next child makes its own, and hands that on.
 */
import type { PoolChild } from './child-handle.ts';
import type { PoolMessageOf } from './messages/table.ts';
import { encodePoolMessage } from './messages/wire.ts';

export const LATE_HAND_ON_MESSAGE =
  'it handed a start on when none was due (a child hands its own on once, right after its first healthy answer)';

export class HandedStart {
  /** The start kept, what its maker was spawned as, and its text once encoded (about 1.3 MB). */
  #kept: { readonly message: PoolMessageOf<'handOn'>; readonly spawnedAs: string; text?: string } | undefined;

  /**
   * Whether a child about to be spawned as `spawnedAs` is to hand its start on: when no start is
   * kept for it and no other child asked is still starting (a pool's first children start
   * together, and one start is all the parent keeps).
   */
  wanted(spawnedAs: string, children: readonly PoolChild[]): boolean {
    if (this.#kept?.spawnedAs === spawnedAs) return false;
    return !children.some((child) => child.askedForStart && !child.healthy && child.alive);
  }

  /**
   * The `handOn` text to send a child spawned as `spawnedAs`, or undefined when none fits it.
   * Encoded with the first child it is sent to, not when it arrived, so encoding it delays no
   * execution then.
   */
  offer(spawnedAs: string): string | undefined {
    const kept = this.#kept;
    if (kept?.spawnedAs !== spawnedAs) return undefined;
    if (kept.text === undefined) {
      try {
        kept.text = encodePoolMessage(kept.message);
      } catch {
        // Past the message bound: it cannot be sent, so it is not kept.
        this.#kept = undefined;
        return undefined;
      }
    }
    return kept.text;
  }

  /**
   * A child said, in its first healthy answer, how it started: its own start is due next when it
   * made one and was asked for it, or refused the one it was handed (which its own then replaces).
   */
  started(child: PoolChild, built: boolean): void {
    child.startDue = built && (child.askedForStart || child.handedStart !== undefined);
  }

  /** Keeps `child`'s start when it is due; answers why not otherwise (a protocol violation). */
  take(child: PoolChild, message: PoolMessageOf<'handOn'>): string | undefined {
    if (!child.startDue) return LATE_HAND_ON_MESSAGE;
    child.startDue = false;
    this.#kept = { message, spawnedAs: child.spawnedAs };
    return undefined;
  }

  /** `child` sent a message that is not its start: none is due from it any more. */
  passed(child: PoolChild): void {
    child.startDue = false;
  }

  /** `child` was handed the start and ended before it reported healthy: the start may be why. */
  failedWith(child: PoolChild): void {
    if (child.handedStart !== undefined && child.handedStart === this.#kept?.text) this.#kept = undefined;
  }
}
