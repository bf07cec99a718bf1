/**
 * State the sandbox's own install scripts share with the runtime. The runtime publishes it as
 * `__runtimeInternals` in the snapshot; the sandbox reads it while it prepares an isolate and the
 * last install step deletes the name, so user code never sees it.
 */

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
