/**
 * An isolate made ready ahead of its request: restored from the snapshot, its context created and
 * every install script run, in the chapter's order (console, runtime, timers, dispatch). Nothing
 * here depends on a request. What does (the console sink, the dispatch function, the outbound
 * choice, the run clock) reaches the isolate through the slots below, which the host references
 * read on every call and Sandbox.execute fills, in the chapter's order, when a request arrives.
 * An isolate serves exactly one execution, prepared or not.
 */
import ivm from 'isolated-vm';
import { ClockSlot } from './clock.ts';
import { CONSOLE_SOURCE, type ConsoleCapture } from './console.ts';
import { createDispatchState, DISPATCH_SOURCE, type DispatchState, hostDispatch } from './dispatch.ts';
import { INTERNAL_MODULE_SOURCE } from './internal-module.ts';
import { createIsolate, type IsolateHandle } from './isolate.ts';
import { LOADER_SOURCE } from './loader.ts';
import { installRuntime, type RuntimeReferences, randomReferences, readRuntimeSnapshot } from './runtime.ts';
import { RUN_SOURCE } from './timeout.ts';
import { never, TIMERS_SOURCE, TimerRegistry } from './timers.ts';

/** Per-run state the host references consult on every call. */
export interface RunSlots {
  console: ConsoleCapture | undefined;
  readonly clock: ClockSlot;
  readonly dispatch: DispatchState;
  readonly timers: TimerRegistry;
  /** Whether the entry's body has started the run. */
  started: boolean;
  /** Loader roots that reported their module evaluated. */
  readonly loaded: Set<number>;
  /** Resolves the isolate's __timeoutExpired. */
  expire: () => void;
}

export interface PreparedIsolate {
  readonly handle: IsolateHandle;
  readonly slots: RunSlots;
  /** The sandbox's own module, evaluated; the entry imports from it. */
  readonly internal: ivm.Module;
}

export interface PrepareOptions {
  readonly memoryLimit: number;
  readonly onCatastrophicError?: (message: string) => void;
  /** References the runtime issue adds to the handshake (outbound, crypto), beside randomness. */
  readonly references?: (slots: RunSlots, handle: IsolateHandle) => Partial<RuntimeReferences>;
}

/** Sets a host reference on the global object for the install script that reads it next. */
function publish(handle: IsolateHandle, name: string, fn: (...args: never[]) => unknown): void {
  handle.jail.setSync(name, new ivm.Reference(fn));
}

function run(handle: IsolateHandle, source: string, filename: string): void {
  handle.context.evalSync(source, { filename });
}

export function prepareIsolate(options: PrepareOptions): PreparedIsolate {
  const handle = createIsolate({
    memoryLimit: options.memoryLimit,
    snapshot: readRuntimeSnapshot(),
    ...(options.onCatastrophicError ? { onCatastrophicError: options.onCatastrophicError } : {}),
  });
  try {
    let expire: () => void = () => {};
    const expired = new Promise<void>((resolve) => {
      expire = resolve;
    });
    const slots: RunSlots = {
      console: undefined,
      clock: new ClockSlot(),
      dispatch: createDispatchState(),
      timers: new TimerRegistry(),
      started: false,
      loaded: new Set(),
      expire: () => expire(),
    };

    publish(
      handle,
      '__consoleSink',
      (level: 'log' | 'warn' | 'error', text: string) => slots.console?.push(level, text) ?? true,
    );
    run(handle, CONSOLE_SOURCE, 'codemode-console.js');

    installRuntime(handle, { ...randomReferences(), ...options.references?.(slots, handle) });

    publish(handle, '__hostDelay', async (ms: number) => {
      const count = await slots.timers.delay(ms);
      // No settlement may reach a dead isolate: it would run a callback no execution owns.
      return handle.isolate.isDisposed ? never() : count;
    });
    run(handle, TIMERS_SOURCE, 'codemode-timers.js');

    publish(handle, '__hostDispatch', hostDispatch(slots.dispatch));
    run(handle, DISPATCH_SOURCE, 'codemode-dispatch.js');

    publish(handle, '__hostLoad', (referrer: string, specifier: string) =>
      handle.loader === undefined
        ? JSON.stringify(['thrown', 'Error', 'import() ran before the module map was linked.'])
        : handle.loader(referrer, specifier),
    );
    run(handle, LOADER_SOURCE, 'codemode-loader.js');

    publish(handle, '__hostTimeout', () => expired);
    run(handle, RUN_SOURCE, 'codemode-run.js');

    publish(handle, '__hostSignal', (kind: 'started' | 'loaded', token?: number) => {
      if (kind === 'started') slots.started = true;
      else if (typeof token === 'number') slots.loaded.add(token);
    });
    const internal = handle.isolate.compileModuleSync(INTERNAL_MODULE_SOURCE, {
      filename: 'codemode-sandbox.js',
    });
    internal.instantiateSync(handle.context, () => {
      throw new Error('The sandbox module imports nothing.');
    });
    internal.evaluateSync();
    return { handle, slots, internal };
  } catch (error) {
    handle.isolate.dispose();
    throw error;
  }
}
