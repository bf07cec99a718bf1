/**
 * The parent's side of handing a child's start on (docs/pool.md, "Handing the start on"): the one
 * start it keeps (a child's runtime snapshot, the key of the build that made it, and the engine
 * report that child probed), which child it asks for one, when it takes one, and whom it hands it to.
 *
 * What it trusts comes in a child's first healthy answer, which the child writes before it reads
 * any execution, so before any program ran in it: the engine report, and the key and digest of its
 * snapshot (the commitment). The snapshot's bytes, a megabyte, follow later in a `snapshot` message,
 * behind a heartbeat answer that finds the child idle (or a few that find it busy), so they do not
 * stand between a first execution and its answer; a program may have run by then, so the parent keeps them only when they hash to the digest committed to.
 * A `snapshot` from a child with no commitment outstanding, or one that does not hash to it, is a
 * child not speaking the protocol.
 *
 * It hands the start only to children spawned as its maker was (the same Node, flags and
 * NODE_OPTIONS), with the CRC-32 of the bytes it checked, which the child checks before V8 sees
 * them (sandbox/setup/start-check.ts says why a CRC-32 is enough there). A child that refused it hands its own
 * on, which replaces it; a child that was handed it and ended before it reported healthy takes it
 * out of service: the next child makes its own, and hands that on.
 */
import { snapshotDigest, startCheck } from '../sandbox/setup/start-check.ts';
import type { PoolChild } from './child-handle.ts';
import type { EngineReportMessage, StartReport } from './messages/health.ts';
import type { PoolMessageOf } from './messages/table.ts';
import { encodePoolMessage } from './messages/wire.ts';

export const UNASKED_SNAPSHOT_MESSAGE =
  'it sent a snapshot it had not committed to in its first healthy answer, or sent one twice';

export const FORGED_SNAPSHOT_MESSAGE =
  'it sent a snapshot whose bytes do not hash to the digest its first healthy answer committed to';

/** What a child committed to in its first healthy answer. */
export interface StartCommitment {
  readonly key: string;
  readonly digest: string;
  readonly engine: EngineReportMessage;
}

export class HandedStart {
  /** The start kept, what its maker was spawned as, and its text once encoded (about 1.3 MB). */
  #kept: { readonly message: PoolMessageOf<'handOn'>; readonly spawnedAs: string; text?: string } | undefined;

  /**
   * Whether a child about to be spawned as `spawnedAs` is to hand its start on: when no start is
   * kept for it and no other child asked is still to deliver one (a pool's first children start
   * together, and one start is all the parent keeps).
   */
  wanted(spawnedAs: string, children: readonly PoolChild[]): boolean {
    if (this.#kept?.spawnedAs === spawnedAs) return false;
    return !children.some(
      (child) => child.askedForStart && child.alive && (!child.healthy || child.commitment !== undefined),
    );
  }

  /**
   * The `handOn` text to send a child spawned as `spawnedAs`, or undefined when none fits it.
   * Encoded with the first child it is sent to, not when it arrived.
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
   * A child's first healthy answer: its commitment stands when it made its own start (or took one
   * from the cache on disk) and was asked for it, or refused the one it was handed (its own then
   * replaces that one).
   */
  started(child: PoolChild, start: StartReport | undefined, engine: EngineReportMessage): void {
    const asked = child.askedForStart || child.handedStart !== undefined;
    if (!asked || start === undefined || start.snapshot === 'handedOn') return;
    if (start.key === undefined || start.digest === undefined) return;
    child.commitment = { key: start.key, digest: start.digest, engine };
  }

  /** Keeps `child`'s snapshot when it is the one committed to; answers why not otherwise (a violation). */
  take(child: PoolChild, message: PoolMessageOf<'snapshot'>): string | undefined {
    const commitment = child.commitment;
    if (commitment === undefined) return UNASKED_SNAPSHOT_MESSAGE;
    child.commitment = undefined;
    if (snapshotDigest(message.bytes) !== commitment.digest) {
      return FORGED_SNAPSHOT_MESSAGE;
    }
    this.#kept = {
      message: {
        type: 'handOn',
        key: commitment.key,
        digest: commitment.digest,
        check: startCheck(commitment.digest, message.bytes),
        snapshot: message.bytes,
        engine: commitment.engine,
      },
      spawnedAs: child.spawnedAs,
    };
    return undefined;
  }

  /** `child` was handed the start and ended before it reported healthy: the start may be why. */
  failedWith(child: PoolChild): void {
    if (child.handedStart !== undefined && child.handedStart === this.#kept?.text) this.#kept = undefined;
  }
}
