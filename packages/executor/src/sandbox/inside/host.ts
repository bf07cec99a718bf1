/**
 * The shapes the sandbox's isolate-side code meets: the isolated-vm references the host hands in,
 * and what the runtime bundle shares through __runtimeInternals. Types only: every file of this
 * folder is turned into source text on its own, so a value import would leave a dangling name.
 */

/** An isolated-vm Reference as code inside the isolate sees it, as the runtime declares it. */
export type { HostReference } from '@supolka/codemode-runtime/host-reference';

/** Shows a function as native code, with the given name (the runtime's global-scope.ts). */
export type NativeSource = (fn: unknown, name: string) => void;

/** What RUN_SUPPORT_SOURCE answers: the bindings the internal module exports. */
export interface RunSupport {
  provider(name: string, positional: boolean): object;
  startRun(
    start: () => Promise<unknown>,
    timeoutMessage: string,
    retain?: boolean,
    durable?: readonly number[],
  ): void;
  loaded(token: unknown, namespace: unknown): void;
  enterGlobalScope(): void;
}

/** The state the runtime shares with the sandbox's install scripts (the runtime's internals.ts). */
export interface RuntimeInternals {
  readonly scope: { global: boolean };
  readonly assertRequestScope: () => void;
  readonly reportException: (error: unknown, toConsole?: boolean) => void;
  readonly nativeSource: NativeSource;
  readonly http: {
    requestFromWire(wire: unknown): unknown;
    isResponse(value: unknown): boolean;
    responseToWire(response: unknown): Promise<unknown>;
  };
  /** Errors raised for a cause the host observed, by kind (the runtime's internals.ts, markObserved). */
  readonly errors: {
    mark<E extends Error>(error: E, kind: string): E;
    kindOf(error: unknown): readonly [kind: string, message: string] | undefined;
  };
  /** The line workerd's console would write (the runtime's console-format.ts); loads its piece on first use. */
  readonly formatInspect: (values: unknown[]) => string;
  /**
   * A durable run's clock (the runtime's date.ts): `now` set, every read of the time answers it;
   * `observe`, set by DISPATCH_SOURCE, answers the next sequence of the run's observed settlements.
   */
  readonly virtualClock: { now: number | undefined; observe: (() => number) | undefined };
  /** Set by LOADER_SOURCE: each loaded module's namespace, by the token its loader root carries. */
  loadedNamespaces?: Map<unknown, unknown>;
  /** Set by the preparation: what RUN_SUPPORT_SOURCE answered. */
  sandbox?: RunSupport;
}

/** The global object as the install scripts read it, before they delete what they consumed. */
export type SandboxGlobal = typeof globalThis & {
  __runtimeInternals: RuntimeInternals;
  __hostBindings?: (references: unknown) => void;
  __prepareSandbox?: unknown;
  __dispatch: (provider: unknown, tool: unknown, argsJson: unknown) => Promise<string>;
  __timeoutExpired: Promise<never>;
  __resultJson?: unknown;
  __invokeHandle?: unknown;
};
