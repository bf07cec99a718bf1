/**
 * Chaos: the mix under load (reliability/mix.ts) while children are sent SIGKILL and SIGSTOP at
 * random moments. A killed child's run must come back WORKER_LOST naming the kill, a stopped
 * child's WORKER_LOST naming its silence once the heartbeat timeout ends it, and every other run
 * as its kind ends; none may wait past its bound; the pool must return to its size with every
 * victim gone, and the caller's descriptors, handles and memory must be where they were.
 */

import type { IsolateExecutor } from '@supolka/codemode-executor';
import { workerLostMessage } from '@supolka/codemode-protocol';
import { startLoopbackEcho } from './loopback-echo.ts';
import { type KindName, type Outcome, runKind, schedule, seeded } from './mix.ts';
import { type ParentSample, processAlive, sampleParent } from './process-sample.ts';
import { settledParent, settledPool } from './soak.ts';

export type ChaosExecutor = Pick<IsolateExecutor, 'execute' | 'invoke' | 'closeHandles' | 'stats' | 'engine'>;

export interface ChaosOptions {
  readonly executor: ChaosExecutor;
  readonly poolSize: number;
  /** Runs to make, at least: the load goes on until every signal was sent (at most ten times as many). */
  readonly executions: number;
  readonly callers: number;
  /** Signals to send, at most: SIGKILL or SIGSTOP, each to a random child in service. */
  readonly signals: number;
  /** The pause before each signal is drawn between these, in ms. */
  readonly pause: readonly [number, number];
  readonly seed: number;
  /** Executions run before the caller's figures are first read and the first signal goes, not counted. */
  readonly warmup: number;
  /** An execution that takes longer than this from its call to its envelope waited past its bound (ms). */
  readonly bound: number;
}

export interface Victim {
  readonly pid: number;
  readonly signal: 'SIGKILL' | 'SIGSTOP';
  /** The child's phase when the signal went. */
  readonly phase: string;
  /** When, in ms from the load's start. */
  readonly at: number;
}

export interface ChaosReport {
  readonly executions: number;
  readonly seconds: number;
  readonly victims: readonly Victim[];
  readonly outcomes: Record<string, Record<string, number>>;
  /** WORKER_LOST envelopes, by the cause they named. */
  readonly lost: { readonly killed: number; readonly silent: number; readonly other: readonly string[] };
  /** Envelopes that were neither their kind's nor WORKER_LOST. */
  readonly wrong: readonly Outcome[];
  /** The longest an execution took from its call to its envelope (ms), and how many passed `bound`. */
  readonly longest: number;
  readonly pastBound: readonly {
    kind: KindName;
    outcome: string;
    /** When it was called, in ms from the load's start, and how long it took. */
    at: number;
    took: number;
    error: string | undefined;
  }[];
  /** Victims still alive once the pool settled. */
  readonly survivors: readonly number[];
  readonly parentBefore: ParentSample;
  readonly parentAfter: ParentSample;
}

/** The chaos mix: no retained executions, so a lost child takes exactly one execution with it. */
export const CHAOS_WEIGHTS: Readonly<Partial<Record<KindName, number>>> = {
  trivial: 4,
  compute: 3,
  tools: 3,
  toolError: 1,
  fetch: 2,
  throw: 1,
  timeout: 1,
  memory: 1,
};

const KILLED = workerLostMessage('its process was killed with SIGKILL from outside the pool');
const SILENT = /^The worker running this execution was lost: it stopped answering its heartbeat for \d+ ms; /;

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const { executor } = options;
  const echo = await startLoopbackEcho();
  const random = seeded(options.seed);
  const next = schedule(CHAOS_WEIGHTS, random);
  await executor.engine();
  // What loads once in the caller (fetch's client, the codec's caches) is not read as growth.
  let warmed = 0;
  const warm = async () => {
    while (warmed < options.warmup)
      await runKind({ executor, origin: echo.origin }, next(warmed), `warm-${warmed++}`);
  };
  await Promise.all(Array.from({ length: options.callers }, warm));
  await settledPool(executor, options.poolSize);
  const parentBefore = sampleParent();
  const outcomes: Record<string, Record<string, number>> = {};
  const wrong: Outcome[] = [];
  const lost = { killed: 0, silent: 0, other: [] as string[] };
  const victims: Victim[] = [];
  let longest = 0;
  const pastBound: ChaosReport['pastBound'][number][] = [];
  let sent = 0;
  let done = false;
  const context = { executor, origin: echo.origin };
  const started = performance.now();
  // The load lasts at least `executions` runs and until every signal has been sent: a machine fast
  // enough to finish the runs before the last pause ended would otherwise leave signals unsent.
  // Ten times the runs bound it, should no child ever be there to signal.
  const loadGoesOn = () =>
    sent < options.executions || (victims.length < options.signals && sent < 10 * options.executions);
  const caller = async () => {
    while (loadGoesOn()) {
      const index = sent++;
      const kind = next(index);
      const token = `chaos-${options.seed}-${index}`;
      const sentAt = performance.now();
      const outcome = await runKind(context, kind, token);
      const took = performance.now() - sentAt;
      longest = Math.max(longest, took);
      if (took > options.bound)
        pastBound.push({
          kind,
          outcome: outcome.outcome,
          at: Math.round(sentAt - started),
          took: Math.round(took),
          error: outcome.envelope.error,
        });
      const counts = outcomes[kind] ?? {};
      outcomes[kind] = counts;
      counts[outcome.outcome] = (counts[outcome.outcome] ?? 0) + 1;
      if (outcome.wrong === undefined) continue;
      const { code, error = '' } = outcome.envelope;
      if (code !== 'WORKER_LOST') wrong.push(outcome);
      else if (error.startsWith(KILLED.slice(0, -1))) lost.killed++;
      else if (SILENT.test(error)) lost.silent++;
      else lost.other.push(error);
    }
  };
  const chaos = async () => {
    while (!done && victims.length < options.signals) {
      const [low, high] = options.pause;
      await new Promise((resolve) => setTimeout(resolve, low + random() * (high - low)));
      if (done) return;
      const serving = executor
        .stats()
        .children.filter((child) => ['idle', 'busy', 'hostWait'].includes(child.phase))
        // A stopped child reads as serving until its heartbeat times out; signalled again, it
        // would end as killed, and its stop would never be seen for what it is.
        .filter((child) => !victims.some((victim) => victim.pid === child.pid));
      const child = serving[Math.floor(random() * serving.length)];
      if (child === undefined) continue;
      const signal = random() < 0.7 ? 'SIGKILL' : 'SIGSTOP';
      try {
        process.kill(child.pid, signal);
        victims.push({
          pid: child.pid,
          signal,
          phase: child.phase,
          at: Math.round(performance.now() - started),
        });
      } catch {
        // It ended between the reading and the signal: nothing was sent.
      }
    }
  };
  const load = Promise.all(Array.from({ length: options.callers }, caller)).finally(() => {
    done = true;
  });
  await Promise.all([load, chaos()]);
  const seconds = (performance.now() - started) / 1000;
  await settledPool(executor, options.poolSize);
  const survivors = victims.map((victim) => victim.pid).filter(processAlive);
  const parentAfter = await settledParent(parentBefore);
  await echo.close();
  return {
    executions: sent,
    seconds,
    victims,
    outcomes,
    lost,
    wrong,
    longest,
    pastBound,
    survivors,
    parentBefore,
    parentAfter,
  };
}
