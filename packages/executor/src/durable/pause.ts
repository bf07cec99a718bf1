/**
 * The pause signal and the context of a durable run's tool call. A tool function calls pause()
 * to end a durable run at once (docs/durable.md, "Pausing and resuming"); the call's context, an
 * AsyncLocalStorage the durable run enters around each call it performs, is where the signal is
 * recorded, so it reaches the run however the layers between the sandbox and the function (the
 * providers' dispatch, which turns every throw into an error envelope) treat the throw. A run that
 * is not durable enters no context: there pause() is a throw like any other, an error the program
 * sees, as before durability existed.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { isPauseSignal, type PauseRequest, PauseSignal, pauseRequest } from '@supolka/codemode-protocol/wire';

/** What a tool function that paused the run said: why, and any JSON data for whoever resumes it (the protocol's shape). */
export type { PauseRequest };

/** The context of one call a durable run performs. */
export interface DurableCallContext {
  /** The call's sequence in the run: the isolate's number for it, from 1. */
  readonly sequence: number;
  /**
   * On a call a resume performs: the idempotency key of the token and this call (token.ts), the
   * same on every retry of the resume. Undefined in a run that has not been paused yet.
   */
  readonly idempotencyKey: string | undefined;
  /** The id of the token the run resumed from; undefined before the run's first pause. */
  readonly tokenId: string | undefined;
}

interface CallState extends DurableCallContext {
  paused: PauseRequest | undefined;
}

/** The context of a call served for an execution nested inside a durable run's call. */
const NESTED = Symbol('nested execution');

const calls = new AsyncLocalStorage<CallState | typeof NESTED>();

/** What pause() throws inside an execution started from a durable run's tool call. */
export const NESTED_PAUSE_MESSAGE =
  "The tool asked to pause the run, but it serves an execution nested inside a durable run's tool call, which cannot pause: only the durable run's own tools can.";

/**
 * Thrown by pause(): outside a durable run, an error as any other, saying why it did not pause.
 * The protocol's class, so a client of a remote executor recognises the same throw
 * (pause-signal.ts there).
 */
export { PauseSignal };

/**
 * Pauses the durable run the calling tool serves: the run ends at once and its envelope says it
 * paused, with `data` (JSON), the reason and the pending calls. Always throws; outside a durable
 * run the throw is the tool's failure, as any throw is.
 */
export function pause(data?: unknown, options: { reason?: string } = {}): never {
  // The reason is cut where it is given: an envelope carries at most PAUSE_REASON_LIMIT characters.
  const request = pauseRequest(data, options);
  const state = calls.getStore();
  if (state === NESTED) throw new PauseSignal(request, NESTED_PAUSE_MESSAGE);
  if (state !== undefined) state.paused ??= request;
  throw new PauseSignal(request);
}

/**
 * Records a pause signal thrown through a layer that does not read the call's context as the
 * call's pause, as pause() records its own: the client's pause() (the protocol's, which a tool may
 * use in this process too), or a tool module holding another copy of this package, whose pause()
 * fills another context. Anything else, and a signal outside a durable run's call, is left alone.
 */
export function pausedBy(error: unknown): void {
  if (!isPauseSignal(error)) return;
  const state = calls.getStore();
  if (state === undefined || state === NESTED) return;
  state.paused ??= pauseRequest(error.data, reasonOf(error));
}

/** Whether the code running now serves a durable run's call (or an execution nested in one). */
export function insideDurableCall(): boolean {
  return calls.getStore() !== undefined;
}

/**
 * Runs a call of an execution started inside a durable run's call: pause() there is refused with
 * NESTED_PAUSE_MESSAGE instead of pausing the outer run, and durableCall() answers undefined.
 */
export function servedNested<T>(serve: () => T): T {
  return calls.run(NESTED, serve);
}

/** The durable context of the tool call being served, or undefined outside one. */
export function durableCall(): DurableCallContext | undefined {
  const state = calls.getStore();
  if (state === undefined || state === NESTED) return undefined;
  return { sequence: state.sequence, idempotencyKey: state.idempotencyKey, tokenId: state.tokenId };
}

/** Performs one call of a durable run in its context; answers what it returned and whether it paused. */
export async function performInContext<T>(
  context: DurableCallContext,
  perform: () => Promise<T>,
): Promise<{ readonly value: T; readonly paused: PauseRequest | undefined }> {
  let paused: PauseRequest | undefined;
  const value = await performRecording(context, perform, (request) => {
    paused = request;
  });
  return { value, paused };
}

/**
 * Performs one call of a durable run in its context, as it settles (a throw is rethrown), and
 * tells `paused` when the call paused the run, whether it then returned or threw: a raw dispatch
 * function (a server's, asking its client) lets pause()'s throw through.
 */
export async function performRecording<T>(
  context: DurableCallContext,
  perform: () => Promise<T>,
  paused: (request: PauseRequest) => void,
): Promise<T> {
  const state: CallState = { ...context, paused: undefined };
  try {
    return await calls.run(state, perform);
  } catch (error) {
    // A pause signal that left the call as its throw (a raw dispatch, a client's pause) pauses too.
    if (isPauseSignal(error)) state.paused ??= pauseRequest(error.data, reasonOf(error));
    throw error;
  } finally {
    if (state.paused !== undefined) paused(state.paused);
  }
}

function reasonOf(signal: PauseSignal): { reason?: string } {
  return signal.reason !== undefined ? { reason: signal.reason } : {};
}
