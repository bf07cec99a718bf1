/**
 * OpenTelemetry tracing through real children, recorded by the SDK's in-memory exporter: an
 * execute span under the caller's span, a child span per tool call and per proxied outbound
 * request with how each ended, the tool function running with its own span active, and the
 * outcome code of an execution the executor ended.
 */
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { IsolateExecutor } from '../../src/executor/isolate-executor.ts';
import { ATTRIBUTE, SPAN, TRACER_NAME } from '../../src/executor/tracing.ts';

const exporter = new InMemorySpanExporter();
const executor = new IsolateExecutor({ poolSize: 1, timeout: 5000 });
beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
});
afterAll(async () => {
  trace.disable();
  context.disable();
  await executor.dispose();
});
beforeEach(() => exporter.reset());

const caller = trace.getTracer('the caller');

function named(name: string): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => span.name === name);
}
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

describe('an execution under a tracer provider', () => {
  test('spans parent under the caller: execute, then each tool call and outbound request', async () => {
    const activeInTool: (string | undefined)[] = [];
    const { envelope, requestSpanId } = await caller.startActiveSpan('request', async (request) => {
      const envelope = await executor.execute({
        code: `async () => {
          const sum = await math.add(2, 3);
          let failure;
          try { await math.fail() } catch (error) { failure = error.message }
          const response = await fetch('https://example.test/items', { method: 'POST' });
          return [sum, failure, response.status];
        }`,
        providers: [
          {
            name: 'math',
            fns: {
              add: (a: number, b: number) => {
                activeInTool.push(trace.getActiveSpan()?.spanContext().spanId);
                return a + b;
              },
              fail: () => {
                throw new Error('no');
              },
            },
          },
        ],
        outbound: () => ({ status: 201, statusText: 'Created', headers: [], body: null }),
      });
      request.end();
      return { envelope, requestSpanId: request.spanContext().spanId };
    });
    expect(envelope).toStrictEqual({ result: [5, 'no', 201], logs: [] });

    const [execute] = named(SPAN.execute);
    expect(execute?.instrumentationScope.name).toBe(TRACER_NAME);
    expect(parentOf(execute as ReadableSpan)).toBe(requestSpanId);
    expect(execute?.attributes).toStrictEqual({ [ATTRIBUTE.outcome]: 'ok' });
    const executeId = execute?.spanContext().spanId;

    const tools = named(SPAN.tool);
    expect(tools.map((span) => [parentOf(span), span.attributes])).toStrictEqual([
      [
        executeId,
        { [ATTRIBUTE.provider]: 'math', [ATTRIBUTE.tool]: 'add', [ATTRIBUTE.callOutcome]: 'returned' },
      ],
      [
        executeId,
        { [ATTRIBUTE.provider]: 'math', [ATTRIBUTE.tool]: 'fail', [ATTRIBUTE.callOutcome]: 'error' },
      ],
    ]);
    // The tool function ran with its own span active.
    expect(activeInTool).toStrictEqual([tools[0]?.spanContext().spanId]);

    const outbound = named(SPAN.outbound);
    expect(outbound.map((span) => [parentOf(span), span.attributes])).toStrictEqual([
      [
        executeId,
        { [ATTRIBUTE.method]: 'POST', [ATTRIBUTE.callOutcome]: 'returned', [ATTRIBUTE.status]: 201 },
      ],
    ]);
  });

  test('an execution the executor ended carries its code, and a thrown outbound call says so', async () => {
    const envelope = await executor.execute({
      code: `async () => { await fetch('https://example.test/').catch(() => {}); for (;;) {} }`,
      outbound: () => {
        throw new Error('refused by the caller');
      },
      timeout: 300,
    });
    expect(envelope.code).toBe('TIMEOUT');
    expect(named(SPAN.execute).map((span) => span.attributes)).toStrictEqual([
      { [ATTRIBUTE.outcome]: 'TIMEOUT', [ATTRIBUTE.code]: 'TIMEOUT' },
    ]);
    expect(named(SPAN.outbound).map((span) => span.attributes[ATTRIBUTE.callOutcome])).toStrictEqual([
      'thrown',
    ]);
  });

  test('a request refused before it runs still has its execute span', async () => {
    const envelope = await executor.execute({ code: 42 as unknown as string });
    expect(envelope.code).toBe('BAD_REQUEST');
    expect(named(SPAN.execute).map((span) => span.attributes)).toStrictEqual([
      { [ATTRIBUTE.outcome]: 'BAD_REQUEST', [ATTRIBUTE.code]: 'BAD_REQUEST' },
    ]);
  });
});
