/**
 * The soak: many mixed executions through one IsolateExecutor, two callers per child, every
 * envelope checked against the token its execution carried (reliability/mix.ts). Beside the
 * outcomes it samples each child's resident memory through its life and the caller's own
 * descriptors, handles and memory before and after, so growth shows as a figure.
 */
import type { IsolateExecutor } from '@supolka/codemode-executor';
import { startLoopbackEcho } from './loopback-echo.ts';
import { type KindName, type Outcome, runKind, SOAK_WEIGHTS, schedule, seeded } from './mix.ts';
import { type ParentSample, residentOf, sampleParent } from './process-sample.ts';
import type { ChildLife } from './resident-life.ts';

/** What the soak needs of an executor: the public methods, so the build's class serves as well as the source's. */
export type SoakExecutor = Pick<IsolateExecutor, 'execute' | 'invoke' | 'closeHandles' | 'stats' | 'engine'>;

export interface SoakOptions {
  readonly executor: SoakExecutor;
  readonly executions: number;
  readonly callers: number;
  /** The pool's size, which the pool must be back at once the load ends. */
  readonly poolSize: number;
  readonly seed: number;
  /** Executions a child serves before its resident memory counts as settled. */
  readonly warmup: number;
  /** How often every child's resident memory is read, in ms. */
  readonly sampleInterval: number;
  /** Executions run before the caller's descriptors, handles and memory are first read. */
  readonly parentWarmup: number;
  /** An execution not settled this long after it was sent counts as lost (ms). */
  readonly lostAfter: number;
  readonly weights?: Readonly<Partial<Record<KindName, number>>>;
  /** Called every 1000 settled executions with how many have settled. */
  readonly onProgress?: (settled: number) => void;
}

export interface SoakReport {
  readonly executions: number;
  /** How long the executions after the caller's warm-up took. */
  readonly seconds: number;
  /** Per kind, per outcome, how many. */
  readonly outcomes: Record<string, Record<string, number>>;
  /** Envelopes that were not what their kind ends in: a wrong code, a wrong or foreign token. */
  readonly wrong: readonly Outcome[];
  /** Envelopes of the kinds the executor ends (timeout, spin, memory) whose run ended before it logged its token. */
  readonly unlogged: number;
  /** Executions with no envelope within `lostAfter`. */
  readonly lost: readonly { kind: KindName; token: string }[];
  readonly lives: readonly ChildLife[];
  readonly parentBefore: ParentSample;
  readonly parentAfter: ParentSample;
}

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const { executor } = options;
  const echo = await startLoopbackEcho();
  const random = seeded(options.seed);
  const next = schedule(options.weights ?? SOAK_WEIGHTS, random);
  const lives = new Map<number, ChildLife>();
  const sample = () => {
    for (const child of executor.stats().children) {
      const rss = residentOf(child.pid);
      if (rss === undefined || child.phase === 'starting') continue;
      const life = lives.get(child.pid) ?? { pid: child.pid, samples: [] };
      lives.set(child.pid, life);
      life.samples.push({ executions: child.executions, rss });
    }
  };
  await executor.engine();
  let sampler = setInterval(sample, options.sampleInterval);
  const outcomes: Record<string, Record<string, number>> = {};
  const wrong: Outcome[] = [];
  const lost: { kind: KindName; token: string }[] = [];
  let sent = 0;
  let settled = 0;
  let unlogged = 0;
  const context = { executor, origin: echo.origin };
  const callers = async (until: number) => {
    const caller = async () => {
      while (sent < until) {
        const index = sent++;
        const kind = next(index);
        const token = `soak-${options.seed}-${index}-${Math.floor(random() * 2 ** 32).toString(36)}`;
        const outcome = await withinBound(runKind(context, kind, token), options.lostAfter);
        settled++;
        if (settled % 1000 === 0) options.onProgress?.(settled);
        if (outcome === undefined) {
          lost.push({ kind, token });
          continue;
        }
        const counts = outcomes[kind] ?? {};
        outcomes[kind] = counts;
        counts[outcome.outcome] = (counts[outcome.outcome] ?? 0) + 1;
        if (outcome.wrong !== undefined) wrong.push(outcome);
        else if (outcome.envelope.code !== undefined && outcome.envelope.logs.length === 0) unlogged++;
      }
    };
    await Promise.all(Array.from({ length: options.callers }, caller));
  };
  // The caller's own figures are read after a first stretch of the load, so what loads once
  // (fetch's client, the codec's caches) is not read as growth, and with the pool at rest.
  await callers(Math.min(options.parentWarmup, options.executions));
  await settledPool(executor, options.poolSize);
  // The sampler's own timer is not the caller's: it is stopped around both readings.
  clearInterval(sampler);
  const parentBefore = sampleParent();
  sampler = setInterval(sample, options.sampleInterval);
  const started = performance.now();
  await callers(options.executions);
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  await settledPool(executor, options.poolSize);
  const parentAfter = await settledParent(parentBefore);
  await echo.close();
  return {
    executions: options.executions,
    seconds,
    outcomes,
    wrong,
    unlogged,
    lost,
    lives: [...lives.values()],
    parentBefore,
    parentAfter,
  };
}

/**
 * The caller's figures once the sockets a finished load leaves closing (fetch's keep-alive ones)
 * are gone: read again for up to `ms` until descriptors and handles are back at `before`, and the
 * last reading whatever it says.
 */
export async function settledParent(before: ParentSample, ms = 5000): Promise<ParentSample> {
  const until = Date.now() + ms;
  for (;;) {
    const now = sampleParent();
    if ((now.fds <= before.fds && now.handles <= before.handles) || Date.now() > until) return now;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The outcome, or undefined when it did not come within `ms`. */
function withinBound<Value>(promise: Promise<Value>, ms: number): Promise<Value | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * Waits until the pool holds `size` children, every one idle, prepared and holding nothing: the
 * state to read the caller's own descriptors in, since each child holds pipes of the parent's.
 */
export async function settledPool(
  executor: Pick<IsolateExecutor, 'stats'>,
  size: number,
  ms = 60_000,
): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const { children, queued } = executor.stats();
    if (
      queued === 0 &&
      children.length === size &&
      children.every((child) => child.phase === 'idle' && child.prepared && child.retained === 0)
    )
      return;
    if (Date.now() > until)
      throw new Error(
        `the pool did not settle at ${size} idle children within ${ms} ms: ${JSON.stringify(children)}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
