/**
 * Sandbox.execute: one execution, end to end, in the order docs/sandbox.md follows. Where user code
 * is at fault the promise resolves and never rejects: a bad provider name, a syntax error, a module
 * the map cannot resolve, a timeout and a plain throw all come back inside the envelope.
 */
import {
  CancelledError,
  CodemodeError,
  checkSourceLimits,
  DEFAULT_MEMORY_LIMIT,
  DEFAULT_TIMEOUT,
  type EnvelopeCode,
  ERROR_NAME_LIMIT,
  type ExecuteRequest,
  type ExecuteResult,
  ExecutionTimeoutError,
  type FaultCode,
  type HostFunctions,
  type HttpRequest,
  type HttpResponse,
  isFaultCode,
  type LogLine,
  MAX_DELAY,
  MemoryLimitError,
  type ModuleMap,
  outboundMode,
  type ProviderDescriptor,
  separateImports,
  USER_ERROR_DETAILS,
  validateProviders,
} from '@supolka/codemode-protocol/wire';
import type ivm from 'isolated-vm';
import {
  Durability,
  type DurabilityOptions,
  type DurableExecuteResult,
  type DurableRunEnd,
  type ResumeAnswers,
  SETTLE_MOMENT,
} from '../durable/durability.ts';
import { insideDurableCall, servedNested } from '../durable/pause.ts';
import { REPLAY_DIVERGED } from '../durable/replay-texts.ts';
import { DurableSession, type DurableStop } from '../durable/session.ts';
import type { DurableStart } from '../durable/start.ts';
import { DURABLE_RETAINS_MESSAGE, NESTED_DURABLE_MESSAGE, NESTED_RESUME_MESSAGE } from '../durable/texts.ts';
import { checkBundle, type PackageBundle } from '../packages/bundle.ts';
import { RunClock, wrapHostWait } from './bounds/clock.ts';
import { DEFAULT_GRACE } from './bounds/grace.ts';
import { monotonicNow } from './bounds/monotonic.ts';
import { ConsoleCapture } from './console.ts';
import { type BuiltEntry, buildEntry } from './entry/entry.ts';
import { INTERNAL_FILENAME } from './entry/internal-module.ts';
import { preparationErrorKind } from './errors/error-kind.ts';
import { notAFunctionHint, statementsHint } from './errors/hint.ts';
import { lineCount, type PlacedPiece, PositionMap, positionAt } from './errors/positions.ts';
import { authorPositionInMessage, programPosition, programStack, type StackSources } from './errors/stack.ts';
import { chooseOutbound, type Outbound, type OutboundFunction, outboundOf } from './fetch.ts';
import { captureInvokeReference, RetainedHandles } from './handles.ts';
import {
  behaviourInUse,
  type CatastrophicErrorHandler,
  disposeIsolate,
  type EngineReport,
} from './isolate.ts';
import { BoundedCodeCache, type CodeCache } from './modules/code-cache.ts';
import { buildModuleMap } from './modules/module-map.ts';
import { PACKAGE_CODE_CACHE_BUDGET, PackageModules } from './modules/packages.ts';
import { ENTRY_NAME, linkModules } from './modules.ts';
import type { OwnEndpoint } from './outbound/address-policy.ts';
import { normalizeSpecifier } from './resolver.ts';
import { readRuntimeSnapshot } from './runtime.ts';
import { type PreparedIsolate, prepareIsolate } from './setup/prepared-isolate.ts';
import { type Warmed, WarmPackages, warmUp, warmWindow } from './setup/warm-packages.ts';
import { ExportNameReader, NAMES_WORKER } from './sources/cjs-exports.ts';
import {
  checkSourceNesting,
  compileJavaScriptFirst,
  ERASURE_WORKER,
  eraseTypeScriptModules,
} from './sources/preparation.ts';
import { DeadlineWorker } from './threads/deadline-worker.ts';
import { type RunOutcome, runWithTimeouts } from './timeout.ts';

/**
 * The wire part of an execution: the protocol's execute request, as the pool's child receives it.
 * The sandbox checks the provider names and the source limits itself and applies no schema (an
 * in-process caller has none in front of it); a field left out takes the sandbox's default: the
 * run bound 60000 ms, the memory limit 128 MB, TypeScript erased, `outbound` disabled.
 */
export type SandboxWire = Omit<ExecuteRequest, 'providers'> & {
  readonly providers?: readonly ProviderDescriptor[] | undefined;
  /** Journal the run so a tool can pause it (docs/durable.md); needs the sandbox's `durable` option. */
  readonly durable?: boolean | undefined;
};

