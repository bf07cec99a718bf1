/**
 * CONSOLE_SOURCE (console.ts): globalThis.console over the sink reference, in workerd's shape.
 * Built once, while the snapshot is made, so every isolate is restored with it (about 0.14 ms of
 * each preparation otherwise, docs/sandbox.md); the function it answers connects the sink, the
 * one part a snapshot cannot hold, in every isolate before user code. Unconnected, it writes
 * nothing.
 * Its keys in workerd's order, a prototype of its own, methods named "" that show as native code,
 * and console.context. log, warn and error format as the wire does: String of each argument,
 * single spaces; an argument String cannot convert throws into the program, as that rule does
 * (workerd's console throws too), and nothing is written. A request with `consoleFormat:
 * 'inspect'` switches them, before any of its code runs, to workerd's own format (Node's
 * util.format), whose throws reach the program the same way. The other methods exist and write
 * nothing, as the sandbox's specification says (docs/sandbox.md).
 */
import type { HostReference, NativeSource } from './host.ts';

/** What connecting the console answers: the switch to workerd's format, for a request that asks for it. */
export type ConsoleFormatSwitch = (format: string) => void;

export interface ConsoleValues {
  /** CONSOLE_CAPTURE_LIMIT: a line longer than what one run may capture is never captured whole. */
  readonly lineLimit: number;
}

export default function installConsole(
  settings: ConsoleValues,
  nativeSource: NativeSource,
  formatInspect: (values: unknown[]) => string,
): (sink: HostReference) => ConsoleFormatSwitch {
  let sink: HostReference | undefined;
  let applySync: HostReference['applySync'] | undefined;
  const apply = Reflect.apply;
  const String_ = String;
  const defineProperty = Object.defineProperty;
  const lineLimit = settings.lineLimit;
  let open = true;
  // consoleFormat 'inspect': workerd's format (the runtime's console-format.ts), set before user code.
  let inspect = false;
  const write = (level: string, values: unknown[]) => {
    let text = '';
    if (inspect) text = formatInspect(values);
    else
      for (let index = 0; index < values.length; index++)
        text += (index === 0 ? '' : ' ') + String_(values[index]);
    if (!open || applySync === undefined) return;
    // A line longer than what a run may capture is never captured: only its length crosses, since
    // the host's copy of a long string (a rope, next to free for the program) would cost the host
    // its whole flat length. Reading a rope's length does not flatten it.
    const line: string | number = text.length > lineLimit ? text.length : text;
    try {
      if (apply(applySync, sink, [undefined, [level, line]]) === false) open = false;
    } catch {}
  };
  // No prototype: a name inherited from Object.prototype is no level.
  const WRITING = { __proto__: null, error: 'error', log: 'log', warn: 'warn' } as unknown as Record<
    string,
    string | undefined
  >;
  const NAMES = [
    'debug',
    'error',
    'info',
    'log',
    'warn',
    'dir',
    'dirxml',
    'table',
    'trace',
    'group',
    'groupCollapsed',
    'groupEnd',
    'clear',
    'count',
    'countReset',
    'assert',
    'profile',
    'profileEnd',
    'time',
    'timeLog',
    'timeEnd',
    'timeStamp',
  ];
  const methods = (target: object) => {
    for (const name of NAMES) {
      const level = WRITING[name];
      // A conditional gives the arrow no name: workerd's console methods are named "".
      const method = level === undefined ? () => {} : (...values: unknown[]) => write(level, values);
      nativeSource(method, '');
      defineProperty(target, name, { value: method, writable: true, enumerable: true, configurable: true });
    }
    return target;
  };
  const console = methods({ __proto__: { __proto__: Object.prototype } });
  // Not bound under its own name: the transform would rename the function to keep the two apart.
  const contextMethod = function context(_label?: unknown) {
    return methods({ __proto__: { __proto__: Object.prototype } });
  };
  nativeSource(contextMethod, 'context');
  defineProperty(console, 'context', {
    value: contextMethod,
    writable: true,
    enumerable: true,
    configurable: true,
  });
  defineProperty(console, Symbol.toStringTag, { value: 'console', configurable: true });
  defineProperty(globalThis, 'console', {
    value: console,
    writable: true,
    enumerable: false,
    configurable: true,
  });
  // The method is read once, here, so a later change to any prototype cannot redirect a line.
  return (reference) => {
    sink = reference;
    applySync = reference.applySync;
    return (format) => {
      inspect = format === 'inspect';
    };
  };
}
