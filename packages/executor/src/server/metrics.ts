/**
 * What the server counts, served at GET /metrics in the Prometheus text format (version 0.0.4).
 * Hand-written: a handful of counters and one histogram do not need a client library.
 */
import { FAULT_CODES } from '@supolka/codemode-protocol';
import type { PoolStats } from '../pool/events.ts';
import type { ExecuteResult } from '../sandbox/sandbox.ts';

/** Upper bounds of the duration histogram, in seconds: from a trivial run to the default bound. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** How a tool call or proxied fetch ended, from the server's side. */
export type CallOutcome = 'returned' | 'thrown' | 'unanswered' | 'lost';
const CALL_OUTCOMES: readonly CallOutcome[] = ['returned', 'thrown', 'unanswered', 'lost'];
const CHILD_STATES = ['starting', 'idle', 'busy', 'retiring'] as const;

export interface Gauges {
  readonly pool: PoolStats;
  readonly connections: number;
  readonly inFlight: number;
}

/** How an execution ended, as the metrics and the log name it: ok, error, or the fault code. */
export function outcomeOf(envelope: ExecuteResult): string {
  return envelope.code ?? (envelope.error === undefined ? 'ok' : 'error');
}

export class ServerMetrics {
  /** By outcome: `ok`, `error` (the program failed) or the fault code the executor ended it with. */
  readonly #executions = new Map<string, number>(['ok', 'error', ...FAULT_CODES].map((key) => [key, 0]));
  readonly #buckets = BUCKETS.map(() => 0);
  #durationSum = 0;
  #durationCount = 0;
  readonly #calls = {
    tool: new Map<CallOutcome, number>(CALL_OUTCOMES.map((key) => [key, 0])),
    outbound: new Map<CallOutcome, number>(CALL_OUTCOMES.map((key) => [key, 0])),
  };

  execution(envelope: ExecuteResult, seconds: number): void {
    const outcome = outcomeOf(envelope);
    this.#executions.set(outcome, (this.#executions.get(outcome) ?? 0) + 1);
    BUCKETS.forEach((bound, index) => {
      if (seconds <= bound) this.#buckets[index] = (this.#buckets[index] ?? 0) + 1;
    });
    this.#durationSum += seconds;
    this.#durationCount += 1;
  }

  call(kind: 'tool' | 'outbound', outcome: CallOutcome): void {
    const counts = this.#calls[kind];
    counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
  }

  render({ pool, connections, inFlight }: Gauges): string {
    const lines: string[] = [];
    const family = (name: string, type: string, help: string) =>
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);

    family(
      'codemode_executions_total',
      'counter',
      'Executions ended, by outcome: ok, error, or the fault code.',
    );
    for (const [outcome, count] of this.#executions) {
      lines.push(`codemode_executions_total{outcome="${outcome}"} ${count}`);
    }
    family(
      'codemode_execution_duration_seconds',
      'histogram',
      'Wall time of executions, request to envelope.',
    );
    BUCKETS.forEach((bound, index) => {
      lines.push(`codemode_execution_duration_seconds_bucket{le="${bound}"} ${this.#buckets[index]}`);
    });
    lines.push(
      `codemode_execution_duration_seconds_bucket{le="+Inf"} ${this.#durationCount}`,
      `codemode_execution_duration_seconds_sum ${this.#durationSum}`,
      `codemode_execution_duration_seconds_count ${this.#durationCount}`,
    );
    family('codemode_tool_calls_total', 'counter', 'Tool calls sent to clients, by how they ended.');
    for (const [outcome, count] of this.#calls.tool) {
      lines.push(`codemode_tool_calls_total{outcome="${outcome}"} ${count}`);
    }
    family(
      'codemode_outbound_requests_total',
      'counter',
      'Proxied fetches sent to clients, by how they ended.',
    );
    for (const [outcome, count] of this.#calls.outbound) {
      lines.push(`codemode_outbound_requests_total{outcome="${outcome}"} ${count}`);
    }
    family('codemode_pool_children', 'gauge', 'Child processes of the pool, by state.');
    for (const state of CHILD_STATES) {
      const count = pool.children.filter((child) => child.state === state).length;
      lines.push(`codemode_pool_children{state="${state}"} ${count}`);
    }
    family('codemode_pool_queue_depth', 'gauge', 'Executions waiting for a child.');
    lines.push(`codemode_pool_queue_depth ${pool.queued}`);
    family(
      'codemode_pool_retained',
      'gauge',
      'Retained executions the children hold, as their last heartbeats said.',
    );
    lines.push(`codemode_pool_retained ${pool.children.reduce((sum, child) => sum + child.retained, 0)}`);
    family('codemode_connections', 'gauge', 'Open client connections.');
    lines.push(`codemode_connections ${connections}`);
    family(
      'codemode_executions_in_flight',
      'gauge',
      'Executions of remote clients in flight, queued or running.',
    );
    lines.push(`codemode_executions_in_flight ${inFlight}`);
    return `${lines.join('\n')}\n`;
  }
}
