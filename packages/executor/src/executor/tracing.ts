/**
 * OpenTelemetry tracing of executions, through `@opentelemetry/api` only: an `execute` span around
 * each execution, and a child span for each tool call and each proxied outbound request, with how
 * each ended as attributes. It records nothing unless the application registered an SDK (a tracer
 * provider and a context manager): the API's own tracer then hands out spans that do not record,
 * and an execution whose span does not record has its functions left unwrapped. The API adds no
 * load to the main entry: prom-client (server/metrics.ts) loads it already.
 *
 * Spans parent under the span active where `execute` was called, because the pool runs tool and
 * outbound functions in the async context of that call (pool/execution.ts, `runInCaller`).
 */
import { context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ExecutionHost } from '../pool/execution.ts';
import type { ExecuteResult } from '../sandbox/sandbox.ts';
import { outcomeOf } from './observer.ts';

/** The instrumentation scope the spans are created under. */
export const TRACER_NAME = '@supolka/codemode-executor';

/** The span names and the attributes they carry. */
export const SPAN = {
  execute: 'codemode.execute',
  tool: 'codemode.tool',
  outbound: 'codemode.outbound',
} as const;
export const ATTRIBUTE = {
  /** Of an execution: `ok`, `error` (the program failed), or the fault code the executor ended it with. */
  outcome: 'codemode.outcome',
  /** Of an execution the executor ended: its code (TIMEOUT, CANCELLED, ...). */
  code: 'codemode.code',
  /** Of a tool call: `returned`, `error` (its envelope carried an error) or `thrown`. */
  callOutcome: 'codemode.call.outcome',
  provider: 'codemode.tool.provider',
  tool: 'codemode.tool.name',
  method: 'http.request.method',
  status: 'http.response.status_code',
} as const;

/** A ProxyTracer: it finds the SDK's tracer once one is registered, however late. */
const tracer = trace.getTracer(TRACER_NAME);

type TracedHost = Pick<ExecutionHost, 'dispatch' | 'outbound'>;

/** Wraps the execution's host functions in spans of their own, or leaves them when nothing records. */
export type HostTracing = (host: TracedHost) => TracedHost;

const untraced: HostTracing = (host) => host;

/**
 * Runs `start` under an `execute` span active in its async context, and ends the span with the
 * envelope's outcome. `start` hands its host functions to the tracing it is given.
 */
export async function traceExecution(
  start: (tracing: HostTracing) => Promise<ExecuteResult>,
): Promise<ExecuteResult> {
  const span = tracer.startSpan(SPAN.execute);
  if (!span.isRecording()) {
    span.end();
    return start(untraced);
  }
  const envelope = await context.with(trace.setSpan(context.active(), span), () => start(traced));
  const outcome = outcomeOf(envelope);
  span.setAttribute(ATTRIBUTE.outcome, outcome);
  if (envelope.code !== undefined) span.setAttribute(ATTRIBUTE.code, envelope.code);
  if (outcome !== 'ok') span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
  return envelope;
}

const traced: HostTracing = ({ dispatch, outbound }) => ({
  dispatch:
    dispatch &&
    ((provider, tool, args) =>
      inSpan(
        SPAN.tool,
        SpanKind.INTERNAL,
        { [ATTRIBUTE.provider]: provider, [ATTRIBUTE.tool]: tool },
        async (span) => {
          const answer = await dispatch(provider, tool, args);
          // The envelope as codec JSON: `{"error":...}` is a tool that failed (providers.ts writes it so).
          const failed = typeof answer === 'string' && answer.startsWith('{"error"');
          span.setAttribute(ATTRIBUTE.callOutcome, failed ? 'error' : 'returned');
          if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
          return answer;
        },
      )),
  outbound:
    outbound &&
    ((request, init) =>
      inSpan(SPAN.outbound, SpanKind.CLIENT, { [ATTRIBUTE.method]: request.method }, async (span) => {
        const response = await outbound(request, init);
        span.setAttribute(ATTRIBUTE.callOutcome, 'returned');
        span.setAttribute(ATTRIBUTE.status, response.status);
        return response;
      })),
});

/** Runs `call` with a new span active, child of the active one; a throw marks it `thrown`. */
async function inSpan<T>(
  name: string,
  kind: SpanKind,
  attributes: Record<string, string>,
  call: (span: Span) => Promise<T>,
): Promise<T> {
  const span = tracer.startSpan(name, { kind, attributes });
  try {
    return await context.with(trace.setSpan(context.active(), span), () => call(span));
  } catch (error) {
    span.setAttribute(ATTRIBUTE.callOutcome, 'thrown');
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}
