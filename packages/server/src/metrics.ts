/**
 * What the server counts, served at GET /metrics in the Prometheus text format (version 0.0.4),
 * through prom-client: the server's own families (docs/server.md, "Health and metrics"), and
 * prom-client's default ones for this process (CPU, resident memory, heap, event loop lag, GC).
 * Each server has a registry of its own, so two servers in one process count apart; the default
 * metrics describe the process, so one registry of them serves every server of the process (each
 * collection starts an event loop monitor and a GC observer that nothing stops: one per process,
 * not one per server created).
 *
 * /metrics needs no token, so what one request costs is what anyone who reaches the port can make
 * the server spend. The default metrics cost about 2 ms a scrape (they read /proc); their text is
 * kept for PROCESS_METRICS_TTL and shared, so a flood of scrapes costs the server's own families
 * only, fractions of a millisecond each.
 */

import { createRequire } from 'node:module';
import type { ExecuteResult, PoolStats } from '@supolka/codemode-executor';
import { outcomeOf } from '@supolka/codemode-executor/serving';
import { FAULT_CODES, REPLAY_DIVERGED } from '@supolka/codemode-protocol/wire';
import type * as PromClient from 'prom-client';

/**
 * prom-client's four classes the server counts with, each required from its own file. Its main
 * entry also loads what the server never uses (the push gateway, the cluster aggregator, the
 * summary) and the default metrics, which load @opentelemetry/api: about 32 ms of the server's
 * start against 3 ms for these four (issue 28; docs/server.md, "Cold start"). The version is
 * pinned in package.json; test/metrics.test.ts and test/entry-points.test.ts hold the paths to it.
 */
const promClient = createRequire(import.meta.url);
const Registry = promClient('prom-client/lib/registry') as typeof PromClient.Registry;
const Counter = promClient('prom-client/lib/counter') as typeof PromClient.Counter;
const Gauge = promClient('prom-client/lib/gauge') as typeof PromClient.Gauge;
const Histogram = promClient('prom-client/lib/histogram') as typeof PromClient.Histogram;
/** A CommonJS module: import() answers its module.exports as the default export. */
const DEFAULT_METRICS: string = 'prom-client/lib/defaultMetrics.js';
type Registry = PromClient.Registry;
type Counter<T extends string = string> = PromClient.Counter<T>;
type Gauge = PromClient.Gauge;
type Histogram = PromClient.Histogram;

/** Upper bounds of the duration histogram, in seconds: from a trivial run to the default bound. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Upper bounds of the queue-wait histogram, in seconds: from an idle child taking it at once to a long queue. */
const QUEUE_WAIT_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
];

/** How a tool call or proxied fetch ended, from the server's side. */
export type CallOutcome = 'returned' | 'thrown' | 'unanswered' | 'lost';
const CALL_OUTCOMES: readonly CallOutcome[] = ['returned', 'thrown', 'unanswered', 'lost'];
const CHILD_STATES = ['starting', 'idle', 'busy', 'retiring'] as const;

/** How long the process metrics' text is served again before it is collected anew, in ms. */
export const PROCESS_METRICS_TTL = 1_000;

export interface Gauges {
  readonly pool: PoolStats;
  readonly connections: number;
  readonly inFlight: number;
}

/** How an execution ended, as the metrics and the log name it: ok, error, or the fault code. */
export { outcomeOf };

let processRegistry: Promise<Registry> | undefined;

/**
 * prom-client's default metrics of this process, collected into one registry the first time one is
 * asked for. Loaded with import(), after the server that asks has started its pool: a command's
 * process then loads them while its first child starts (about 20 ms, on its own thread, which
 * waits for the child), not before it spawns it.
 */
function processMetrics(): Promise<Registry> {
  processRegistry ??= import(DEFAULT_METRICS).then(
    (loaded: { default: unknown }) => {
      const collectDefaultMetrics = loaded.default as typeof PromClient.collectDefaultMetrics;
      const registry = new Registry();
      collectDefaultMetrics({ register: registry });
      return registry;
    },
    (error: unknown) => {
      // Tried again at the next scrape: a load that failed for a while (no file descriptor free)
      // does not leave the process's families out for the rest of its life.
      processRegistry = undefined;
      throw error;
    },
  );
  return processRegistry;
}

/**
 * The process's families as text, or, when prom-client's default metrics cannot be loaded, a comment
 * saying so (a scraper ignores it; a person reading /metrics sees why they are missing): the
 * server's own families are served either way. The comment names no path or cause: /metrics
 * answers anyone who reaches the port.
 */
export const PROCESS_METRICS_MISSING =
  "# The process's metrics (prom-client's default metrics) could not be loaded; the next scrape tries again.\n";

function processMetricsText(): Promise<string> {
  return processMetrics().then(
    (registry) => registry.metrics(),
    () => PROCESS_METRICS_MISSING,
  );
}

export class ServerMetrics {
  /** The server's own families, collected at each scrape. */
  readonly registry = new Registry();
  #processText: { readonly at: number; readonly text: Promise<string> } | undefined;
  /** By outcome: `ok`, `error` (the program failed) or the fault code the executor ended it with. */
  readonly #executions: Counter<'outcome'>;
  readonly #duration: Histogram;
  readonly #queueWait: Histogram;
  readonly #calls: { readonly tool: Counter<'outcome'>; readonly outbound: Counter<'outcome'> };
  readonly #pauses: Counter;
  readonly #resumes: Counter<'outcome'>;
  readonly #divergences: Counter;

