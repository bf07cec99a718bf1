/**
 * IsolateExecutor: the public face of the executor. It validates each request, keeps the caller's
 * functions in this process and sends the rest to a pool of supervised children, each running the
 * program in a fresh isolate.
 *
 *   const executor = new IsolateExecutor({ timeout: 5_000 })
 *   const { result, error, code, logs } = await executor.execute({ code: 'async () => 1 + 1' })
 *   await executor.dispose()
 *
 * execute never rejects (docs/pool.md, "Outcomes"): a bad request, a full queue, a lost child and a
 * cancellation all come back as envelopes with their code. invoke and closeHandles are calls, not
 * executions, and reject with errors carrying a code.
 *
 * execute also takes the Code Mode form, `execute(code, providersOrFns, options?)`, which makes it
 * an `Executor` for `@cloudflare/codemode` (docs/codemode.md): a string first argument selects it.
 */
import {
  BadRequestError,
  CodemodeError,
  type ExecuteRequest,
  faultEnvelope,
  ID_LIMIT,
  isFaultCode,
  isId,
  type LogLine,
} from '@supolka/codemode-protocol/wire';
import type { CodePositions } from '../codemode/code-positions.ts';
import type { CodeModeExecuteOptions, CodeModeProviders, CodeModeResult } from '../codemode/contract.ts';
import { CodeNormalizer } from '../codemode/normalize-lanes.ts';
import { codeModeRequest } from '../codemode/request.ts';
import { toCodeModeResult } from '../codemode/result.ts';
import type { DurableExecuteResult, ResumeAnswers } from '../durable/durability.ts';
import { type AllowedPackage, allowedPackages, type PackageBundle } from '../packages/bundle.ts';
import { bundlePackages } from '../packages/bundler.ts';
import { faultError } from '../pool/conversations.ts';
import { DurableCalls } from '../pool/durable-calls.ts';
import type { PoolStats } from '../pool/events.ts';
import { loadSchemas } from '../pool/messages/schemas-on-demand.ts';
import type { ExecutionMeter } from '../pool/meter.ts';
import { Pool } from '../pool/pool.ts';
import type { EngineReport } from '../sandbox/isolate.ts';
import type { ExecuteResult } from '../sandbox/sandbox.ts';
import { type DiscardResult, nestedHost, type Resumption } from './durable-runs.ts';
import { fromWireResponse, toWireRequest } from './http.ts';
import { Invocations } from './invocations.ts';
import { observeExecution } from './observer.ts';
import { type IsolateExecutorOptions, type ResolvedOptions, resolveOptions } from './options.ts';
import {
  type IsolateExecuteRequest,
  type RequestHost,
  type SplitRequest,
  splitRequest,
  wireRequest,
} from './request.ts';
import { ToolScope } from './tool-scope.ts';
import { type HostTracing, traceExecution } from './tracing.ts';
import {
  defaultWallClockLimit,
  executionPastWallClockMessage,
  invocationPastWallClockMessage,
  WallClock,
} from './wall-clock.ts';

export interface ExecuteOptions {
  /** Aborting ends the execution at once; its envelope comes back with code CANCELLED. */
  readonly signal?: AbortSignal;
  /**
   * The outermost edges of the run's waits on this process (a tool call, a proxied fetch): true
   * when the first opens, false when the last closes. The run clock pauses over the same span.
   */
  readonly onHostWaitChanged?: (waiting: boolean) => void;
  /**
   * The run's console lines while it goes, in batches (each line also ends up in the envelope's
   * logs, within the same capture bound). The program's console never waits on it; a throw or a
   * rejected promise from it is dropped, and a promise it returns is not waited on.
   */
  readonly onConsole?: (lines: readonly LogLine[]) => unknown;
  /**
   * For a run that retains handles: called once when they close, whatever closed them
   * (closeHandles, the idle timeout, an invocation past its bounds, a lost child, dispose). Until
   * then the request's tools and outbound function serve the invocations' calls; after it, none.
   * A throw is dropped.
   */
  readonly onHandlesClosed?: () => void;
  /**
   * Whom the execution is for, in an application that serves many users through one executor:
   * executions waiting for a child, and Code Mode reads waiting for a lane, are shared between
   * callers instead of served in arrival order (docs/pool.md, "Fair queues"). Without one, every
   * execution of this executor is one caller's. A string of 1 to ID_LIMIT (128) characters.
   */
  readonly callerId?: string;
  /**
   * Whom a durable run is for, from the caller's own authentication (a user id, a tenant, the
   * name of an API key): its token resumes only for the same principal (docs/durable.md, "The
   * principal"). Never from the request body. Without one, every caller that names none is one
   * audience. A string of at most PRINCIPAL_LIMIT characters.
   */
  readonly principal?: string;
}