/** The host part of an execution: what never crosses a wire (functions, signal, callbacks, the address opt-ins). */
export interface SandboxHost extends HostFunctions<OutboundFunction> {
  /** Headroom past the bound for the engine's timer and the host race (default DEFAULT_GRACE). */
  readonly grace?: number | undefined;
  /** Outermost edges of waits on the caller, for the layer above to pause with the run. */
  readonly onHostWaitChanged?: ((waiting: boolean) => void) | undefined;
  /**
   * Each console line as the host captures it, within the capture bound (its closing warning
   * too), synchronously: the program's console call returns once it did. A throw is dropped.
   */
  readonly onConsole?: ((line: LogLine) => void) | undefined;
  /** Let native requests reach link-local addresses (cloud metadata endpoints). Off by default. */
  readonly allowLinkLocal?: boolean | undefined;
  /** Let native requests reach loopback addresses and `localhost` names. Off by default. */
  readonly allowLoopback?: boolean | undefined;
  /** Let native requests reach private addresses (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7). Off by default. */
  readonly allowPrivate?: boolean | undefined;
  /** Endpoints native requests never reach, whatever the opt-ins: a server's own listen addresses. */
  readonly ownEndpoints?: readonly OwnEndpoint[] | undefined;
  /** Aborting disposes the isolate at once; the envelope comes back with code CANCELLED. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Whom a durable run is for, from the caller's own authentication: its token resumes only for
   * the same principal (docs/durable.md, "The principal"). Unnamed, every caller is one audience.
   */
  readonly principal?: string | undefined;
}

/**
 * The one-object form, for a caller in this process: both parts in one object, `outbound` written
 * as the tri-state. null refuses, a function proxies through the caller, undefined written
 * explicitly performs natively; a request without the key gets null (no network).
 */
export type SandboxExecuteRequest = Omit<SandboxWire, 'outbound'> &
  Omit<SandboxHost, 'outbound'> & {
    readonly outbound?: Outbound;
  };

export type { ExecuteResult };

export interface ExecutionSettled {
  readonly durationMs: number;
  readonly outcome: 'success' | 'error';
  readonly code?: EnvelopeCode;
}

export interface SandboxOptions {
  /**
   * The process's V8 code cache; identical sources compile once (default: a bounded cache). Used
   * only when the engine report says the engine reads a module's cache (moduleCodeCache).
   */
  readonly codeCache?: CodeCache;
  /** The one hook the sandbox offers the layer above: once per execution; a throw from it is dropped. */
  readonly onExecutionSettled?: (settled: ExecutionSettled) => void;
  /** Keep one isolate ready for the next request (default true). */
  readonly prepareAhead?: boolean;
  /** Called each time an isolate prepared ahead is ready; a throw from it is dropped. */
  readonly onPrepared?: () => void;
  /** The engine report; selects the fallbacks. Without one, every fallback is in force. */
  readonly engine?: EngineReport;
  readonly onCatastrophicError?: CatastrophicErrorHandler;
  /** Called when a retained execution's timer work passed its bound and it was disposed, with why. */
  readonly onRetainedClosed?: (executionId: string, reason: string) => void;
  /**
   * Called once when a retained execution ends, whatever ended it (closeHandles, the timer bound,
   * an invocation past its bounds, dispose): what the caller kept for its invocations can go.
   */
  readonly onRetainedEnded?: (executionId: string) => void;
  /** The key ring (and token options) of durable runs; without it a request for one is refused. */
  readonly durable?: DurabilityOptions;
  /**
   * The packages programs may import (docs/packages.md), as @supolka/codemode-packages bundled
   * them; usePackages sets them later. A request's module map key of the same name wins.
   */
  readonly packages?: PackageBundle;
  /**
   * Where the packages' scripts' code cache lives (default: a BoundedCodeCache of
   * PACKAGE_CODE_CACHE_BUDGET). V8 consumes a script's blob in every engine served, so a package is
   * compiled from source once per cache; bench/packages.ts passes one that keeps nothing.
   */
  readonly packageCodeCache?: CodeCache;
  /**
   * Hold the packages recent runs imported ready in the isolate prepared ahead (default true: those
   * the last WARM_WINDOW runs imported; a whole number: those the last that many runs imported;
   * false or 0: none). Their code runs off the request's path, and counts against the next
   * program's memory limit whether it imports them or not (setup/warm-packages.ts).
   */
  readonly warmPackages?: boolean | number;
}

