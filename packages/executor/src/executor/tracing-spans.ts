/**
 * The spans themselves, through `@opentelemetry/api`: loaded by tracing.ts once a tracer provider
 * is registered, so the API is never part of the library's import.
 */
import { context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { isErrorAnswer } from '@supolka/codemode-protocol/wire';
import type { ExecuteResult } from '../sandbox/sandbox.ts';
import { outcomeOf } from './observer.ts';
import type { HostTracing } from './tracing.ts';
import { ATTRIBUTE, SPAN, TRACER_NAME } from './tracing-names.ts';

const untraced: HostTracing = (host) => host;

/** A ProxyTracer: it finds the SDK's tracer once one is registered, however late. */
const tracer = trace.getTracer(TRACER_NAME);

/**
 * Runs `start` under an `execute` span active in its async context, and ends the span with the
 * envelope's outcome. `start` hands its host functions to the tracing it is given.
 */
export async function traceExecutionInSpan(
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
  // A paused durable run did not fail: it waits to be resumed.
  if (outcome !== 'ok' && outcome !== 'paused') span.setStatus({ code: SpanStatusCode.ERROR });
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
          const failed = typeof answer === 'string' && isErrorAnswer(answer);
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
