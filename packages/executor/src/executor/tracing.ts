/**
 * OpenTelemetry tracing of executions, through `@opentelemetry/api` only: an `execute` span around
 * each execution, and a child span for each tool call and each proxied outbound request, with how
 * each ended as attributes. It records nothing unless the application registered an SDK (a tracer
 * provider and a context manager): the API's own tracer then hands out spans that do not record,
 * and an execution whose span does not record has its functions left unwrapped. The API itself
 * loads (tracing-spans.ts) only once a tracer provider is registered: until then an import of the
 * library, and every execution, costs nothing for tracing.
 *
 * Spans parent under the span active where `execute` was called, because the pool runs tool and
 * outbound functions in the async context of that call (pool/execution.ts, `runInCaller`).
 */
import type { ExecuteResult } from '../sandbox/sandbox.ts';
import type { RequestHost } from './request.ts';

export { ATTRIBUTE, SPAN, TRACER_NAME } from './tracing-names.ts';

/** Wraps the execution's host functions in spans of their own, or leaves them when nothing records. */
export type HostTracing = (host: RequestHost) => RequestHost;

export const untraced: HostTracing = (host) => host;

/**
 * Where the API keeps what an SDK registers, shared by every copy of API major version 1 in the
 * process: `trace` is set there exactly when a tracer provider is registered, so whether anything
 * could record is known without loading the API.
 */
const API_GLOBAL = Symbol.for('opentelemetry.js.api.1');

function tracerProviderRegistered(): boolean {
  const registry = (globalThis as Record<symbol, { trace?: unknown } | undefined>)[API_GLOBAL];
  return registry?.trace !== undefined;
}

let spans: Promise<typeof import('./tracing-spans.ts')> | undefined;

/**
 * Runs `start` under an `execute` span active in its async context, and ends the span with the
 * envelope's outcome. `start` hands its host functions to the tracing it is given.
 */
export async function traceExecution(
  start: (tracing: HostTracing) => Promise<ExecuteResult>,
): Promise<ExecuteResult> {
  if (!tracerProviderRegistered()) return start(untraced);
  spans ??= import('./tracing-spans.ts');
  return (await spans).traceExecutionInSpan(start);
}
