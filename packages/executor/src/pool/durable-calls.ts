/**
 * A durable run served through the pool, as the parent holds it (docs/durable.md, "Through the
 * pool"). The child runs the program and its journal; the parent, which holds the key, keeps what
 * only it can: the run's start (sent with the execute message), the context each call the child
 * performs runs in (its sequence, and on a resume the idempotency key only the key derives), the
 * pause a tool asked for, and, when the child hands back the journal of a run that paused, that
 * journal, for the executor to seal. A tool calls pause() in this process, inside the context
 * given here: the reply tells the child, which ends the run as a pause in its own process would.
 */
import type { ExecuteResult } from '@supolka/codemode-protocol/wire';
import type { DurableRunEnd } from '../durable/durability.ts';
import { type PauseRequest, performRecording } from '../durable/pause.ts';
import type { DurableStart, PausedJournal, ResumeKeys } from '../durable/start.ts';

/** A child that handed back a paused journal when no tool of the run had paused it. */
export const UNASKED_PAUSE_MESSAGE =
  'The worker said the run paused, but none of its tools asked to pause: the run is not resumable.';

export class DurableCalls {
  /** What the child runs the program from: sent with the execute message. */
  readonly start: DurableStart;
  readonly #keys: ResumeKeys | undefined;
  #pause: PauseRequest | undefined;
  #journal: PausedJournal | undefined;

  /** `keys`: the opened token's, on a resume. */
  constructor(start: DurableStart, keys?: ResumeKeys) {
    this.start = start;
    this.#keys = keys;
  }

  /**
   * Runs one call the child performs, `sequence` its number in the run, in its durable context: a
   * tool reads it with durableCall(), and pause() there is recorded, the first pause the run's.
   * Settles as the call does; `paused` is told when the call paused the run, returned or thrown.
   */
  perform<T>(sequence: number, call: () => Promise<T>, paused: () => void): Promise<T> {
    const keys = this.#keys;
    return performRecording(
      { sequence, idempotencyKey: keys?.idempotencyKey(sequence), tokenId: keys?.tokenId },
      call,
      (request) => {
        this.#pause ??= request;
        paused();
      },
    );
  }

  /** The child's journal of the run, which paused. */
  handBack(journal: PausedJournal): void {
    this.#journal = journal;
  }

  /** The run's end as the sandbox gives it in one process: the envelope, and a pause's journal and request. */
  end(envelope: ExecuteResult): DurableRunEnd {
    if (this.#journal === undefined) return { envelope };
    if (this.#pause === undefined) {
      return {
        envelope: { result: undefined, logs: envelope.logs, error: UNASKED_PAUSE_MESSAGE, code: 'INTERNAL' },
      };
    }
    return { envelope, paused: { journal: this.#journal, request: this.#pause } };
  }
}
