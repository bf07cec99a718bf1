/**
 * Creating isolates, and the two checks a host process has to pass before it serves executions:
 * that isolates run in it at all (assertNoNodeSnapshot), and which of the engine behaviours the
 * sandbox's specification assumes the installed isolated-vm actually has (assertEngineServesSandbox;
 * docs/sandbox.md, "Deviations from the specification, and why").
 */
import { ENGINE_PROBE_TIMEOUT } from '@supolka/codemode-protocol/wire';
import ivm from 'isolated-vm';
import type { CompiledCode } from './modules/code-cache.ts';
import { installedIsolatedVm } from './setup/engine-addon.ts';

/**
 * Loads a module for import(): answers `["loaded", token]` once the module evaluated (its namespace
 * then waits inside the isolate under that token) or `["thrown", name, message]`.
 */
export type Loader = (referrer: string, specifier: string) => Promise<string>;

export interface IsolateHandle {
  readonly isolate: ivm.Isolate;
  readonly context: ivm.Context;
  /** The context's global object, which `globalThis` inside the isolate also names. */
  readonly jail: ivm.Reference<Record<string, unknown>>;
  readonly memoryLimit: number;
  /** The loader slot: linkModules fills it once the linker for the run exists. */
  loader: Loader | undefined;
  /** The executionId once a run retained this isolate (handles.ts), so a memory death can be attributed. */
  retainedAs?: string | undefined;
  /** The timeout of a retained execution's invocations (handles.ts), to tell a failed termination past it. */
  timeout?: number | undefined;
}

export interface CreateIsolateOptions {
  /** The engine's own heap limit, in megabytes. */
  readonly memoryLimit: number;
  /** The startup snapshot every isolate of this process is restored from. */
  readonly snapshot?: ivm.ExternalCopy<ArrayBuffer>;
  /**
   * Called when V8 has lost control of this isolate (a fatal out-of-memory); the default ends the
   * process on purpose. It receives the handle, so the host knows whose isolate it was.
   */
  readonly onCatastrophicError?: CatastrophicErrorHandler;
}

export type CatastrophicErrorHandler = (message: string, handle: IsolateHandle) => void;

/**
 * Every isolate of this process that is not disposed yet: what the process's memory backstop
 * (pool/child/backstop.ts) sums the limits of, and reads the CPU time of to find the one allocating.
 */
const live = new Set<IsolateHandle>();

export function liveIsolates(): IsolateHandle[] {
  for (const handle of live) if (handle.isolate.isDisposed) live.delete(handle);
  return [...live];
}

/**
 * A catastrophic error means V8 can no longer vouch for any isolate in the process. Ending the
 * process deliberately lets the pool replace it, instead of leaving it half alive.
 */
export function endProcessOnCatastrophicError(message: string, _handle?: IsolateHandle): void {
  process.stderr.write(`isolated-vm reported a catastrophic engine error; ending the process: ${message}\n`);
  process.abort();
}

export function createIsolate(options: CreateIsolateOptions): IsolateHandle {
  const onCatastrophicError = options.onCatastrophicError ?? endProcessOnCatastrophicError;
  // isolated-vm calls this on the process's main thread while the isolate's own thread waits for
  // ever, so the host can still speak before it ends the process.
  let created: IsolateHandle | undefined;
  const isolate = new ivm.Isolate({
    memoryLimit: options.memoryLimit,
    onCatastrophicError: (message: string) => {
      if (created) onCatastrophicError(message, created);
      else endProcessOnCatastrophicError(message);
    },
    ...(options.snapshot ? { snapshot: options.snapshot } : {}),
  });
  try {
    const context = isolate.createContextSync();
    const jail = context.global;
    // One global object for host-side installs and user code alike.
    jail.setSync('globalThis', jail.derefInto());
    created = { isolate, context, jail, memoryLimit: options.memoryLimit, loader: undefined };
    live.add(created);
    return created;
  } catch (error) {
    isolate.dispose();
    throw error;
  }
}

