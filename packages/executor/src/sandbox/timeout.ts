/**
 * The two timeouts of a run and how its outcome is read back.
 *
 * Layer 1 fires at `timeout`, inside the isolate: the entry races the user arrow against
 * __timeoutExpired, which the run clock resolves. Layer 2 is the pair at `timeout + grace`: the
 * engine's own evaluate timeout (it bounds synchronous execution only) and a host race on the clock,
 * for an isolate that can no longer take a call.
 */
import {
  CLOCK_TOLERANCE,
  ERROR_NAME_LIMIT,
  type ErrorKind,
  ExecutionTimeoutError,
  type FaultCode,
  MAX_DELAY,
  MemoryLimitError,
  PAUSED_RECHECK,
  PAYLOAD_LIMIT,
  PayloadTooLargeError,
  parseForDispatch,
} from '@supolka/codemode-protocol/wire';
import type ivm from 'isolated-vm';
import type { RunClock } from './bounds/clock.ts';
import type { ReportedFailure } from './errors/reported-failure.ts';
import { COMPLETION_INSTALL_SOURCE } from './generated/sandbox-sources.generated.ts';
import type { CompletionValues } from './inside/completion.ts';
import type { IsolateHandle } from './isolate.ts';
import { bindValues } from './setup/bound-source.ts';

/**
 * Defines the completion names without flags, so user code can replace neither: __resultJson, an
 * accessor whose setter keeps the first value, resolves __resultReady with it and hands it to the
 * host, and __timeoutExpired, built by calling the timeout reference it is called with, once.
 * A value that is not a string reaches the host as undefined; a string past PAYLOAD_LIMIT as its
 * length, so an oversized answer is never copied out. The code is inside/completion.ts.
 */
export const RUN_SOURCE = bindValues(
  COMPLETION_INSTALL_SOURCE,
  { payloadLimit: PAYLOAD_LIMIT } satisfies CompletionValues,
  ['hostTimeout', 'hostResult'],
);

/** What a run comes back as, before the logs are attached. */
export interface RunOutcome {
  readonly result?: unknown;
  readonly error?: string;
  readonly code?: FaultCode;
  /** Present when the run retained a handler. */
  readonly executionId?: string;
  /**
   * What kind of error user code met, as the host observed it (docs/sandbox.md, "Error kinds, names
   * and positions").
   */
  readonly errorKind?: ErrorKind;
  /** The thrown error's name, as data. */
  readonly errorName?: string;
  /** The thrown error's stack text as V8 gave it inside the isolate, before the program's frames are picked (errors/stack.ts). */
  readonly rawStack?: string;
  /** The program's own frames of that stack, at the author's positions (errors/stack.ts). */
  readonly errorStack?: string;
  /** The namespace and tool of the call whose own failure ended the run. */
  readonly errorProvider?: string;
  readonly errorTool?: string;
  /** The frames V8 recorded where the program made that call, before the program's first is picked. */
  readonly rawCallSite?: string;
  /** Where the program made that call, `FILE:LINE:COLUMN` at the author's position (errors/stack.ts). */
  readonly errorAt?: string;
  /** The JSON of a thrown object that is no Error. */
  readonly errorJson?: string;
  /** What the code should have looked like (errors/hint.ts). */
  readonly hint?: string;
}

/**
 * A delivered outcome with what the run support reported of its failure. An error envelope that
 * arrives without that report is one the program assigned itself: its own error, `thrown`.
 */
export function withReportedFailure(outcome: RunOutcome, failure: ReportedFailure | undefined): RunOutcome {
  if (outcome.error === undefined || outcome.code !== undefined) return outcome;
  if (failure === undefined) return { ...outcome, errorKind: 'thrown' };
  return {
    ...outcome,
    errorKind: failure.kind,
    ...(failure.name !== undefined ? { errorName: failure.name } : {}),
    ...(failure.stack !== undefined ? { rawStack: failure.stack } : {}),
    ...(failure.provider !== undefined ? { errorProvider: failure.provider } : {}),
    ...(failure.tool !== undefined ? { errorTool: failure.tool } : {}),
    ...(failure.site !== undefined ? { rawCallSite: failure.site } : {}),
    ...(failure.json !== undefined ? { errorJson: failure.json } : {}),
  };
}

