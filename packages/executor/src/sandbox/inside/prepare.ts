/**
 * The body of SANDBOX_SOURCE (setup/sandbox-source.ts): run once per process into the startup snapshot,
 * after the runtime bundle, it builds the console, which needs nothing from the host but its sink,
 * and defines __prepareSandbox, which every restored isolate calls once, with the host references,
 * to install each piece in the chapter's order: the console's sink, the runtime handshake, the
 * timers, the dispatch bridge, the import() loader, the completion names, and the run support the
 * entry imports. The pieces come in as functions, each already holding the host
 * values it needs. It answers the functions the host calls into the isolate: the dispatch answer,
 * and the console's switch to workerd's format.
 */
import type { DispatchAnswer } from './dispatch.ts';
import type { HostReference, NativeSource, RunSupport, RuntimeInternals, SandboxGlobal } from './host.ts';

export interface SandboxPieces {
  /**
   * Builds the console now, while the snapshot is made; answers what connects the sink, which
   * answers the switch to workerd's format (inside/console.ts).
   */
  readonly console: (
    nativeSource: NativeSource,
    formatInspect: (values: unknown[]) => string,
  ) => (sink: HostReference) => (format: string) => void;
  readonly bindings: (references: unknown) => void;
  readonly timers: (hostDelay: HostReference) => void;
  /** Answers with the function the host calls to answer a tool call (inside/dispatch.ts). */
  readonly dispatch: (hostDispatch: HostReference) => DispatchAnswer;
  readonly loader: (hostLoad: HostReference) => void;
  readonly completion: (hostTimeout: HostReference, hostResult: HostReference) => void;
  readonly runSupport: (internals: RuntimeInternals, signal: HostReference) => RunSupport;
}

export default function definePrepare(pieces: SandboxPieces): void {
  const { console, bindings, timers, dispatch, loader, completion, runSupport } = pieces;
  // The console needs nothing from the host but its sink: it is built once, into the snapshot.
  const runtimeInternals = (globalThis as SandboxGlobal).__runtimeInternals;
  const connectConsole = console(runtimeInternals.nativeSource, runtimeInternals.formatInspect);
  const prepare = (
    consoleSink: HostReference,
    runtime: unknown,
    hostDelay: HostReference,
    hostDispatch: HostReference,
    hostLoad: HostReference,
    hostTimeout: HostReference,
    hostResult: HostReference,
    hostSignal: HostReference,
  ) => {
    delete (globalThis as Partial<SandboxGlobal>).__prepareSandbox;
    const consoleFormat = connectConsole(consoleSink);
    bindings(runtime);
    timers(hostDelay);
    const answerDispatch = dispatch(hostDispatch);
    loader(hostLoad);
    completion(hostTimeout, hostResult);
    const internals = (globalThis as SandboxGlobal).__runtimeInternals;
    internals.sandbox = runSupport(internals, hostSignal);
    // What the host calls into the isolate, held by the host and never published.
    return { answerDispatch, consoleFormat };
  };
  Object.defineProperty(globalThis, '__prepareSandbox', { value: prepare, configurable: true });
}
