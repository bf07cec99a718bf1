/**
 * The console inside the isolate and the host capture behind it. Every line crosses with
 * applySync, so the next guest instruction runs only once the host holds the line: a run the
 * engine kills later still comes back with everything it wrote.
 */
import { CONSOLE_CAPTURE_LIMIT, LINE_COST, type LogLine } from '@supolka/codemode-protocol/wire';
import { CONSOLE_INSTALL_SOURCE } from './generated/sandbox-sources.generated.ts';
import type { ConsoleValues } from './inside/console.ts';
import { bindValues } from './setup/bound-source.ts';

export const CONSOLE_CAPTURE_MESSAGE = `Console output past ${CONSOLE_CAPTURE_LIMIT} bytes was dropped: the run writes more than one execution may capture.`;

/** One run's captured lines, bounded by their wire cost. */
export class ConsoleCapture {
  readonly lines: LogLine[] = [];
  #cost = 0;
  #closed = false;
  readonly #listener: ((line: LogLine) => void) | undefined;
  #skip: number;
  #written = 0;

  /**
   * `listener` hears each line as it is captured (the closing warning too); a throw from it is
   * dropped. The first `skip` lines are accepted and not captured: a resumed durable run writes
   * again what the paused run already returned, and those lines are not repeated.
   */
  constructor(listener?: (line: LogLine) => void, skip = 0) {
    this.#listener = listener;
    this.#skip = skip;
  }

  /** Lines written so far, those skipped included. */
  get written(): number {
    return this.#written;
  }

  /**
   * Captures a line, charged LINE_COST plus its escaped length (a number: the length of a line the
   * isolate kept, being past CONSOLE_CAPTURE_LIMIT). Returns false once capture has ended, which
   * stops the isolate from sending more.
   */
  push(level: LogLine['level'], text: string | number): boolean {
    if (this.#closed) return false;
    this.#written++;
    if (this.#skip > 0) {
      this.#skip--;
      return true;
    }
    // A number is the length of a line past what any run may capture, which the isolate kept.
    const cost = LINE_COST + (typeof text === 'number' ? text : JSON.stringify(text).length);
    if (this.#cost + cost > CONSOLE_CAPTURE_LIMIT) {
      this.#closed = true;
      this.#capture({ level: 'warn', text: CONSOLE_CAPTURE_MESSAGE });
      return false;
    }
    this.#cost += cost;
    this.#capture({ level, text: String(text) });
    return true;
  }

  #capture(line: LogLine): void {
    this.lines.push(line);
    if (this.#listener === undefined) return;
    try {
      this.#listener(line);
    } catch {
      // A listener must not change what the run captures.
    }
  }

  /** Ends capture without a final line: a retained execution already delivered its output. */
  stop(): void {
    this.#closed = true;
  }
}

/**
 * Builds globalThis.console when called with the runtime's nativeSource (which shows a function as
 * native code) and answers the function that connects it to the sink reference; the sandbox builds
 * it while the snapshot is made and connects the sink in every isolate. In workerd's shape: its keys
 * in workerd's order, a prototype of its own, methods named "" that show as native code, and
 * console.context. log, warn and error format as the wire does: String of each argument, single
 * spaces; an argument String cannot convert throws into the program, as that rule does (workerd's
 * console throws too), and nothing is written. The other methods exist and write nothing, as the
 * sandbox's specification says (docs/sandbox.md). The code is inside/console.ts.
 */
export const CONSOLE_SOURCE = bindValues(
  CONSOLE_INSTALL_SOURCE,
  { lineLimit: CONSOLE_CAPTURE_LIMIT } satisfies ConsoleValues,
  ['nativeSource', 'formatInspect'],
);
