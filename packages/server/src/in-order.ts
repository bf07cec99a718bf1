/**
 * A connection's messages handled in the order they arrived, when handling one may wait: a message
 * only the schemas decide waits for their load (decode-on-demand.ts, once a process), and the ones
 * after it wait behind it, so a cancel never overtakes the execute it names and the connection's
 * answers keep their order. While anything waits the owner holds its socket (the connection pauses
 * it), so what a client sends meanwhile stays mostly unread rather than held here, where the request
 * budget (budget.ts) never counted it: ws still delivers the frames of the read it already made
 * (about 64 KiB at most), and those wait here. Only an open connection gets here (opening.ts).
 */
export class InOrder {
  /** Settles once every step given so far ran; undefined while nothing waits. */
  #tail: Promise<void> | undefined;
  #waiting = 0;
  readonly #hold: () => void;
  readonly #release: () => void;

  /** `hold` is called as the first step starts to wait, `release` once none is waiting any more. */
  constructor(hold: () => void, release: () => void) {
    this.#hold = hold;
    this.#release = release;
  }

  /** Runs `step` in this call when nothing waits, and after every step given before it otherwise. */
  run(step: () => void | Promise<void>): void {
    if (this.#tail === undefined) {
      const pending = step();
      if (pending !== undefined) this.#wait(pending);
      return;
    }
    this.#wait(this.#tail.then(step));
  }

  #wait(pending: Promise<void>): void {
    if (this.#waiting++ === 0) this.#hold();
    this.#tail = pending.then(
      () => this.#settled(),
      (error: unknown) => {
        this.#settled();
        // As a step that threw in the call that handed it over would: an uncaught exception, and
        // the steps behind it still run.
        queueMicrotask(() => {
          throw error;
        });
      },
    );
  }

  #settled(): void {
    if (--this.#waiting > 0) return;
    this.#tail = undefined;
    this.#release();
  }
}