/** The longest principal a caller may name. */
export const PRINCIPAL_LIMIT = 1024;

/**
 * The host part of a wire request (`executeWire`): the functions that serve its tool calls
 * and, when its mode is `proxied`, its fetches, beside the options every execution takes.
 */
export interface WireHost extends RequestHost, ExecuteOptions {}

/** The handles a retained execution may grant. */
export type HandleName = 'fetch';

export class IsolateExecutor {
  readonly #options: ResolvedOptions;
  readonly #pool: Pool;
  /** Reads the Code Mode form's code off this thread, under the run's bound. */
  readonly #normalizer: CodeNormalizer;
  /** The wall clocks of invocations in flight, and the run bound of each retained execution. */
  readonly #invocations = new Invocations();
  /** The allowed packages' bundle, on its way to the children; undefined when none are allowed. */
  readonly #packages: Promise<PackageBundle> | undefined;
  /** Whether the bundle reached the pool: executions then go straight on. */
  #packagesDelivered = false;

  /** Throws BadRequestError naming the option when one does not hold. */
  constructor(options: IsolateExecutorOptions = {}) {
    this.#options = resolveOptions(options);
    this.#pool = new Pool(this.#options.pool);
    const packages = this.#options.packages;
    if (packages !== undefined) {
      // Bundled now, while the children start: never on a request's path.
      this.#packages = bundlePackages(packages.list, packages.base, packages.cache).then((bundle) => {
        this.#pool.usePackages(bundle);
        this.#packagesDelivered = true;
        return bundle;
      });
      this.#packages.catch(() => {});
    }
    // Reads wait for a lane under the bound executions wait for a child under.
    this.#normalizer = new CodeNormalizer({ waitLimit: this.#options.pool.queueLimit });
  }

  /**
   * A durable run (docs/durable.md): a tool may pause it with pause(), and the envelope then carries
   * `paused` with the pending calls and the token that resume() finishes the run from.
   */
  execute(
    request: IsolateExecuteRequest & { readonly durable: true },
    options?: ExecuteOptions,
  ): Promise<DurableExecuteResult>;
  /**
   * Runs `request.code` in a fresh isolate in one of the children. Resolves to
   * `{ result, error?, code?, logs, executionId? }`; never rejects.
   */
  execute(request: IsolateExecuteRequest, options?: ExecuteOptions): Promise<ExecuteResult>;
  /**
   * The Code Mode form: `providersOrFns` is a list of `{ name, fns, prelude? }` or a record of fns
   * served as `codemode`, `options.connectors` namespaces served by `binding.callTool`. Resolves to
   * `{ result, error?, code?, logs }` with logs as strings; never rejects.
   */
  execute(
    code: string,
    providersOrFns?: CodeModeProviders,
    options?: CodeModeExecuteOptions,
  ): Promise<CodeModeResult>;
  async execute(
    first: IsolateExecuteRequest | string,
    second?: ExecuteOptions | CodeModeProviders,
    third?: CodeModeExecuteOptions,
  ): Promise<ExecuteResult | CodeModeResult> {
    if (typeof first === 'string') return this.#runCodeMode(first, second, third, undefined);
    return this.#run(() => splitRequest(first, this.#options), second as ExecuteOptions | undefined);
  }

  /**
   * The Code Mode form of one execution or resume: the code read into its entry off this thread,
   * then run as the object form runs. A durable one (`options.durable`) is the object form's
   * `durable: true`, so the same code and providers give the same request, whose hash a token binds.
   */
  async #runCodeMode(
    code: string,
    providersOrFns: unknown,
    third: unknown,
    resumption: Resumption | undefined,
  ): Promise<CodeModeResult> {
    const { typescript, timeout } = this.#options;
    // Read loosely here: a third argument that is no object is codeModeRequest's to refuse.
    const { signal, callerId, durable, principal } = (
      typeof third === 'object' && third !== null ? third : {}
    ) as CodeModeExecuteOptions;
    // #start checks the caller id before the code is read.
    const normalize = (text: string) => this.#normalizer.normalize(text, typescript, timeout, callerId);
    let positions: CodePositions | undefined;
    const read = async () => {
      const made = await codeModeRequest(code, providersOrFns, third, normalize);
      positions = made.positions;
      const request = durable === true ? { ...made.request, durable: true as const } : made.request;
      return splitRequest(request, this.#options);
    };
    const options = {
      ...(signal !== undefined ? { signal } : {}),
      ...(callerId !== undefined ? { callerId } : {}),
      ...(principal !== undefined ? { principal } : {}),
    };
    return toCodeModeResult(await this.#run(read, options, resumption), positions);
  }

  /**
   * Runs a wire execute request this process received (an executor server's client sent it),
   * its tool calls and proxied fetches served by `host`. The request goes down as it came, not
   * rebuilt into the object form and split again: the executor's defaults apply as to the object
   * form, but an `outbound` mode left out is `disabled` whatever the executor's default (the
   * default may be a function of this process, which a remote request must never reach). A
   * request that fails the schema is refused with BAD_REQUEST, as the object form's is. Resolves
   * to the envelope; never rejects.
   */
  executeWire(request: ExecuteRequest, host: WireHost = {}): Promise<DurableExecuteResult> {
    return this.#run(() => wireRequest(request, host, this.#options), host);
  }

  /**
   * Resumes a paused durable run (docs/durable.md, "Pausing and resuming"): `token` is the paused envelope's,
   * `answers` one answer per pending call by sequence (`{ result }`, `{ error }` or
   * `{ perform: true }`), and `request` the request the run paused under, with its tools (its
   * code, modules and bounds must be the same: the token is bound to them), under the same
   * `options.principal`. The program runs again in a fresh isolate in a child, served its journal,
   * then live. Resolves to the envelope, which may pause again; a refused token comes back with
   * its code (TOKEN_FORGED, TOKEN_MISMATCH, ...), a diverged program with REPLAY_DIVERGED. Never rejects.
   */
  resume(
    token: unknown,
    answers: ResumeAnswers,
    request: IsolateExecuteRequest,
    options?: ExecuteOptions,
  ): Promise<DurableExecuteResult>;
  /**
   * The Code Mode form's resume: a run `execute(code, providersOrFns, { durable: true })` paused,
   * resumed from the same code and providers (the token is bound to the request they make) under
   * the same `options.principal`. Resolves to the Code Mode result, which may pause again.
   */
  resume(
    token: unknown,
    answers: ResumeAnswers,
    code: string,
    providersOrFns?: CodeModeProviders,
    options?: CodeModeExecuteOptions,
  ): Promise<CodeModeResult>;
  resume(
    token: unknown,
    answers: ResumeAnswers,
    request: IsolateExecuteRequest | string,
    second?: ExecuteOptions | CodeModeProviders,
    third?: CodeModeExecuteOptions,
  ): Promise<DurableExecuteResult | CodeModeResult> {
    if (typeof request === 'string') {
      // A resume is of a durable run: the request it makes is the durable one the token is bound to,
      // whether or not the caller repeats `durable: true`. Anything but an object is the form's to refuse.
      const options =
        third === undefined
          ? { durable: true }
          : typeof third === 'object' && third !== null
            ? { ...third, durable: true }
            : third;
      return this.#runCodeMode(request, second, options, { token, answers });
    }
    return this.#run(() => splitRequest(request, this.#options), second as ExecuteOptions | undefined, {
      token,
      answers,
    });
  }

  /** resume for a wire request this process received (a server's client sent it), as executeWire runs one. */
  resumeWire(
    token: unknown,
    answers: ResumeAnswers,
    request: ExecuteRequest,
    host: WireHost = {},
  ): Promise<DurableExecuteResult> {
    return this.#run(() => wireRequest(request, host, this.#options), host, { token, answers });
  }

  /**
   * Spends a paused run's token without resuming it (docs/durable.md, "Discarding"): opened as a
   * resume of `request` by `options.principal` would open it, and, with a claim store, claimed so
   * no resume can use it. A paused run holds nothing, so without a store there is nothing to free
   * and the token stays resumable until it expires (`claimed: false`). Never rejects.
   */
  async discard(
    token: unknown,
    request: IsolateExecuteRequest,
    options?: ExecuteOptions,
  ): Promise<DiscardResult> {
    return this.#discard(token, () => splitRequest(request, this.#options), options?.principal);
  }

  /** discard for a wire request this process received. */
  discardWire(token: unknown, request: ExecuteRequest, principal?: string): Promise<DiscardResult> {
    return this.#discard(token, () => wireRequest(request, {}, this.#options), principal);
  }

  async #discard(
    token: unknown,
    read: () => SplitRequest | Promise<SplitRequest>,
    principal: string | undefined,
  ): Promise<DiscardResult> {
    try {
      checkPrincipal(principal);
      return await this.#options.durable.discard(token, (await read()).wire, principal);
    } catch (error) {
      if (error instanceof CodemodeError && isFaultCode(error.code))
        return { discarded: false, error: error.message, code: error.code };
      return { discarded: false, error: `The discard failed: ${String(error)}`, code: 'INTERNAL' };
    }
  }

  /** Runs one execution under its tracing span (tracing.ts), and tells the observer what it cost. */
  #run(
    read: () => SplitRequest | Promise<SplitRequest>,
    options?: ExecuteOptions | null,
    resumption?: Resumption,
  ): Promise<DurableExecuteResult> {
    const observer = this.#options.onExecution;
    if (!observer)
      return traceExecution((tracing) => this.#start(read, options, tracing, undefined, resumption));
    return observeExecution(observer, (meter) =>
      traceExecution((tracing) => this.#start(read, options, tracing, meter, resumption)),
    );
  }

  /**
   * Reads the request into its two parts, then runs it on the pool. One that does not hold is
   * BAD_REQUEST; a read that ends otherwise (the Code Mode code read past the run's bound: TIMEOUT)
   * has the code it ended with.
   */
  async #start(
    read: () => SplitRequest | Promise<SplitRequest>,
    options: ExecuteOptions | null | undefined,
    tracing: HostTracing,
    meter: ExecutionMeter | undefined,
    resumption: Resumption | undefined,
  ): Promise<DurableExecuteResult> {
    // The wall clock counts from the call: the Code Mode form's read and the queue are in it.
    const startedAt = performance.now();
    let split: SplitRequest;
    const { signal, onHostWaitChanged, onConsole, onHandlesClosed, callerId, principal } = options ?? {};
    try {
      checkExecuteOptions(signal, onHostWaitChanged, onConsole, onHandlesClosed);
      checkCallerId(callerId);
      checkPrincipal(principal);
      const parts = read();
      // The object form reads at once: its execution reaches the pool in the call, as it always did,
      // unless the fast check left its request to the schema while the schemas were not loaded yet
      // (the first such request of the process), which then reaches the pool after that load.
      split = parts instanceof Promise ? await parts : parts;
    } catch (error) {
      if (error instanceof CodemodeError && isFaultCode(error.code))
        return faultEnvelope(error.code, error.message);
      return faultEnvelope('INTERNAL', `The request could not be read: ${String(error)}`);
    }
    if (this.#packages !== undefined && !this.#packagesDelivered) {
      try {
        await this.#packages;
      } catch (error) {
        return faultEnvelope('BAD_REQUEST', packagesFailedMessage(error));
      }
    }
    // A durable run gets its start here, where the key is; a resume, the start its token holds.
    let durable: DurableCalls | undefined;
    if (resumption !== undefined || split.wire.durable === true) {
      const wire = resumption === undefined ? split.wire : { ...split.wire, durable: true };
      split = { ...split, wire };
      const runs = this.#options.durable;
      const refusal = runs.refusal(wire, resumption !== undefined);
      if (refusal !== undefined) return refusal;
      const calls =
        resumption === undefined ? await runs.begin() : await runs.reopen(resumption, wire, principal);
      if (!(calls instanceof DurableCalls)) return calls;
      durable = calls;
    }
    const timeout = split.wire.timeout ?? this.#options.timeout;
    const limit = this.#options.wallClockLimit ?? defaultWallClockLimit(timeout);
    const clock = new WallClock(limit, startedAt, executionPastWallClockMessage);
    const scope = new ToolScope(clock, this.#invocations);
    // The bound ends the run as a cancellation does; whichever signal fired first names the reason.
    const ending = signal ? AbortSignal.any([signal, clock.expiry]) : clock.expiry;
    const envelope = await this.#pool.execute(split.wire, {
      // Started from a durable run's tool call, its functions cannot pause that run (durable-runs.ts).
      ...tracing(scope.bind(nestedHost(split.host))),
      signal: ending,
      onHostWaitChanged,
      onConsole,
      onHandlesClosed: () => {
        scope.handlesClosed();
        onHandlesClosed?.();
      },
      meter,
      caller: callerId,
      durable,
    });
    scope.settled(envelope.executionId, timeout);
    const expired = clock.expired && envelope.code === 'CANCELLED' && ending.reason === clock.expiry.reason;
    clock.end();
    const ended: ExecuteResult = expired
      ? { ...envelope, code: 'TIMEOUT', error: (clock.expiry.reason as Error).message }
      : envelope;
    return durable === undefined
      ? ended
      : await this.#options.durable.finish(durable, ended, split.wire, principal);
  }

  /**
   * Calls a handler a retained execution granted, in the child that holds it. Rejects with code
   * HANDLES_CLOSED when the execution holds no handles (closed, idle too long, never granted), and
   * HANDLE_NOT_FOUND for a handle it did not grant, and BAD_REQUEST for an executionId no
   * executor mints (empty, or past ID_LIMIT), before any error text could echo it.
   */
  async invoke(executionId: string, request: Request, handle: HandleName = 'fetch'): Promise<Response> {
    const checked = isId(executionId) ? executionId : await executionIdBySchema(executionId, 'invoke');
    const startedAt = performance.now();
    const wire = await toWireRequest(request);
    const timeout = this.#invocations.timeoutOf(checked) ?? this.#options.timeout;
    const limit = this.#options.wallClockLimit ?? defaultWallClockLimit(timeout);
    const clock = new WallClock(limit, startedAt, invocationPastWallClockMessage);
    this.#invocations.begin(checked, clock);
    try {
      const response = await Promise.race([
        this.#pool.invoke(checked, handle, wire),
        this.#pastWallClock(checked, clock),
      ]);
      return fromWireResponse(response);
    } finally {
      this.#invocations.end(checked, clock);
      clock.end();
    }
  }

  /**
   * Rejects with TIMEOUT when `clock` reaches its bound, and closes the retained execution: its
   * isolate may be parked on a tool that never answers, and only its end frees it, as the run
   * bound's end of an invocation does. Never settles when the invocation ends first.
   */
  #pastWallClock(executionId: string, clock: WallClock): Promise<never> {
    return new Promise((_, reject) => {
      clock.expiry.addEventListener(
        'abort',
        () => {
          this.#pool.closeHandles(executionId).catch(() => {});
          reject(faultError('TIMEOUT', (clock.expiry.reason as Error).message));
        },
        { once: true },
      );
    });
  }

  /**
   * Ends a retained execution and frees its isolate; rejects with code HANDLES_CLOSED when it holds
   * none, and BAD_REQUEST for an executionId no executor mints, as invoke does.
   */
  async closeHandles(executionId: string): Promise<void> {
    await this.#pool.closeHandles(
      isId(executionId) ? executionId : await executionIdBySchema(executionId, 'closeHandles'),
    );
  }

  /**
   * The packages programs may import, with their versions, once bundled (the `packages` option);
   * none when the option is absent. Rejects with the sentence saying why they could not be bundled.
   */
  async packages(): Promise<readonly AllowedPackage[]> {
    if (this.#packages === undefined) return [];
    try {
      return allowedPackages(await this.#packages);
    } catch (error) {
      throw new BadRequestError(packagesFailedMessage(error));
    }
  }

  /**
   * The engine report of the children: the isolated-vm in use, which behaviours it has and which
   * fallbacks are in force. Waits for the first child to report healthy; rejects when none can.
   */
  engine(): Promise<EngineReport> {
    return this.#pool.engine() as Promise<EngineReport>;
  }

  /** The children as the last heartbeats saw them, and the queue. */
  stats(): PoolStats {
    return this.#pool.stats();
  }

  /**
   * Ends every child (SIGTERM, then SIGKILL) and resolves once all have exited. Executions still
   * queued or running end with a CANCELLED envelope saying the executor was disposed; later ones
   * are answered the same way.
   */
  dispose(): Promise<void> {
    this.#normalizer.dispose();
    return this.#pool.dispose();
  }

  /** `await using executor = new IsolateExecutor()` disposes it at the end of the block. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }
}

/** Why no execution can run: the packages option could not be served. */
function packagesFailedMessage(error: unknown): string {
  return `IsolateExecutor option packages cannot be served: ${error instanceof Error ? error.message : String(error)}`;
}

/**
 * An executionId isId did not take (empty, past ID_LIMIT, no string), decided by the schema, which
 * refuses it in its words: the call, the field and its rule, never the id itself, which may be of
 * any size.
 */
async function executionIdBySchema(executionId: unknown, call: string): Promise<string> {
  const { protocol } = await loadSchemas();
  return protocol.validateExecutionId(executionId, call);
}

/** A principal names whom a durable run is for (ExecuteOptions.principal); anything else is BAD_REQUEST. */
function checkPrincipal(principal: unknown): void {
  if (principal === undefined) return;
  if (typeof principal !== 'string' || principal.length > PRINCIPAL_LIMIT) {
    throw new BadRequestError(`options.principal must be a string of at most ${PRINCIPAL_LIMIT} characters.`);
  }
}

/** A caller id names a caller (ExecuteOptions.callerId); anything else is BAD_REQUEST. */
function checkCallerId(callerId: unknown): void {
  if (callerId === undefined) return;
  if (typeof callerId !== 'string' || callerId.length === 0 || callerId.length > ID_LIMIT) {
    throw new BadRequestError(`options.callerId must be a string of 1 to ${ID_LIMIT} characters.`);
  }
}

/** The second argument is checked like the request: a wrong one is BAD_REQUEST, not a rejection. */
function checkExecuteOptions(
  signal: unknown,
  onHostWaitChanged: unknown,
  onConsole: unknown,
  onHandlesClosed: unknown,
): void {
  if (onConsole !== undefined && typeof onConsole !== 'function') {
    throw new BadRequestError('options.onConsole must be a function.');
  }
  if (onHandlesClosed !== undefined && typeof onHandlesClosed !== 'function') {
    throw new BadRequestError('options.onHandlesClosed must be a function.');
  }
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new BadRequestError('options.signal must be an AbortSignal.');
  }
  if (onHostWaitChanged !== undefined && typeof onHostWaitChanged !== 'function') {
    throw new BadRequestError('options.onHostWaitChanged must be a function.');
  }
}