/**
 * Reads the string the entry assigned to __resultJson. A string past PAYLOAD_LIMIT (which arrives
 * as its length) is never sent onward. A value that is not a string, and JSON that is not an
 * object, collapse to an undefined result: user code owns the payload, and what is not an outcome
 * must not reach the caller as one. JSON that does not parse is an error.
 */
export function parseEnvelope(value: unknown): RunOutcome {
  if (typeof value === 'number') {
    return {
      error: new PayloadTooLargeError("run's answer", value, PAYLOAD_LIMIT).message,
      code: 'PAYLOAD_TOO_LARGE',
    };
  }
  if (typeof value !== 'string') return { result: undefined };
  if (value.length > PAYLOAD_LIMIT) {
    return {
      error: new PayloadTooLargeError("run's answer", value.length, PAYLOAD_LIMIT).message,
      code: 'PAYLOAD_TOO_LARGE',
    };
  }
  let parsed: unknown;
  try {
    parsed = parseForDispatch(value);
  } catch (error) {
    return { error: `The run reported an answer that is not valid JSON: ${(error as Error).message}` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { result: undefined };
  const envelope = parsed as Record<string, unknown>;
  if (Object.hasOwn(envelope, 'error') && envelope.error !== undefined && envelope.error !== null) {
    return { error: String(envelope.error) };
  }
  return { result: Object.hasOwn(envelope, 'result') ? envelope.result : undefined };
}

export const ENGINE_TIMEOUT_TEXT = 'Script execution timed out.';
export const ENGINE_MEMORY_TEXT = 'Isolate was disposed during execution due to memory limit';

/**
 * Turns the engine's own words into the executor's, but only when the state of the run
 * corroborates them, because user code can throw the same words: a timeout text when the counted
 * time has reached the bound (less CLOCK_TOLERANCE, for the engine's timer thread), a memory text
 * when the isolate reads disposed. Anything else is kept as it reads; undefined means no rewrite.
 */
export function rewriteEngineTermination(
  message: string,
  state: {
    readonly elapsed: number;
    readonly bound: number;
    readonly disposed: boolean;
    readonly timeout: number;
    readonly memoryLimit: number;
  },
): RunOutcome | undefined {
  if (message.includes(ENGINE_TIMEOUT_TEXT) && state.elapsed >= state.bound - CLOCK_TOLERANCE) {
    return { error: new ExecutionTimeoutError(state.timeout).message, code: 'TIMEOUT' };
  }
  if (message.includes(ENGINE_MEMORY_TEXT) && state.disposed) {
    return { error: new MemoryLimitError(state.memoryLimit).message, code: 'MEMORY_LIMIT' };
  }
  return undefined;
}

/** V8's RangeError when the engine refuses an ArrayBuffer's bytes. */
export const BUFFER_REFUSED_TEXT = 'Array buffer allocation failed';

/** What a refused buffer may have asked for beyond what the isolate already held, for the reading below. */
const REFUSAL_SLACK = 1024 * 1024;

/**
 * Whether a run ended on the engine refusing a buffer because the isolate had met its memory
 * limit: the program's own allocation or one the runtime made for it (a decoder's scratch buffer
 * inside `new URL`), which surfaces as V8's RangeError rather than as the limit. Corroborated by the
 * isolate's heap, since a program can throw the same words, and a buffer asked for far past the
 * limit in one go is the program's plain RangeError.
 */
function refusedAtLimit(outcome: RunOutcome, handle: IsolateHandle): boolean {
  if (outcome.code !== undefined || outcome.error !== BUFFER_REFUSED_TEXT || handle.isolate.isDisposed)
    return false;
  try {
    const heap = handle.isolate.getHeapStatisticsSync();
    return (
      heap.used_heap_size + heap.externally_allocated_size + REFUSAL_SLACK >= handle.memoryLimit * 2 ** 20
    );
  } catch {
    return false;
  }
}

export interface RunWithTimeoutsOptions {
  readonly handle: IsolateHandle;
  readonly entry: ivm.Module;
  readonly clock: RunClock;
  readonly timeout: number;
  readonly grace: number;
  /** Resolves the isolate's __timeoutExpired: layer 1. */
  readonly expireInIsolate: () => void;
  /** Settles with the answer the entry assigned to __resultJson. */
  readonly delivered: Promise<unknown>;
  /** Whether the entry's body has called __startRun. */
  readonly started: () => boolean;
  /** What the run support reported of the failure it delivered, if it delivered one. */
  readonly deliveredFailure?: () => ReportedFailure | undefined;
}

/**
 * Evaluates the entry under both timeouts and reads the outcome: the answer the entry reports
 * through the __resultJson accessor, a failure of evaluation itself (a module that threw, or the
 * engine ending the run), a disposal by the engine's memory limit, or the host expiry at
 * timeout + grace, whichever comes first. Never rejects.
 */
export async function runWithTimeouts(options: RunWithTimeoutsOptions): Promise<RunOutcome> {
  const { handle, entry, clock, timeout } = options;
  const totalTimeout = Math.min(timeout + options.grace, MAX_DELAY);
  const engineState = () => ({
    elapsed: clock.elapsed(),
    bound: totalTimeout,
    disposed: handle.isolate.isDisposed,
    timeout,
    memoryLimit: handle.memoryLimit,
  });
  const memoryOutcome = (): RunOutcome => ({
    error: new MemoryLimitError(handle.memoryLimit).message,
    code: 'MEMORY_LIMIT',
  });

  let layerOneFired = false;
  clock.expire(timeout).then(() => {
    layerOneFired = true;
    options.expireInIsolate();
  });
  const timeoutText = new ExecutionTimeoutError(timeout).message;
  /** The entry's own report of layer 1 is the executor ending the run, so it carries the code. */
  const coded = (outcome: RunOutcome): RunOutcome =>
    layerOneFired && outcome.error === timeoutText && outcome.code === undefined
      ? { error: outcome.error, code: 'TIMEOUT' }
      : outcome;
  const hostExpiry = clock
    .expire(totalTimeout)
    .then((): RunOutcome => ({ error: timeoutText, code: 'TIMEOUT' }));

  // The engine disposes an isolate past its memory limit from its own thread, between any two
  // calls, and nothing tells the host; only isDisposed does. The sandbox itself disposes only
  // after the outcome is settled, so a disposal seen here is the memory limit.
  let watch: NodeJS.Timeout | undefined;
  const disposal = new Promise<RunOutcome>((resolve) => {
    watch = setInterval(() => {
      if (handle.isolate.isDisposed) resolve(memoryOutcome());
    }, PAUSED_RECHECK);
  });

  // Evaluation settles once the static module graph has run. A rejection is a module that threw
  // before the body started, the engine ending the run, or a stray rejection of user code, which
  // is dropped: after the body has started, only the accessor reports the run.
  const evaluated = entry.evaluate({ promise: true, timeout: totalTimeout }).then(
    () => new Promise<never>(() => {}),
    (error: unknown): RunOutcome | Promise<never> => {
      const message = error instanceof Error ? error.message : String(error);
      const rewritten = rewriteEngineTermination(message, engineState());
      if (rewritten) return rewritten;
      if (handle.isolate.isDisposed) return memoryOutcome();
      if (options.started()) return new Promise<never>(() => {});
      // A module of the static graph threw at its top level, before the program started.
      return {
        error: message,
        errorKind: 'thrown',
        ...(error instanceof Error ? { errorName: error.name.slice(0, ERROR_NAME_LIMIT) } : {}),
      };
    },
  );

  try {
    return await Promise.race([
      options.delivered.then((answer) => {
        const outcome = coded(withReportedFailure(parseEnvelope(answer), options.deliveredFailure?.()));
        return refusedAtLimit(outcome, handle) ? memoryOutcome() : outcome;
      }),
      evaluated,
      hostExpiry,
      disposal,
    ]);
  } finally {
    clearInterval(watch);
  }
}
