/**
 * How many native import() calls the linker works on at once (modules.ts). V8 makes an import()
 * call cheaply, so a program that spins on import() sends calls to the host far faster than the
 * host answers them, and every call the host works on costs it promises and closures. Past the
 * bound a call waits here as one entry of a plain list, and is worked on, in the order it came,
 * once an earlier one is answered. Nothing is refused: a program with many imports in flight gets
 * every answer, later.
 */
export class ImportAdmission {
  readonly #limit: number;
  #working = 0;
  readonly #waiting: (() => void)[] = [];
  #next = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /**
   * Runs `work` now below the bound, else once a slot frees; `work` must call release() once its
   * answer is known.
   */
  run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#working < this.#limit && this.#next === this.#waiting.length) {
      this.#working++;
      return work();
    }
    return new Promise<T>((resolve, reject) => {
      this.#waiting.push(() => {
        work().then(resolve, reject);
      });
    });
  }

  /** A call was answered: its slot goes to the call that waited longest, or frees. */
  readonly release = (): void => {
    if (this.#next < this.#waiting.length) {
      const resume = this.#waiting[this.#next] as () => void;
      this.#waiting[this.#next++] = noop;
      if (this.#next === this.#waiting.length) {
        this.#waiting.length = 0;
        this.#next = 0;
      }
      resume();
      return;
    }
    this.#working--;
  };
}

function noop(): void {}
