/**
 * What a child hands on of its own start when the parent asked for it (docs/pool.md, "Handing the
 * start on"): a commitment in its first healthy answer, the key of its build and the digest of its
 * runtime snapshot, made before any program runs here; then the snapshot's bytes, behind a later
 * heartbeat answer that finds this child idle, so they do not stand between an execution and its
 * answer. A child kept busy sends them anyway after a few answers, so a pool that never rests still
 * hands its start on, at the cost of one answer once. The parent keeps the bytes only when they hash
 * to that digest.
 */
import { readRuntimeSnapshot } from '../../sandbox/runtime.ts';
import { ownCommitment } from '../../sandbox/setup/handed-snapshot.ts';
import type { MessageEndpoint } from '../channel.ts';
import { encodePoolMessage } from '../messages/wire.ts';
import { foreignKey } from './hand-on-start.ts';

/** Heartbeat answers after the first that may find this child busy before its snapshot goes anyway. */
export const BUSY_ANSWERS_BEFORE_SENDING = 3;

export class OwnStart {
  /** The key and the digest the first healthy answer commits to. */
  readonly commitment: { readonly key: string; readonly digest: string };
  #written: Promise<void> | undefined;
  #busyAnswers = 0;

  /**
   * This child's start to hand on, or undefined when it keeps none for others (its key is past
   * START_KEY_LIMIT). `foreign` (the foreignHandOn test hook) commits to another build's key, as
   * such a child would.
   */
  static of(foreign = false): OwnStart | undefined {
    // The bytes are copied out of the snapshot when they are sent, not held until then.
    const own = ownCommitment();
    if (own === undefined) return undefined;
    return new OwnStart({ key: foreign ? foreignKey(own.key) : own.key, digest: own.digest });
  }

  private constructor(commitment: { readonly key: string; readonly digest: string }) {
    this.commitment = commitment;
  }

  /**
   * Whether the snapshot is to go behind the heartbeat answer just written, one after the first:
   * when this child is idle, or once it was busy at BUSY_ANSWERS_BEFORE_SENDING answers.
   */
  due(idle: boolean): boolean {
    if (this.#written !== undefined) return false;
    if (idle) return true;
    this.#busyAnswers++;
    return this.#busyAnswers > BUSY_ANSWERS_BEFORE_SENDING;
  }

  /**
   * Sends the snapshot, once; settles when it left this process (at once, after the first time).
   * A snapshot past the message bound stays here: handing on saves later children time and is never needed.
   */
  send(parent: Pick<MessageEndpoint, 'sendText'>): Promise<void> {
    if (this.#written !== undefined) return this.#written;
    let text: string | undefined;
    try {
      // The snapshot every isolate of this process is restored from: the bytes committed to.
      const bytes = new Uint8Array(readRuntimeSnapshot().copy());
      text = encodePoolMessage({ type: 'snapshot', bytes });
    } catch {
      text = undefined;
    }
    this.#written =
      text === undefined ? Promise.resolve() : new Promise((left) => parent.sendText(text, left));
    return this.#written;
  }

  /** The snapshot's write, when it was sent: a process ending waits for it. */
  get written(): Promise<void> | undefined {
    return this.#written;
  }
}