/**
 * Disposed isolates whose thread may still be running, each with a promise that settles once it
 * stopped. dispose() returns at once, but a builtin that never checks for interrupts (`fill` over
 * 2 ** 27 elements) runs on for many seconds; a call queued just before disposal settles (answered
 * or rejected) only when that thread is free: 0.3 ms for an idle isolate, about 10 ms for a loop
 * the termination stops, never while such a builtin runs (isolated-vm 6.2.0, measured here).
 */
const stopping = new Map<IsolateHandle, Promise<void>>();

export function stoppingIsolates(): Map<IsolateHandle, Promise<void>> {
  return new Map(stopping);
}

export function disposeIsolate(handle: IsolateHandle): void {
  live.delete(handle);
  if (handle.isolate.isDisposed) return;
  const settle = () => {
    stopping.delete(handle);
  };
  let stopped: Promise<void> | undefined;
  try {
    stopped = handle.context.eval('undefined').then(settle, settle);
  } catch {
    // The context was released already: nothing can be queued, and nothing of it runs.
  }
  if (stopped) stopping.set(handle, stopped);
  handle.isolate.dispose();
}

/**
 * Runs 1 + 1 in a fresh isolate. Whether a process can host isolates shows in whether one runs,
 * not in process.execArgv; processes that create isolates run with --no-node-snapshot (adr/0002).
 */
export function assertNoNodeSnapshot(): void {
  let isolate: ivm.Isolate | undefined;
  try {
    isolate = new ivm.Isolate({ memoryLimit: 8 });
    const answer = isolate.compileScriptSync('1 + 1').runSync(isolate.createContextSync());
    if (answer !== 2) throw new Error(`1 + 1 came back as ${String(answer)}`);
  } catch (cause) {
    throw new Error(
      'This process cannot run isolates. Start it with --no-node-snapshot (the pool forks its children with it).',
      { cause },
    );
  } finally {
    isolate?.dispose();
  }
}

/**
 * The engine behaviours the sandbox's specification assumes, each with the fallback used without it.
 * `adopted` says whether the sandbox uses the behaviour where the engine has it; where it does not,
 * the fallback stays in force on every engine, and the report lists it. isolated-vm 7.0.2 has the
 * first three: the sandbox once read the first one's presence as leave import() alone, registered no
 * callback, and every import() of a program answered the engine's "Not supported" there. A native
 * import() path was written against 7.0.2 and is not adopted: a program spinning on import() held
 * a pool child's host thread past its heartbeat (adr/0002, which has the measurements).
 */
export const ENGINE_PROBES = {
  dynamicImportCallback: {
    behaviour: 'answer import() through the embedder callback',
    fallback: 'import() expressions are rewritten into calls of the sandbox loader at compile time',
    adopted: false,
    probe: probeDynamicImportCallback,
  },
  unhandledRejectionCallback: {
    behaviour: 'report an unhandled rejection to the embedder',
    fallback: 'a rejection thrown out of a call the sandbox makes for itself is dropped and the call retried',
    adopted: false,
    probe: probeUnhandledRejectionCallback,
  },
  settleAfterTopLevelAwait: {
    behaviour: 'settle evaluate once a module has finished',
    fallback:
      'completion is read only from the __resultJson accessor; module top levels may not wait on the host',
    adopted: false,
    probe: probeSettleAfterTopLevelAwait,
  },
  moduleCodeCache: {
    behaviour: "read a module's V8 code cache",
    fallback: 'modules compile from source, and no code cache is made or kept for them',
    adopted: true,
    probe: probeModuleCodeCache,
  },
} as const;

/** Whether the sandbox runs on the behaviour itself rather than its fallback, on this engine. */
export function behaviourInUse(report: EngineReport | undefined, name: EngineBehaviour): boolean {
  return ENGINE_PROBES[name].adopted && report?.behaviours[name].present === true;
}

export type EngineBehaviour = keyof typeof ENGINE_PROBES;