export class Sandbox {
  // Read in a field initializer, so a process that composes its sandbox at startup holds the
  // snapshot before its first request arrives.
  readonly #snapshot = readRuntimeSnapshot();
  /** Undefined where the engine ignores a module's cache: a blob made for it would only cost. */
  readonly #codeCache: CodeCache | undefined;
  readonly #options: SandboxOptions;
  #prepared: PreparedIsolate | undefined;
  #nextMemoryLimit = DEFAULT_MEMORY_LIMIT;
  #preparing: NodeJS.Immediate | undefined;
  #disposed = false;
  readonly #handles = new RetainedHandles(
    (executionId, reason) => this.#options.onRetainedClosed?.(executionId, reason),
    (executionId) => this.#options.onRetainedEnded?.(executionId),
  );
  readonly #eraser = new DeadlineWorker({ worker: ERASURE_WORKER });
  readonly #namesWorker = new DeadlineWorker({ worker: NAMES_WORKER });
  readonly #names = new ExportNameReader(this.#namesWorker);
  readonly #durability: Durability | undefined;
  #packages: PackageModules | undefined;
  /** The packages' scripts' code cache: V8 consumes a script's blob in every engine served. */
  readonly #scriptCache: CodeCache;
  /** The specifiers recent runs imported, which the next prepared isolate holds ready. */
  readonly #warm: WarmPackages;
  /** What each prepared isolate holds ready of the packages, when it holds any. */
  readonly #warmed = new WeakMap<PreparedIsolate, Warmed>();

  constructor(options: SandboxOptions = {}) {
    this.#options = options;
    this.#warm = new WarmPackages(warmWindow(options.warmPackages));
    this.#scriptCache = options.packageCodeCache ?? new BoundedCodeCache(PACKAGE_CODE_CACHE_BUDGET);
    if (options.packages !== undefined) this.usePackages(options.packages);
    this.#durability = options.durable === undefined ? undefined : new Durability(options.durable);
    // A report made before the probe existed has no such row: the cache stays off.
    this.#codeCache =
      options.engine?.behaviours.moduleCodeCache?.present === true
        ? (options.codeCache ?? new BoundedCodeCache())
        : undefined;
    if (options.prepareAhead !== false) this.#scheduleNext();
  }

  /**
   * Serves programs' imports from `bundle` from the next execution on (a pool child receives its
   * executor's bundle once, after it started). Throws when `bundle` is not one this sandbox reads.
   */
  usePackages(bundle: PackageBundle): void {
    this.#packages = new PackageModules(checkBundle(bundle));
  }

  /** The memory limit of the isolate prepared for the next request, or undefined when none is ready. */
  get preparedMemoryLimit(): number | undefined {
    return this.#prepared?.handle.memoryLimit;
  }

  get snapshotBytes(): number {
    return this.#snapshot.copy().byteLength;
  }

  /**
   * One execution, of the request as it travels: its wire part and its host part. The pool's
   * child hands down the wire request it received as it is.
   */
  execute(wire: SandboxWire & { readonly durable: true }, host: SandboxHost): Promise<DurableExecuteResult>;
  execute(wire: SandboxWire, host: SandboxHost): Promise<ExecuteResult>;
  /** One execution, of the one-object form. */
  execute(request: SandboxExecuteRequest & { readonly durable: true }): Promise<DurableExecuteResult>;
  execute(request: SandboxExecuteRequest): Promise<ExecuteResult>;
  async execute(
    first: SandboxWire | SandboxExecuteRequest,
    second?: SandboxHost,
  ): Promise<DurableExecuteResult> {
    const [wire, outer] = second ? [first as SandboxWire, second] : asParts(first as SandboxExecuteRequest);
    // An execution started from a durable run's tool call is nested: its tools cannot pause the
    // outer run, and it cannot be durable itself (docs/durable.md, "Nested executions").
    const host = insideDurableCall() ? nestedHost(outer) : outer;
    if (wire.durable !== true) return (await this.#execute(wire, host, undefined)).envelope;
    if (host !== outer) return faultEnvelope('BAD_REQUEST', NESTED_DURABLE_MESSAGE);
    const refusal = this.#durableRefusal(wire);
    if (refusal !== undefined) return refusal;
    const durability = this.#durability as Durability;
    const start = durability.start();
    const end = await this.#execute(wire, host, new DurableSession(start));
    return durability.envelopeOf(end, start, wire, host.principal);
  }

  /**
   * A durable run from a start made elsewhere, its pause handed back unsealed: a pool child's
   * entry, whose parent holds the key ring, opened the token and seals the journal (durable/start.ts).
   * The request must ask for durability and may not retain handles, as execute's would.
   */
  async runDurable(wire: SandboxWire, host: SandboxHost, start: DurableStart): Promise<DurableRunEnd> {
    if (wire.durable !== true || wire.retainHandles === true)
      return { envelope: faultEnvelope('BAD_REQUEST', DURABLE_START_MESSAGE) };
    return this.#execute(wire, host, new DurableSession(start));
  }

  /**
   * Resumes a paused durable run from its token (docs/durable.md, "Pausing and resuming"): the same request
   * and principal it paused under, and an answer for each pending call, by sequence. The program
   * runs again in a fresh isolate, served the journal, then live. A token the token module refuses
   * comes back as an envelope with that module's code; a run that diverges from its journal, with
   * REPLAY_DIVERGED. Like execute, it never rejects over what the caller sent.
   */
  resume(
    token: unknown,
    answers: ResumeAnswers,
    wire: SandboxWire,
    host: SandboxHost,
  ): Promise<DurableExecuteResult>;
  resume(
    token: unknown,
    answers: ResumeAnswers,
    request: SandboxExecuteRequest,
  ): Promise<DurableExecuteResult>;
  async resume(
    token: unknown,
    answers: ResumeAnswers,
    first: SandboxWire | SandboxExecuteRequest,
    second?: SandboxHost,
  ): Promise<DurableExecuteResult> {
    const [wire, host] = second ? [first as SandboxWire, second] : asParts(first as SandboxExecuteRequest);
    if (insideDurableCall()) return faultEnvelope('BAD_REQUEST', NESTED_RESUME_MESSAGE);
    const refusal = this.#durableRefusal(wire);
    if (refusal !== undefined) return refusal;
    const durability = this.#durability as Durability;
    const opened = await durability.open(token, answers, wire, host.principal);
    if (!('start' in opened)) return { result: undefined, logs: [], ...opened };
    const end = await this.#execute(wire, host, new DurableSession(opened.start, opened.token));
    return durability.envelopeOf(end, opened.start, wire, host.principal);
  }

  #durableRefusal(wire: SandboxWire): DurableExecuteResult | undefined {
    if (this.#durability === undefined) {
      return faultEnvelope(
        'BAD_REQUEST',
        'A durable run needs a key ring: construct the sandbox with { durable: { keys } }.',
      );
    }
    if (wire.retainHandles === true) return faultEnvelope('BAD_REQUEST', DURABLE_RETAINS_MESSAGE);
    return undefined;
  }

  async #execute(
    wire: SandboxWire,
    host: SandboxHost,
    durable: DurableSession | undefined,
  ): Promise<DurableRunEnd> {
    const startedAt = monotonicNow();
    // 1. Capture first, so a run the engine kills later still comes back with what it wrote.
    const capture = new ConsoleCapture(host.onConsole, durable?.skipLines);
    const notes: string[] = [];
    const outcome = await this.#run(wire, host, capture, notes, durable);
    if (durable?.stop !== undefined) return this.#stopped(durable, capture, startedAt);
    const envelope: ExecuteResult = { result: outcome.result, logs: capture.lines };
    if (outcome.error !== undefined) envelope.error = outcome.error;
    if (outcome.code !== undefined) envelope.code = outcome.code;
    if (outcome.executionId !== undefined) envelope.executionId = outcome.executionId;
    // The kind of what user code met, and only when user code ended the run: `code` says the rest.
    if (outcome.error !== undefined && outcome.code === undefined) {
      const details = envelope as unknown as Record<string, unknown>;
      for (const key of USER_ERROR_DETAILS) if (outcome[key] !== undefined) details[key] = outcome[key];
    }
    // What the result or a tool call's arguments lost, whatever ended the run.
    if (notes.length > 0) envelope.notes = notes;
    this.#settled(startedAt, envelope);
    return { envelope };
  }

  /** The end of a durable run that paused (its journal, unsealed) or diverged from its journal. */
  #stopped(durable: DurableSession, capture: ConsoleCapture, startedAt: number): DurableRunEnd {
    const stop = durable.stop as DurableStop;
    if (stop.kind === 'diverged') {
      const envelope: ExecuteResult = {
        result: undefined,
        logs: capture.lines,
        error: stop.message,
        code: REPLAY_DIVERGED,
      };
      this.#settled(startedAt, envelope);
      return { envelope };
    }
    const written = capture.written - durable.skipLines;
    capture.stop();
    const journal = durable.paused(written);
    const unsealable = durable.unsealable;
    if (unsealable !== undefined) {
      // Its fetch bodies, or its whole journal, were not kept: it cannot be sealed, and the pause is an error.
      const envelope: ExecuteResult = {
        result: undefined,
        logs: capture.lines,
        error: unsealable.message,
        code: unsealable.code,
      };
      this.#settled(startedAt, envelope);
      return { envelope };
    }
    const envelope: ExecuteResult = { result: undefined, logs: capture.lines };
    this.#settled(startedAt, envelope);
    return { envelope, paused: { journal, request: stop.request } };
  }

  async #run(
    wire: SandboxWire,
    host: SandboxHost,
    capture: ConsoleCapture,
    notes: string[],
    durable: DurableSession | undefined,
  ): Promise<RunOutcome> {
    const providers = wire.providers ?? [];
    const timeout = wire.timeout ?? DEFAULT_TIMEOUT;
    const memoryLimit = wire.memoryLimit ?? DEFAULT_MEMORY_LIMIT;
    const outbound = outboundOf(wire.outbound, host.outbound);
    // 2. Provider names and the source limits, before any isolate exists.
    try {
      validateProviders(providers);
      checkSourceLimits(wire.code, wire.modules);
    } catch (error) {
      return failure(error);
    }
    if (host.signal?.aborted) return cancelled(host.signal);
    if (this.#disposed)
      return { error: 'The sandbox was disposed before the execution started.', code: 'INTERNAL' };

    // 3. The isolate, restored from the snapshot under the request's memory limit.
    let prepared: PreparedIsolate;
    try {
      prepared = this.#take(memoryLimit, durable !== undefined);
    } catch (error) {
      return failure(error);
    }
    const { handle, slots } = prepared;
    let clock: RunClock | undefined;
    let abort: (() => void) | undefined;
    let retained = false;
    try {
      // 4. The run clock, in the slot the wrapped host functions pause.
      clock = new RunClock(handle.isolate, {
        ...(wire.countHostWaits !== undefined ? { countHostWaits: wire.countHostWaits } : {}),
        ...(host.onHostWaitChanged ? { onHostWaitChanged: host.onHostWaitChanged } : {}),
      });
      slots.clock.set(clock);
      // 5. The console sink, and where notes of lost values go.
      slots.console = capture;
      slots.notes = notes;
      if (wire.consoleFormat === 'inspect') slots.consoleFormat('inspect');
      // 6. The outbound choice (the runtime and, 7., the timers were installed when the isolate was prepared).
      slots.outbound = chooseOutbound(outbound, slots.clock, {
        allowLinkLocal: host.allowLinkLocal === true,
        allowLoopback: host.allowLoopback === true,
        allowPrivate: host.allowPrivate === true,
        ownEndpoints: host.ownEndpoints ?? [],
      });
      // 8. The caller's dispatch, pausing the clock while it runs.
      slots.dispatch.dispatch = host.dispatch ? wrapHostWait(slots.clock, host.dispatch) : undefined;
      // A durable run's calls go through its session, and its random values come from its seed.
      slots.dispatch.durable = durable;
      slots.random = durable?.random;
      // 9. The entry module around the request's imports and arrow. No host-side parser reads a
      // source the nesting scan has not passed, and .ts modules are erased under the run's bound
      // (sources/preparation.ts); the code itself is compiled JavaScript first, below.
      const typescript = wire.typescript !== false;
      const modules = buildModuleMap(wire.modules);
      checkSourceNesting(wire.code, modules);
      const runClock = clock;
      const left = () => timeout - runClock.elapsed();
      const erased = typescript ? await eraseTypeScriptModules(modules, this.#eraser, left()) : undefined;
      if (typescript && erased === undefined) return timedOut(timeout);
      // The names each CommonJS facade exports, read off the sources under the same bound.
      const imports = () => separateImports(wire.code).imports.join('\n');
      const packages = this.#packages;
      const facades = await this.#names.facadeNames(modules, imports, erased, left(), packages);
      if (facades === undefined) return timedOut(timeout);
      // The entry last built, with the code it was built from, for positions in the author's code.
      let placed: { code: string; bodyStart: number; built: BuiltEntry } | undefined;
      const entrySource = (code: string) => {
        const { imports, body } = separateImports(code);
        const built = buildEntry({
          imports,
          body,
          providers,
          timeout,
          retainHandles: wire.retainHandles === true,
          ...(durable ? { durable: { seed: durable.seed, startedAt: durable.startedAt } } : {}),
        });
        placed = { code, bodyStart: code.length - body.length, built };
        return built.source;
      };
      let spellings: Map<string, string> | undefined;
      const sources = (): StackSources => ({
        entryName: ENTRY_NAME,
        entry: placed ? entryPositions(placed.code, placed.bodyStart, placed.built) : new PositionMap([]),
        moduleKey: (name) => {
          if (name === INTERNAL_FILENAME || !modules.has(name)) return undefined;
          spellings ??= requestSpellings(wire.modules);
          return spellings.get(name) ?? name;
        },
      });
      // 10. The linker over the module map, which fills the loader slot.
      const linker = linkModules(handle, {
        modules,
        ...(this.#codeCache ? { codeCache: this.#codeCache } : {}),
        internal: prepared.internal,
        // The sandbox answers import() only through the rewrite: it registers no engine callback,
        // so a release that has one (isolated-vm 7.0.2) still needs the rewrite (isolate.ts).
        rewriteImports: !behaviourInUse(this.#options.engine, 'dynamicImportCallback'),
        typescript,
        ...(erased ? { erased } : {}),
        facades,
        ...(packages
          ? {
              packages,
              scriptCache: this.#scriptCache,
              definedPackages: this.#warmed.get(prepared)?.defined ?? new Set(),
              warmFacades: this.#warmed.get(prepared)?.facades ?? new Map(),
              onPackageImported: (specifier: string) => this.#warm.imported(specifier),
            }
          : {}),
        loaded: (token) => slots.loaded.has(token),
      });
      const aborted = new Promise<RunOutcome>((resolve) => {
        if (!host.signal) return;
        abort = () => {
          resolve(cancelled(host.signal as AbortSignal));
          // Disposal is the only way to stop a wedged isolate; it happens after the outcome is set.
          queueMicrotask(() => disposeIsolate(handle));
        };
        host.signal.addEventListener('abort', abort, { once: true });
      });
      // The entry compiles as executor.js and instantiates against the linker's resolver.
      let entry: ivm.Module;
      try {
        const compiled = await compileJavaScriptFirst(wire.code, {
          compile: (code) => linker.compileEntry(entrySource(code)),
          ...(typescript
            ? { erase: (code: string) => this.#eraser.run([{ name: ENTRY_NAME, source: code }], left()) }
            : {}),
        });
        if (compiled === undefined) return timedOut(timeout);
        // An abort while the types were erased found no listener yet.
        if (host.signal?.aborted) return cancelled(host.signal);
        entry = linker.linkEntry(compiled);
      } catch (error) {
        // The memory limit can end the isolate while the graph links: a package's script runs then.
        if (handle.isolate.isDisposed && host.signal?.aborted !== true) {
          return failure(new MemoryLimitError(memoryLimit));
        }
        const failed = preparationFailure(linker.failure ?? error, sources);
        // The entry's own syntax error, not a module's: was the code written as statements?
        if (linker.failure !== undefined || failed.errorKind !== 'syntax' || placed === undefined)
          return failed;
        const arrow = placed.built.placed.at(-1)?.text ?? '';
        const hint = statementsHint(
          (source) => handle.isolate.compileScriptSync(source).release(),
          arrow,
          placed.code.slice(placed.bodyStart),
        );
        return hint === undefined ? failed : { ...failed, hint };
      }
      // 11. Evaluation under both timeouts, and the envelope read back.
      const grace = host.grace ?? DEFAULT_GRACE;
      const outcome = await Promise.race([
        runWithTimeouts({
          handle,
          entry,
          clock,
          timeout,
          grace,
          expireInIsolate: slots.expire,
          delivered: slots.delivered,
          started: () => slots.started,
          deliveredFailure: () => slots.deliveredFailure,
        }).then((ran) => withProgramStack(withNotAFunctionHint(ran, placed?.built.callLine), sources)),
        aborted,
        // A durable run ends at once when it pauses or diverges; #stopped makes its envelope.
        ...(durable ? [durable.stopped.then((): RunOutcome => ({ result: undefined }))] : []),
      ]);
      // Settlements on their way into a paused run's isolate get a moment to be observed, while
      // the isolate still exists to observe them.
      if (durable?.stop?.kind === 'paused') await durable.settleDeliveries(SETTLE_MOMENT);
      // A resume whose program settled before it made every call of its journal diverged.
      if (durable?.replaying === true && durable.stop === undefined && outcome.code !== 'CANCELLED') {
        durable.endedEarly();
      }
      // 12. A run that asked to retain handles and succeeded: the invoker's presence is the grant.
      if (wire.retainHandles === true && outcome.error === undefined && outcome.result === undefined) {
        const expiry = clock.expire(Math.min(timeout + grace, MAX_DELAY)).then(() => undefined);
        const taken = await Promise.race([
          captureInvokeReference(handle).then(
            (invoker) => ({ invoker }),
            // The engine disposed the isolate (its memory limit) before the handler was taken.
            (error: unknown) =>
              handle.isolate.isDisposed ? memoryExhausted(handle.memoryLimit) : failure(error),
          ),
          expiry.then(() => 'expired' as const),
          aborted.then(() => 'aborted' as const),
        ]);
        // The handler could not be taken within the bound: the isolate is still busy with work the
        // program left running past its return (a microtask loop, say), or the caller cancelled.
        // Either ends the run, said as such; the bare outcome would read as a run that returned no
        // handlers.
        if (taken === 'aborted') return cancelled(host.signal as AbortSignal);
        if (taken === 'expired') return timedOut(timeout);
        if (!('invoker' in taken)) return taken;
        const { invoker } = taken;
        if (invoker !== undefined) {
          retained = true;
          capture.stop();
          const executionId = this.#handles.retain(prepared, invoker, {
            timeout,
            grace,
            countHostWaits: wire.countHostWaits === true,
            proxied: typeof outbound === 'function',
          });
          return { ...outcome, executionId };
        }
      }
      return outcome;
    } catch (error) {
      return failure(error);
    } finally {
      if (abort) host.signal?.removeEventListener('abort', abort);
      slots.dispatch.durable = undefined;
      slots.random = undefined;
      if (retained) {
        // A retained execution keeps its isolate, its timers and its outbound choice; between
        // invocations no clock owns it and tool calls are refused.
        slots.dispatch.completed = true;
        slots.clock.clear();
        clock?.release();
      } else {
        // Guard off, clock slot emptied, clock released, and only then dispose: a host call settling
        // late meets a released clock instead of a disposed isolate.
        slots.dispatch.completed = true;
        slots.outbound = undefined;
        slots.abortOutbound();
        slots.clock.clear();
        clock?.release();
        slots.timers.cancelAll();
        // Off the caller's path: the envelope does not wait for the isolate's teardown.
        setImmediate(() => disposeIsolate(handle));
      }
      this.#warm.ran();
      this.#scheduleNext();
    }
  }

  /**
   * The prepared isolate when it fits the request, or a fresh one: never one that served before.
   * The next isolate is prepared at the limit of the latest request, so a caller that always asks
   * for the same limit always finds one ready; one prepared at another limit is disposed here.
   */
  #take(memoryLimit: number, durable: boolean): PreparedIsolate {
    this.#nextMemoryLimit = memoryLimit;
    const prepared = this.#prepared;
    this.#prepared = undefined;
    if (prepared !== undefined && !prepared.handle.isolate.isDisposed) {
      // A durable run journals what its code does: library code that ran ahead ran outside it.
      const fits = prepared.handle.memoryLimit === memoryLimit && !(durable && this.#warmed.has(prepared));
      if (fits) return prepared;
      disposeIsolate(prepared.handle);
    }
    // On the request's path: nothing is warmed here.
    return this.#prepare(memoryLimit);
  }

  #prepare(memoryLimit: number): PreparedIsolate {
    return prepareIsolate({
      memoryLimit,
      ...(this.#options.onCatastrophicError
        ? { onCatastrophicError: this.#options.onCatastrophicError }
        : {}),
    });
  }

  /** An isolate prepared ahead, holding ready the packages recent runs imported (setup/warm-packages.ts). */
  #prepareAhead(memoryLimit: number): PreparedIsolate {
    const prepared = this.#prepare(memoryLimit);
    const packages = this.#packages;
    const specifiers = this.#warm.specifiers;
    if (packages === undefined || specifiers.length === 0) return prepared;
    const warmed = warmUp(prepared.handle, packages, specifiers, this.#scriptCache, memoryLimit);
    if ('failed' in warmed) {
      if (warmed.failed !== undefined) this.#warm.refuse(warmed.failed);
      disposeIsolate(prepared.handle);
      return this.#prepare(memoryLimit);
    }
    if (warmed.loaded.length > 0) this.#warmed.set(prepared, warmed);
    return prepared;
  }

  /** Prepares the next isolate once the current work yields, so a request finds it ready. */
  #scheduleNext(): void {
    if (this.#options.prepareAhead === false || this.#disposed || this.#prepared || this.#preparing) return;
    this.#preparing = setImmediate(() => {
      this.#preparing = undefined;
      if (this.#disposed || this.#prepared) return;
      try {
        this.#prepared = this.#prepareAhead(this.#nextMemoryLimit);
      } catch {
        // The next request prepares its own isolate and reports what fails there.
        return;
      }
      try {
        this.#options.onPrepared?.();
      } catch {
        // An observer's failure is not the sandbox's.
      }
    });
    this.#preparing.unref();
  }

  #settled(startedAt: number, envelope: ExecuteResult): void {
    try {
      this.#options.onExecutionSettled?.({
        durationMs: monotonicNow() - startedAt,
        outcome: envelope.error === undefined ? 'success' : 'error',
        ...(envelope.code !== undefined ? { code: envelope.code } : {}),
      });
    } catch {
      // An observer must not fail the execution it observes.
    }
  }

  /**
   * Invokes a granted handle of a retained execution with a request. Rejects with coded errors:
   * HANDLES_CLOSED for an execution that is gone, HANDLE_NOT_FOUND for a handle it did not grant,
   * TIMEOUT and MEMORY_LIMIT when the invocation ended the execution.
   */
  invoke(executionId: string, request: HttpRequest, handle = 'fetch'): Promise<HttpResponse> {
    return this.#handles.invoke(executionId, request, handle);
  }

  /** Ends a retained execution and disposes its isolate; answers whether it existed. */
  closeHandles(executionId: string): boolean {
    return this.#handles.close(executionId);
  }

  /** How many retained executions this sandbox holds. */
  get retainedCount(): number {
    return this.#handles.size;
  }

  /** Retained executions whose timers are executing work now, between invocations (handles.ts). */
  get retainedWorking(): number {
    return this.#handles.working;
  }

  /** Disposes the prepared isolate and every retained execution; executions in flight finish on their own isolates. */
  dispose(): void {
    this.#eraser.dispose();
    this.#namesWorker.dispose();
    this.#handles.closeAll();
    this.#disposed = true;
    if (this.#preparing) clearImmediate(this.#preparing);
    if (this.#prepared) disposeIsolate(this.#prepared.handle);
    this.#prepared = undefined;
  }
}

const DURABLE_START_MESSAGE =
  'A durable start needs a request that asks for durable and does not retain handles.';

/** The host part of a nested execution: its functions served in the nested context (durable/pause.ts). */
function nestedHost(host: SandboxHost): SandboxHost {
  const { dispatch, outbound } = host;
  return {
    ...host,
    dispatch: dispatch && ((provider, tool, args) => servedNested(() => dispatch(provider, tool, args))),
    outbound: outbound && ((request, init) => servedNested(() => outbound(request, init))),
  };
}

/** The engine disposed the isolate at its memory limit: the run reads as one that ran out would. */
function memoryExhausted(memoryLimit: number): RunOutcome {
  return { error: new MemoryLimitError(memoryLimit).message, code: 'MEMORY_LIMIT' };
}

/** An envelope the sandbox composes itself, refusing a request: no result, the error and its code, no logs. */
function faultEnvelope(code: FaultCode, error: string): ExecuteResult {
  return { result: undefined, error, code, logs: [] };
}

/** Preparation (erasure) outlived the run's bound: the run times out as one that ran would. */
function timedOut(timeout: number): RunOutcome {
  return { error: new ExecutionTimeoutError(timeout).message, code: 'TIMEOUT' };
}

function cancelled(signal: AbortSignal): RunOutcome {
  const reason = signal.reason instanceof Error ? signal.reason.message : undefined;
  return { error: new CancelledError(reason).message, code: 'CANCELLED' };
}

/**
 * A failure to compile, link or erase the program: its message at the author's positions, and the
 * kind the host observed (errors/error-kind.ts); anything else as `failure` reports it.
 */
function preparationFailure(error: unknown, sources: () => StackSources): RunOutcome {
  const outcome = failure(error);
  const kind = preparationErrorKind(error);
  if (outcome.code !== undefined || outcome.error === undefined || kind === undefined) return outcome;
  return {
    error: kind === 'syntax' ? authorPositionInMessage(outcome.error, sources()) : outcome.error,
    errorKind: kind,
    errorName: (error as Error).name.slice(0, ERROR_NAME_LIMIT),
  };
}

/**
 * The outcome with the program's own frames of its stack (errors/stack.ts) in place of the raw
 * text, and the program's position of a failed tool call in place of the frames V8 recorded there.
 */
function withProgramStack(outcome: RunOutcome, sources: () => StackSources): RunOutcome {
  if (outcome.rawStack === undefined && outcome.rawCallSite === undefined) return outcome;
  const { rawStack, rawCallSite, ...rest } = outcome;
  const errorStack = rawStack === undefined ? undefined : programStack(rawStack, sources());
  const errorAt = rawCallSite === undefined ? undefined : programPosition(rawCallSite, sources());
  return {
    ...rest,
    ...(errorStack !== undefined ? { errorStack } : {}),
    ...(errorAt !== undefined ? { errorAt } : {}),
  };
}

/** The hint beside a run that failed where the entry calls the arrow: the code's value was no function (errors/hint.ts). */
function withNotAFunctionHint(outcome: RunOutcome, callLine: number | undefined): RunOutcome {
  if (outcome.errorKind !== 'thrown' || outcome.rawStack === undefined || callLine === undefined)
    return outcome;
  const hint = notAFunctionHint(outcome.rawStack, ENTRY_NAME, callLine);
  return hint === undefined ? outcome : { ...outcome, hint };
}

/**
 * The one-object form as the two parts. Each part reads only its own fields, so the object serves
 * as both, but for `outbound`: the tri-state becomes the wire mode and the host's function. A
 * value that is none of the three reads as native, as chooseOutbound has always read it.
 */
function asParts(request: SandboxExecuteRequest): [SandboxWire, SandboxHost] {
  const setting = 'outbound' in request ? request.outbound : null;
  const mode = outboundMode(setting) ?? 'native';
  return [
    { ...request, outbound: mode },
    { ...request, outbound: mode === 'proxied' ? (setting as OutboundFunction) : undefined },
  ];
}

/** Where the request's imports and arrow sit in the entry, and in the code they came from. */
function entryPositions(code: string, bodyStart: number, built: BuiltEntry): PositionMap {
  const pieces: PlacedPiece[] = [];
  let searchFrom = 0;
  for (const [index, piece] of built.placed.entries()) {
    const isBody = index === built.placed.length - 1;
    // Imports are exact slices of the code, in order; the arrow is its tail.
    const start = isBody ? bodyStart : code.indexOf(piece.text, searchFrom);
    if (start === -1) continue;
    searchFrom = start + piece.text.length;
    pieces.push({
      entryLine: piece.entryLine,
      lines: lineCount(piece.text),
      original: positionAt(code, start),
    });
  }
  return new PositionMap(pieces);
}

/** The request's own spelling of each module key, by the name it normalizes to; built once, when a frame needs it. */
function requestSpellings(modules: ModuleMap | undefined): Map<string, string> {
  const spellings = new Map<string, string>();
  for (const key of Object.keys(modules ?? {})) {
    const name = normalizeSpecifier(key);
    if (!spellings.has(name)) spellings.set(name, key);
  }
  return spellings;
}

/** A failure before or around the run: the error's message, with its code when the request caused it. */
function failure(error: unknown): RunOutcome {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof CodemodeError && isFaultCode(error.code)) return { error: message, code: error.code };
  return { error: message };
}
