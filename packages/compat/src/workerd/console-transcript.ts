/**
 * workerd's own console lines, read back from its stdout and stderr, for the cases that compare
 * the executor's `consoleFormat: 'inspect'` with workerd's console. The harness cannot ask
 * workerd how its console formats a value: it can only call the console, which writes to the
 * process's stdout (`log`) or stderr (`warn`, `error`). So for such a case the harness writes each
 * line between two marker lines of its own, on the same stream, and this module cuts the blocks
 * out of what workerd wrote. The three writes are synchronous calls in one isolate, and workerd
 * runs every isolate on one thread, so no other case's line can fall between them; the markers
 * carry the run's name and the line's index, so the blocks of cases running at once still sort.
 *
 * The process lives in vitest's main process (test/global-setup.ts) and the cases in its workers,
 * so the loopback server answers a worker's `GET /__console/<run>?lines=N` from here.
 */

/**
 * The start of a run's markers, which the harness is given (options.consoleMark): it writes
 * `<mark> <index> open` before the line `index` and `<mark> <index> close` after it.
 */
export function consoleMark(run: string): string {
  return `@@codemode-console ${run}`;
}

const MARKER = /^@@codemode-console (\S+) (\d+) (open|close)$/;

/** How long a worker waits for lines workerd has not written out yet, after its run answered. */
const TAKE_PATIENCE = 5000;

interface Waiter {
  readonly count: number;
  readonly resolve: () => void;
}

export class ConsoleTranscripts {
  /** The finished lines of each run, by index. */
  readonly #runs = new Map<string, Map<number, string>>();
  readonly #waiters = new Map<string, Waiter>();

  /**
   * A consumer of one of workerd's streams (chunks as they arrive): each stream has its own block
   * open at a time, since a line goes out on one stream between its markers.
   */
  stream(): (chunk: Buffer | string) => void {
    let pending = '';
    let open: { run: string; index: number; lines: string[] } | undefined;
    const onLine = (line: string) => {
      const marker = MARKER.exec(line);
      if (marker === null) {
        open?.lines.push(line);
        return;
      }
      const [, run = '', index = '', edge] = marker;
      if (edge === 'open') {
        open = { run, index: Number(index), lines: [] };
      } else if (open !== undefined && open.run === run && open.index === Number(index)) {
        this.#finish(open.run, open.index, open.lines.join('\n'));
        open = undefined;
      }
    };
    return (chunk) => {
      pending += chunk.toString();
      let newline = pending.indexOf('\n');
      while (newline !== -1) {
        onLine(pending.slice(0, newline));
        pending = pending.slice(newline + 1);
        newline = pending.indexOf('\n');
      }
    };
  }

  /**
   * The texts of a run's first `count` lines, in order, once workerd has written them all (or
   * those it wrote within TAKE_PATIENCE, a missing one as undefined, so the case shows the gap);
   * the run's lines are forgotten then.
   */
  take(run: string, count: number): Promise<(string | undefined)[]> {
    const answer = () => {
      const lines = this.#runs.get(run);
      this.#runs.delete(run);
      this.#waiters.delete(run);
      return Array.from({ length: count }, (_, index) => lines?.get(index));
    };
    if ((this.#runs.get(run)?.size ?? 0) >= count) return Promise.resolve(answer());
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(answer()), TAKE_PATIENCE);
      this.#waiters.set(run, {
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve(answer());
        },
      });
    });
  }

  #finish(run: string, index: number, text: string): void {
    let lines = this.#runs.get(run);
    if (lines === undefined) {
      lines = new Map();
      this.#runs.set(run, lines);
    }
    lines.set(index, text);
    const waiter = this.#waiters.get(run);
    if (waiter !== undefined && lines.size >= waiter.count) waiter.resolve();
  }
}
