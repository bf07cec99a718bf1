/**
 * The console inside the isolate and the host capture behind it. Every line crosses with
 * applySync, so the next guest instruction runs only once the host holds the line: a run the
 * engine kills later still comes back with everything it wrote.
 */
import { CONSOLE_CAPTURE_LIMIT, LINE_COST, type LogLine } from '@supolka/codemode-protocol';

export const CONSOLE_CAPTURE_MESSAGE = `Console output past ${CONSOLE_CAPTURE_LIMIT} bytes was dropped: the run writes more than one execution may capture.`;

/** One run's captured lines, bounded by their wire cost. */
export class ConsoleCapture {
  readonly lines: LogLine[] = [];
  #cost = 0;
  #closed = false;

  /**
   * Captures a line, charged LINE_COST plus its escaped length. Returns false once capture has
   * ended, which stops the isolate from sending more.
   */
  push(level: LogLine['level'], text: string): boolean {
    if (this.#closed) return false;
    const cost = LINE_COST + JSON.stringify(text).length;
    if (this.#cost + cost > CONSOLE_CAPTURE_LIMIT) {
      this.#closed = true;
      this.lines.push({ level: 'warn', text: CONSOLE_CAPTURE_MESSAGE });
      return false;
    }
    this.#cost += cost;
    this.lines.push({ level, text });
    return true;
  }

  /** Ends capture without a final line: a retained execution already delivered its output. */
  stop(): void {
    this.#closed = true;
  }
}

/**
 * Builds globalThis.console over the sink reference it is called with. log, warn and
 * error format as the wire does (String of each argument, single spaces); the other methods the
 * Console Standard declares, and Node's profile, profileEnd and timeStamp, exist and write nothing.
 */
export const CONSOLE_SOURCE = `((sink) => {
  const applySync = sink.applySync;
  const apply = Reflect.apply;
  const toString = String;
  const describe = Object.prototype.toString;
  let open = true;
  const format = (value) => {
    try {
      return toString(value);
    } catch {
      return apply(describe, value, []);
    }
  };
  const write = (level, values) => {
    if (!open) return;
    let text = '';
    for (let index = 0; index < values.length; index++) text += (index === 0 ? '' : ' ') + format(values[index]);
    try {
      if (apply(applySync, sink, [undefined, [level, text]]) === false) open = false;
    } catch {}
  };
  const silent = () => {};
  const console = {
    log: (...values) => write('log', values),
    warn: (...values) => write('warn', values),
    error: (...values) => write('error', values),
  };
  for (const name of ['debug', 'info', 'dir', 'dirxml', 'table', 'trace', 'group', 'groupCollapsed', 'groupEnd',
    'clear', 'count', 'countReset', 'assert', 'profile', 'profileEnd', 'time', 'timeLog', 'timeEnd', 'timeStamp']) {
    console[name] = silent;
  }
  Object.defineProperty(console, Symbol.toStringTag, { value: 'console', configurable: true });
  Object.defineProperty(globalThis, 'console', { value: console, writable: true, enumerable: false, configurable: true });
})`;