  /** `gauges` is read at each scrape: the pool and the connections as they are then. */
  constructor(gauges: () => Gauges) {
    const registers = [this.registry];
    this.#executions = new Counter({
      name: 'codemode_executions_total',
      help: 'Executions ended, by outcome: ok, error, or the fault code.',
      labelNames: ['outcome'],
      registers,
    });
    // Every outcome is listed from the start, at zero, so a rate over it needs no first occurrence.
    for (const outcome of ['ok', 'error', ...FAULT_CODES]) this.#executions.inc({ outcome }, 0);
    this.#pauses = new Counter({
      name: 'codemode_durable_pauses_total',
      help: 'Durable runs (and resumes) that paused, their journal sealed into a token.',
      registers,
    });
    this.#resumes = new Counter({
      name: 'codemode_durable_resumes_total',
      help: 'Resumes of paused durable runs, by outcome: ok, error, paused (again), or the code (a refused token, REPLAY_DIVERGED).',
      labelNames: ['outcome'],
      registers,
    });
    for (const outcome of ['ok', 'error', 'paused']) this.#resumes.inc({ outcome }, 0);
    this.#divergences = new Counter({
      name: 'codemode_durable_divergences_total',
      help: 'Resumes whose program did not make the calls of its journal again (REPLAY_DIVERGED).',
      registers,
    });
    this.#duration = new Histogram({
      name: 'codemode_execution_duration_seconds',
      help: 'Wall time of executions, request to envelope.',
      buckets: BUCKETS,
      registers,
    });
    this.#queueWait = new Histogram({
      name: 'codemode_queue_wait_seconds',
      help: 'Time from execute to a child taking the run, for runs a child took.',
      buckets: QUEUE_WAIT_BUCKETS,
      registers,
    });
    const calls = (name: string, help: string) => {
      const counter = new Counter({ name, help, labelNames: ['outcome'], registers });
      for (const outcome of CALL_OUTCOMES) counter.inc({ outcome }, 0);
      return counter;
    };
    this.#calls = {
      tool: calls('codemode_tool_calls_total', 'Tool calls sent to clients, by how they ended.'),
      outbound: calls(
        'codemode_outbound_requests_total',
        'Proxied fetches sent to clients, by how they ended.',
      ),
    };
    const gauge = (name: string, help: string, read: (now: Gauges, gauge: Gauge) => void, labels = false) =>
      new Gauge({
        name,
        help,
        ...(labels ? { labelNames: ['state'] } : {}),
        registers,
        collect() {
          read(gauges(), this);
        },
      });
    gauge(
      'codemode_pool_children',
      'Child processes of the pool, by state.',
      ({ pool }, metric) => {
        for (const state of CHILD_STATES) {
          metric.set({ state }, pool.children.filter((child) => child.state === state).length);
        }
      },
      true,
    );
    gauge('codemode_pool_queue_depth', 'Executions waiting for a child.', ({ pool }, metric) =>
      metric.set(pool.queued),
    );
    gauge(
      'codemode_pool_retained',
      'Retained executions the children hold, as their last heartbeats said.',
      ({ pool }, metric) => metric.set(pool.children.reduce((sum, child) => sum + child.retained, 0)),
    );
    gauge(
      'codemode_pool_resident_memory_bytes',
      "Resident memory of the pool's children together, as their last heartbeats said.",
      ({ pool }, metric) => metric.set(pool.children.reduce((sum, child) => sum + child.rss, 0)),
    );
    gauge('codemode_connections', 'Open client connections.', ({ connections }, metric) =>
      metric.set(connections),
    );
    gauge(
      'codemode_executions_in_flight',
      'Executions of remote clients in flight, queued or running.',
      ({ inFlight }, metric) => metric.set(inFlight),
    );
  }

  execution(envelope: ExecuteResult, seconds: number): void {
    this.#executions.inc({ outcome: outcomeOf(envelope) });
    this.#duration.observe(seconds);
    if (envelope.paused !== undefined) this.#pauses.inc();
  }

  /** A resume ended (counted as an execution too): how, and whether it diverged from its journal. */
  resume(envelope: ExecuteResult): void {
    this.#resumes.inc({ outcome: outcomeOf(envelope) });
    if (envelope.code === REPLAY_DIVERGED) this.#divergences.inc();
  }

  /** A child took a run `seconds` after its execute (the pool's hand-off, through IsolateExecutor's onExecution). */
  queueWait(seconds: number): void {
    this.#queueWait.observe(seconds);
  }

  call(kind: 'tool' | 'outbound', outcome: CallOutcome): void {
    this.#calls[kind].inc({ outcome });
  }

  /**
   * Starts collecting prom-client's default metrics of this process: the server calls it once its
   * pool is forking its first child, the first scrape otherwise. They are served at most
   * PROCESS_METRICS_TTL old.
   */
  collectProcessMetrics(): void {
    // A load that fails (a damaged install) is told at the scrape (processMetricsText), not as an
    // unhandled rejection that would end the process.
    processMetrics().catch(() => {});
  }

  /** The Prometheus text of every family: the server's read now, the process's at most PROCESS_METRICS_TTL old. */
  async render(): Promise<string> {
    const now = performance.now();
    if (this.#processText === undefined || now - this.#processText.at >= PROCESS_METRICS_TTL) {
      this.#processText = { at: now, text: processMetricsText() };
    }
    const [own, process] = await Promise.all([this.registry.metrics(), this.#processText.text]);
    return `${own.trimEnd()}\n${process}`;
  }

  /** The content type of render's text. */
  get contentType(): string {
    return this.registry.contentType;
  }
}
