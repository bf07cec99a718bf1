/**
 * State the sandbox's own install scripts share with the runtime. The runtime publishes it as
 * `__runtimeInternals` in the snapshot; the sandbox reads it while it prepares an isolate and the
 * last install step deletes the name, so user code never sees it.
 */
import { uncurryThis, WeakMapCtor } from './primordials.ts';

/**
 * Whether code runs in global scope (a module's top level, while modules load) or inside the
 * program's run. In global scope the operations that wait on the host are refused, as workerd
 * refuses them, because released isolated-vm cannot report the outcome of module evaluation
 * that waits on the host (adr/0002).
 */
export const scope = { global: true };

export const GLOBAL_SCOPE_MESSAGE =
  'Disallowed operation called within global scope. Asynchronous I/O (ex: fetch() or connect()), setting a timeout, and generating random values are not allowed within global scope. To fix this error, perform this operation within a handler. https://developers.cloudflare.com/workers/runtime-apis/handlers/';

/** Throws workerd's error when an operation that waits on the host runs in global scope. */
export function assertRequestScope(): void {
  if (scope.global) throw new Error(GLOBAL_SCOPE_MESSAGE);
}

/**
 * Errors the runtime or the sandbox created for a cause the host observed (a refused fetch, a tool
 * call the host answered with a failure), with that cause's kind and the message they were made
 * with. The sandbox reads it when a run ends in a throw: only an error object found here, its
 * message unchanged, reports a kind other than `thrown`. A program cannot add to it, so an error
 * it builds to look like one of these still reads as its own throw. A WeakMap keeps no error alive.
 */
const observedErrors = new WeakMapCtor<object, readonly [kind: string, message: string]>();
const weakMapGet = uncurryThis(WeakMapCtor.prototype.get) as (
  map: WeakMap<object, readonly [string, string]>,
  key: object,
) => readonly [string, string] | undefined;
const weakMapSet = uncurryThis(WeakMapCtor.prototype.set) as (
  map: WeakMap<object, readonly [string, string]>,
  key: object,
  value: readonly [string, string],
) => unknown;

/** Records `error` as raised for `kind`, with the message it carries now; answers the error. */
export function markObserved<E extends Error>(error: E, kind: string): E {
  weakMapSet(observedErrors, error, [kind, error.message]);
  return error;
}

/** The kind and original message `error` was recorded with, or undefined for anything else. */
export function observedKind(error: unknown): readonly [kind: string, message: string] | undefined {
  if ((typeof error !== 'object' && typeof error !== 'function') || error === null) return undefined;
  return weakMapGet(observedErrors, error);
}
