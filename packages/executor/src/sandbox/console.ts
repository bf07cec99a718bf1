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
 * Builds globalThis.console over the sink reference it is called with (and the runtime's
 * nativeSource, which shows a function as native code), in workerd's shape: its keys
 * in workerd's order, a prototype of its own, methods named "" that show as native code, and
 * console.context. log, warn and error format as the wire does: String of each argument, single
 * spaces; an argument String cannot convert throws into the program, as that rule does (workerd's
 * console throws too), and nothing is written. The other methods exist and write nothing, as the
 * Sandbox chapter specifies.
 */
export const CONSOLE_SOURCE = `((sink, nativeSource) => {
  const applySync = sink.applySync;
  const apply = Reflect.apply;
  const toString = String;
  const defineProperty = Object.defineProperty;
  let open = true;
  const write = (level, values) => {
    let text = '';
    for (let index = 0; index < values.length; index++) text += (index === 0 ? '' : ' ') + toString(values[index]);
    if (!open) return;
    try {
      if (apply(applySync, sink, [undefined, [level, text]]) === false) open = false;
    } catch {}
  };
  const WRITING = { __proto__: null, error: 'error', log: 'log', warn: 'warn' };
  const NAMES = ['debug', 'error', 'info', 'log', 'warn', 'dir', 'dirxml', 'table', 'trace', 'group', 'groupCollapsed',
    'groupEnd', 'clear', 'count', 'countReset', 'assert', 'profile', 'profileEnd', 'time', 'timeLog', 'timeEnd', 'timeStamp'];
  const methods = (target) => {
    for (const name of NAMES) {
      const level = WRITING[name];
      // A conditional gives the arrow no name: workerd's console methods are named "".
      const method = level === undefined ? () => {} : (...values) => write(level, values);
      nativeSource(method, '');
      defineProperty(target, name, { value: method, writable: true, enumerable: true, configurable: true });
    }
    return target;
  };
  const console = methods({ __proto__: { __proto__: Object.prototype } });
  const context = function context(_label) {
    return methods({ __proto__: { __proto__: Object.prototype } });
  };
  nativeSource(context, 'context');
  defineProperty(console, 'context', { value: context, writable: true, enumerable: true, configurable: true });
  defineProperty(console, Symbol.toStringTag, { value: 'console', configurable: true });
  defineProperty(globalThis, 'console', { value: console, writable: true, enumerable: false, configurable: true });
})`;