export interface EngineReport {
  readonly isolatedVm: string;
  readonly node: string;
  /** Each behaviour, whether the engine has it, and why not when it does not. */
  readonly behaviours: Record<EngineBehaviour, { readonly present: boolean; readonly reason?: string }>;
  /** The fallbacks in force, one sentence each: a missing behaviour's, and a present one's the sandbox does not adopt. */
  readonly fallbacks: readonly string[];
}

export interface EngineCheckOptions {
  /** How long all probes together may take; a probe still running then counts as missing. */
  readonly timeout?: number;
  /** Replaces probes (tests use this to make one hang). */
  readonly probes?: Partial<Record<EngineBehaviour, () => Promise<void>>>;
}

/**
 * Checks the process can run isolates, then performs each behaviour the chapter assumes. The
 * probes run together under one deadline. A missing behaviour selects its fallback instead of
 * failing (adr/0002); the report says which are in force. Only a process that cannot run isolates
 * at all fails the check.
 */
export async function assertEngineServesSandbox(options: EngineCheckOptions = {}): Promise<EngineReport> {
  assertNoNodeSnapshot();
  const timeout = options.timeout ?? ENGINE_PROBE_TIMEOUT;
  const names = Object.keys(ENGINE_PROBES) as EngineBehaviour[];
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeout);
  });
  try {
    const outcomes = await Promise.all(
      names.map(async (name) => {
        const probe = options.probes?.[name] ?? ENGINE_PROBES[name].probe;
        const outcome = await Promise.race([
          probe().then(
            () => 'present' as const,
            (error: unknown) => error,
          ),
          deadline,
        ]);
        if (outcome === 'present') return [name, { present: true }] as const;
        const reason =
          outcome === 'timeout' ? `the probe did not answer within ${timeout} ms` : describe(outcome);
        return [name, { present: false, reason }] as const;
      }),
    );
    const behaviours = Object.fromEntries(outcomes) as EngineReport['behaviours'];
    return {
      isolatedVm: isolatedVmVersion(),
      node: process.version,
      behaviours,
      fallbacks: names
        .filter((name) => !behaviours[name].present || !ENGINE_PROBES[name].adopted)
        .map((name) => ENGINE_PROBES[name].fallback),
    };
  } finally {
    clearTimeout(timer);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The isolated-vm release in use, from its package.json: the module itself exports no version. */
export function isolatedVmVersion(): string {
  return installedIsolatedVm() ?? 'unknown';
}

async function withIsolate<T>(
  options: ivm.IsolateOptions,
  body: (isolate: ivm.Isolate, context: ivm.Context) => Promise<T>,
): Promise<T> {
  // Releases before 7.0.2 accept and ignore the callbacks their typings do not declare.
  const isolate = new ivm.Isolate({ memoryLimit: 8, ...options });
  try {
    return await body(isolate, await isolate.createContext());
  } finally {
    isolate.dispose();
  }
}

/**
 * The callback must fire for import(), and the engine must do with its answer what the native path
 * relies on (modules.ts): a module answered later, through a promise, hands the program that
 * module's own namespace; an errored module rejects the import() with the very error it threw.
 */
async function probeDynamicImportCallback(): Promise<void> {
  const asked: string[] = [];
  const modules = new Map<string, ivm.Module>();
  const outcome = await withIsolate(
    {
      importModuleDynamically: async (specifier, referrer) => {
        asked.push(`${specifier} from ${referrer}`);
        await new Promise((resolve) => setTimeout(resolve, 1));
        const module = modules.get(specifier);
        if (module === undefined) throw new Error(`the probe has no module ${specifier}`);
        return module;
      },
    },
    async (isolate, context) => {
      const sources = [
        ['value', 'export const value = 42;'],
        ['thrower', 'globalThis.thrown = new RangeError("probe"); throw globalThis.thrown;'],
      ] as const;
      for (const [name, source] of sources) {
        const module = await isolate.compileModule(source, { filename: name });
        await module.instantiate(context, () => {
          throw new Error('the probe modules have no imports');
        });
        await module.evaluate({ promise: true }).catch(() => undefined);
        modules.set(name, module);
      }
      const importer = await isolate.compileModule(
        `const { value } = await import('value');
        const caught = await import('thrower').then(() => undefined, (error) => error);
        globalThis.outcome = JSON.stringify([value, caught === globalThis.thrown]);`,
        { filename: 'importer' },
      );
      await importer.instantiate(context, () => {
        throw new Error('the probe importer has no static imports');
      });
      await importer.evaluate({ promise: true });
      return context.eval('globalThis.outcome');
    },
  );
  if (asked.length === 0) throw new Error(`the callback never fired; the probe read ${String(outcome)}`);
  if (asked[0] !== 'value from importer') throw new Error(`the callback was asked ${asked[0]}`);
  if (outcome !== '[42,true]') throw new Error(`import() answered ${String(outcome)}`);
}

async function probeUnhandledRejectionCallback(): Promise<void> {
  let reported = false;
  await withIsolate(
    {
      onUnhandledRejection: () => {
        reported = true;
      },
    },
    async (_isolate, context) => {
      try {
        await context.eval('Promise.reject(new Error("probe")); undefined');
        await context.eval('1');
      } catch (error) {
        throw new Error(`the rejection was thrown out of a later call: ${describe(error)}`);
      }
    },
  );
  if (!reported) throw new Error('the callback never fired');
}

async function probeSettleAfterTopLevelAwait(): Promise<void> {
  const after = await withIsolate({}, async (isolate, context) => {
    await context.global.set(
      'hostWait',
      new ivm.Reference(() => new Promise((resolve) => setTimeout(resolve, 5))),
    );
    const module = await isolate.compileModule(
      'await hostWait.apply(undefined, [], { result: { promise: true } }); globalThis.after = true;',
    );
    await module.instantiate(context, () => {
      throw new Error('the probe module has no imports');
    });
    await module.evaluate({ promise: true });
    return context.eval('globalThis.after === true');
  });
  if (after !== true) throw new Error('evaluate settled before the work past the await ran');
}

function probeModuleCodeCache(): Promise<void> {
  return assertReadsCodeCache(
    (isolate, source, options) =>
      isolate.compileModule(source, options) as Promise<ivm.Module & CompiledCode>,
  );
}

/**
 * Throws unless `compile` reads the V8 code cache it is offered: a source compiled with its own
 * blob must take it, and with a zeroed copy must refuse it; an engine that refuses neither never
 * read the blob. isolated-vm 6.2.0 passes a module's blob to V8 without asking it to consume one
 * (a script's it consumes), so a module is parsed in full whatever it is offered. Each compile
 * gets an isolate of its own: within one, V8 answers a script it compiled before from memory,
 * without reading the blob offered.
 */
export async function assertReadsCodeCache(
  compile: (isolate: ivm.Isolate, source: string, options: ivm.CompileModuleOptions) => Promise<CompiledCode>,
): Promise<void> {
  // Both a script and a module.
  const source = '[1, 2, 3].map((value) => value * 2);';
  const compileAlone = (options: ivm.CompileModuleOptions) =>
    withIsolate({}, (isolate) => compile(isolate, source, options));
  const made = await compileAlone({ produceCachedData: true });
  if (made.cachedData === undefined) throw new Error('the compile made no code cache');
  const blob = made.cachedData.copy();
  made.cachedData.release();
  const refused = async (bytes: ArrayBuffer) => {
    const offered = new ivm.ExternalCopy(bytes);
    try {
      return (await compileAlone({ cachedData: offered })).cachedDataRejected;
    } finally {
      offered.release();
    }
  };
  if ((await refused(blob)) !== false) throw new Error('the compile refused its own code cache');
  new Uint8Array(blob).fill(0);
  if ((await refused(blob)) !== true) {
    throw new Error('a zeroed code cache compiled without being refused, so the engine never read it');
  }
}
