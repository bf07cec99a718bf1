/**
 * The per-execution observer of IsolateExecutor (its `onExecution` option): once each execution
 * has its envelope, the observer gets what it cost, measured as it ran (pool/meter.ts). An
 * observer that throws harms nothing: the throw is dropped, and the caller gets its envelope.
 */
import type { EnvelopeCode } from '@supolka/codemode-protocol/wire';
import { ExecutionMeter } from '../pool/meter.ts';
import type { ExecuteResult } from '../sandbox/sandbox.ts';

export interface ExecutionReport {
  /** Milliseconds from `execute` to the envelope. */
  readonly duration: number;
  /** Milliseconds from `execute` to a child taking the run; undefined when none did (refused, cancelled or disposed first). */
  readonly queueWait: number | undefined;
  /** `ok`, `error` (the program failed), `paused` (a durable run paused), or the code the executor ended the run with. */
  readonly outcome: string;
  /** The code, when the executor ended the run. */
  readonly code: EnvelopeCode | undefined;
  /** Tool calls the program made. */
  readonly toolCalls: number;
  /** Proxied outbound requests the program made. */
  readonly outboundRequests: number;
  /** UTF-8 bytes sent to the child for the run: the execute message and the answers to its calls. */
  readonly bytesOut: number;
  /** UTF-8 bytes the child sent for the run: its calls and its result. */
  readonly bytesIn: number;
}

export type ExecutionObserver = (report: ExecutionReport) => void;

/** How an execution ended, as an observer, the tracing and the server's metrics name it. */
export function outcomeOf(envelope: ExecuteResult): string {
  if (envelope.paused !== undefined) return 'paused';
  return envelope.code ?? (envelope.error === undefined ? 'ok' : 'error');
}

/** Runs `start` with a meter for the pool to fill, then tells `observer` what the run cost. */
export async function observeExecution(
  observer: ExecutionObserver,
  start: (meter: ExecutionMeter) => Promise<ExecuteResult>,
): Promise<ExecuteResult> {
  const meter = new ExecutionMeter();
  const started = performance.now();
  const envelope = await start(meter);
  const report: ExecutionReport = {
    duration: performance.now() - started,
    queueWait: meter.queueWait,
    outcome: outcomeOf(envelope),
    code: envelope.code,
    toolCalls: meter.toolCalls,
    outboundRequests: meter.outboundRequests,
    bytesOut: meter.bytesOut,
    bytesIn: meter.bytesIn,
  };
  try {
    observer(report);
  } catch {
    // An observer must not fail the run it observes.
  }
  return envelope;
}
