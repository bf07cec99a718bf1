/**
 * Supervision of the pool's children: forking them, their start (the first heartbeat answer, within
 * startTimeout, from a start an earlier child made when one is kept: handed-start.ts), their
 * heartbeat, their retirement (a service life of executions and age, a bound on resident memory,
 * or a child that said it is ending or wedged), their termination, and forking replacements, with
 * a growing delay while children fail to start. It moves a child between
 * starting, idle, retainedWork and retiring; the pool moves it through busy and hostWait.
 *
 * It decides nothing about work: what it learns that matters to the queue (a child became able to
 * take work, none can) it tells the pool through SupervisionEvents.
 */

import { availableParallelism } from 'node:os';
import { echo, REASON_ECHO_LIMIT } from '@supolka/codemode-protocol/wire';
import {
  type ChildEvents,
  type EngineReportMessage,
  type ForkOptions,
  type LastWords,
  PoolChild,
} from './child-handle.ts';
import { spawnIdentity } from './child-spawn.ts';
import type { PoolEvent } from './events.ts';
import { WEDGED_REASON } from './exit-cause.ts';
import { HandedStart } from './handed-start.ts';
import type { PoolMessageOf } from './messages/table.ts';
import { withStartPart } from './settings.ts';

/** Why a child started beyond the pool size for nested executions ends. */
export const NESTED_DONE_REASON =
  'it was started beyond the pool size for nested executions, and none waits for it';

/** Why a child that had reported healthy is ended when it answers a heartbeat with a fault. */
export function heartbeatFaultAfterHealthyMessage(fault: string): string {
  return `it answered a heartbeat with a fault after it had reported healthy: ${fault}`;
}

/** How long the pool waits before forking again after children failed to start, at most. */
const MAX_RESPAWN_DELAY = 5000;

export interface SupervisionSettings {
  readonly size: number;
  readonly maxExecutionsPerChild: number;
  readonly maxChildAge: number;
  readonly heartbeatInterval: number;
  readonly heartbeatTimeout: number;
  readonly startTimeout: number;
  /** Resident memory (MB) past which an idle child is recycled. */
  readonly rssLimit: number;
  /**
   * Whether the pool's first child starts alone, the others once it reported healthy (startOneFirst
   * says when): started together, they share the cores with it and its first answer comes later.
   */
  readonly startOneFirst: boolean;
}

/**
 * Whether a pool of `size` starts one child first: when the machine has no core for each child
 * beside the caller's own. Measured on two cores with the default pool of two
 * (docs/pool.md, "Cold start"): the first answer came about 100 ms sooner, one child first.
 */
export function startOneChildFirst(size: number, cores: number = availableParallelism()): boolean {
  return size > 1 && cores <= size;
}

/** What supervision tells the pool. */
export interface SupervisionEvents extends ChildEvents {
  /** A child was forked. */
  spawned(child: PoolChild): void;
  /** A child reported healthy for the first time. */
  healthy(child: PoolChild, engine: EngineReportMessage): void;
  /** A child's retained timer work stopped: queued work may go to it. */
  available(child: PoolChild): void;
  /** No child can take work, nor will one that is starting; what waits is answered with `reason`. */
  noChildCanServe(reason: string): void;
}

export class Supervision {
  readonly #settings: SupervisionSettings;
  readonly #fork: ForkOptions;
  readonly #events: SupervisionEvents;
  readonly #onEvent: ((event: PoolEvent) => void) | undefined;
  readonly #children: PoolChild[] = [];
  readonly #ticker: NodeJS.Timeout;
  #respawn: NodeJS.Timeout | undefined;
  /** Children that failed to start since one last did; it sets the respawn delay. */
  #startFailures = 0;
  /** Why the last child failed to start, while no child is healthy. */
  #startFailure: string | undefined;
  #stopped = false;
  /** Children for nested executions waiting out the respawn delay, by level. */
  readonly #nestedRespawns = new Map<number, NodeJS.Timeout>();
  /** Whether the pool's first child is starting alone, the others held back (startOneFirst). */
  #holding: boolean;
  /** The start a child made, handed to the children spawned after it (handed-start.ts). */
  readonly #handedStart = new HandedStart();

  constructor(
    settings: SupervisionSettings,
    fork: ForkOptions,
    events: SupervisionEvents,
    onEvent: ((event: PoolEvent) => void) | undefined,
  ) {
    this.#settings = settings;
    this.#fork = fork;
    this.#events = events;
    this.#onEvent = onEvent;
    this.#holding = settings.startOneFirst;
    this.#replenish();
    this.#ticker = setInterval(() => this.#tick(), settings.heartbeatInterval);
    // Supervision alone must not keep the caller's process alive; work in flight does (Pool, #updateRef).
    this.#ticker.unref();
  }

  /** The children not yet seen exiting, oldest first. */
  get children(): readonly PoolChild[] {
    return this.#children;
  }

  /** Why the last child failed to start, while no child has reported healthy since. */
  get startFailure(): string | undefined {
    return this.#startFailure;
  }

  /** No more heartbeats, retirements' replacements or respawns: the pool is being disposed. */
  stop(): void {
    this.#stopped = true;
    clearInterval(this.#ticker);
    clearTimeout(this.#respawn);
    for (const timer of this.#nestedRespawns.values()) clearTimeout(timer);
    this.#nestedRespawns.clear();
  }

  /** A child in service now, or one still starting that may yet report healthy. */
  canServeSoon(): boolean {
    return this.#children.some((child) => child.state.inService && child.startFailure === undefined);
  }

  /** Children in service (starting ones included) started for nested executions `level` deep. */
  nestedChildren(level: number): number {
    return this.#children.filter((child) => child.nestingLevel === level && child.state.inService).length;
  }

  /**
   * Starts a child beyond the pool size for nested executions `level` or more deep (nested-executions.ts).
   * While children fail to start, one per level at a time, after the same growing delay as
   * replacements: a broken engine costs one fork per delay here too.
   */
  startNested(level: number): void {
    if (this.#stopped || this.#nestedRespawns.has(level)) return;
    if (this.#startFailures === 0) {
      this.#spawn(level);
      return;
    }
    const timer = setTimeout(() => {
      this.#nestedRespawns.delete(level);
      this.#spawn(level);
    }, this.#respawnDelay());
    timer.unref();
    this.#nestedRespawns.set(level, timer);
  }

  /** Whether a child for nested executions `level` deep is due to start after a failed start. */
  nestedStartPending(level: number): boolean {
    return this.#nestedRespawns.has(level);
  }

  /**
   * A child started for nested executions that none waits for: it leaves service, and ends once
   * what it holds (retained executions) is closed. It is not replaced.
   */
  retireNested(child: PoolChild): void {
    this.#leaveService(child, NESTED_DONE_REASON);
    this.#emit({ type: 'retiring', pid: child.pid, reason: NESTED_DONE_REASON });
    if (child.retained.size === 0) this.terminate(child, NESTED_DONE_REASON);
  }

  /** Children still starting: each will take one queued execution, so they add to the queue's room. */
  starting(): number {
    return this.#children.filter((child) => !child.healthy && child.state.alive && !child.endedByPool).length;
  }

  /** A heartbeat answer: the child's start, then its memory and retained work, and its service life. */
  answered(child: PoolChild, health: PoolMessageOf<'health'>): void {
    child.heartbeat = undefined;
    child.rss = health.rss;
    child.heldRetained = health.retained;
    const wasWorking = child.workingRetained > 0;
    child.workingRetained = health.working ?? 0;
    const phase = child.state.phase;
    if (phase === 'idle' && child.workingRetained > 0) child.state.move('retainedWork');
    if (phase === 'retainedWork' && child.workingRetained === 0) child.state.move('idle');
    // A child whose retained timers stopped working is idle again: queued work may go to it.
    if (wasWorking && child.workingRetained === 0) this.#events.available(child);
    // Too late: a child already given up on (its start timed out) stays given up on.
    if (child.endedByPool) return;
    if (!child.healthy) {
      child.engine = health.engine;
      // How it started; what it committed its snapshot to stays with the hand-on.
      child.start = health.start && {
        snapshot: health.start.snapshot,
        ...(health.start.refused !== undefined ? { refused: health.start.refused } : {}),
        ...(health.start.cacheRefused !== undefined ? { cacheRefused: health.start.cacheRefused } : {}),
      };
      this.#handedStart.started(child, health.start, health.engine);
      if (phase === 'starting') child.state.move(child.workingRetained > 0 ? 'retainedWork' : 'idle');
      this.#startFailures = 0;
      this.#startFailure = undefined;
      this.#emit({
        type: 'healthy',
        pid: child.pid,
        engine: health.engine,
        ...(child.start ? { start: child.start } : {}),
      });
      this.#events.healthy(child, health.engine);
      // The first child of the pool started: the others, held back while it did, start now.
      if (this.#holding) {
        this.#holding = false;
        this.#replenish();
      }
      return;
    }
    if (child.current === undefined) this.retireIfDue(child);
    child.heartbeatsAnswered++;
  }

  /**
   * The heartbeat `id` failed: before the child reported healthy, its engine cannot serve the
   * sandbox, a start failure. After, no child speaking for itself says so: its engine check is
   * made once (child-entry.ts), so every heartbeat gets the same answer. Taken for a start failure,
   * a taken-over child's fault would be counted against starting, and with no other child ready
   * would answer other callers' queued executions with its own text; the pool ends it instead, as
   * any child that breaks the protocol. Undefined when `id` is no heartbeat of this child's.
   */
  heartbeatFault(
    child: PoolChild,
    id: string,
    message: string,
  ): 'start failure' | 'after healthy' | undefined {
    if (child.heartbeat?.id !== id) return undefined;
    child.heartbeat = undefined;
    if (child.healthy) return 'after healthy';
    // Kept, and repeated in every execution refused while no child can serve.
    this.startFailed(child, echo(message, REASON_ECHO_LIMIT));
    return 'start failure';
  }

  /**
   * An isolate the child disposed still runs guest code (wedge.ts). The child takes no new work
   * from now, and is killed once it answered (killIfWedged), so no later execution is ever given
   * to it; the retained executions it holds go with it.
   */
  wedged(child: PoolChild): void {
    if (!child.wedged) {
      child.wedged = true;
      if (child.retiringReason === undefined) {
        this.#leaveService(child, WEDGED_REASON);
        this.#emit({ type: 'retiring', pid: child.pid, reason: WEDGED_REASON });
      }
      this.#replenish();
    }
    this.killIfWedged(child);
  }

  /**
   * Kills a wedged child once its answers are in: its execution's result, and each invocation's
   * answer that followed one of its wedge reports. Killed earlier, it would take that answer with
   * it, and an invocation that timed out would read WORKER_LOST instead of TIMEOUT.
   */
  killIfWedged(child: PoolChild): void {
    if (child.wedged && !child.current && child.answersDue.size === 0) child.kill(WEDGED_REASON);
  }

  /** The child said it is ending itself; it takes no more work, and a replacement starts now. */
  ending(child: PoolChild, message: LastWords): void {
    child.markEnding(message);
    if (child.retiringReason !== undefined) return;
    this.#leaveService(
      child,
      message.type === 'outOfMemory'
        ? 'it is ending: an isolate in it ran out of memory'
        : 'it is ending: its engine could not stop an isolate past its time bound',
    );
    this.#replenish();
  }

  /** Retires an idle child past its service life or its memory bound; true when it did. */
  retireIfDue(child: PoolChild): boolean {
    const phase = child.state.phase;
    if ((phase !== 'idle' && phase !== 'retainedWork') || child.current !== undefined) return false;
    const reason = this.#retirementReason(child);
    if (reason === undefined) return false;
    this.#leaveService(child, reason);
    this.#emit({ type: 'retiring', pid: child.pid, reason });
    // A child holding retained executions stays until they close; it takes no new work meanwhile.
    if (child.retained.size === 0) this.terminate(child, reason);
    else this.#replenish();
    return true;
  }

  startFailed(child: PoolChild, reason: string): void {
    if (child.startFailure !== undefined) return;
    // The first child could not start alone: the children held back start now, as they would have
    // beside it, so one of them may still serve what waits.
    if (this.#holding) {
      this.#holding = false;
      this.#replenish();
    }
    child.startFailure = reason;
    this.#startFailures++;
    this.#startFailure = reason;
    this.#emit({ type: 'unhealthy', pid: child.pid, reason });
    this.terminate(child, `it could not start: ${reason}`);
    // No child can take work, nor will one that is starting: what waits would wait for ever, so it
    // is answered now. A replacement is still forked (with backoff) and may serve later requests.
    if (!this.canServeSoon()) this.#events.noChildCanServe(reason);
  }

  terminate(child: PoolChild, reason: string): void {
    const phase = child.state.phase;
    if (phase === 'terminating' || phase === 'gone') return;
    this.#emit({ type: 'terminating', pid: child.pid, reason });
    child.terminate(reason);
    this.#replenish();
  }

  /** The child's process is gone: it leaves the list. */
  forget(child: PoolChild, cause: string): void {
    this.#children.splice(this.#children.indexOf(child), 1);
    this.#emit({ type: 'exited', pid: child.pid, cause });
  }

  /**
   * The snapshot a child committed to in its first healthy answer, kept with that answer's key and
   * engine report for the children spawned after it; answers why not when the child had committed
   * to none, or to other bytes, which ends it as breaking the protocol.
   */
  snapshot(child: PoolChild, message: PoolMessageOf<'snapshot'>): string | undefined {
    return this.#handedStart.take(child, message);
  }

  /**
   * After a child's exit was dealt with: one that never reported healthy counts against the start it
   * was handed (unless its process never started at all: the start played no part), and a
   * replacement is forked.
   */
  replace(child: PoolChild, cause: string): void {
    if (!child.healthy && child.pid !== -1) this.#handedStart.failedWith(child);
    if (!child.healthy && !this.#stopped) this.startFailed(child, cause);
    this.#replenish();
  }

  /** Marks the child as leaving service, for `reason`; one the pool already ends keeps ending. */
  #leaveService(child: PoolChild, reason: string): void {
    child.retiringReason = reason;
    if (child.state.inService) child.state.move('retiring');
  }

  #spawn(nestingLevel = 0): void {
    if (this.#stopped) return;
    const spawnedAs = spawnIdentity(this.#fork.execArgv);
    const start = this.#handedStart.offer(spawnedAs);
    const wanted = start === undefined && this.#handedStart.wanted(spawnedAs, this.#children);
    const settings = withStartPart(this.#fork.settings, {
      awaitHandOn: start !== undefined,
      handOnWanted: wanted,
    });
    const child = new PoolChild({ ...this.#fork, settings }, this.#events, nestingLevel);
    child.askedForStart = wanted;
    this.#children.push(child);
    // Its first message, which it waits for before it starts (child-entry.ts): before anything the
    // spawned event sends (the packages), which the child would otherwise read as the start not
    // coming. Sent behind the first heartbeat instead, it made a replacement's first answer later,
    // not sooner (measured with bench/cold-start.ts on a loaded machine, about 100 ms at the median).
    if (start !== undefined) {
      child.handedStart = start;
      child.sendText(start);
    }
    this.#events.spawned(child);
    this.#emit({ type: 'spawned', pid: child.pid });
    // The first heartbeat is answered once the engine check finished: that is the child's start.
    child.beat();
  }

  #tick(): void {
    const now = performance.now();
    for (const child of [...this.#children]) {
      const phase = child.state.phase;
      if (phase === 'terminating' || phase === 'gone') continue;
      if (!child.healthy) {
        if (now - child.spawnedAt > this.#settings.startTimeout) {
          this.startFailed(child, `it did not report healthy within ${this.#settings.startTimeout} ms`);
        }
        continue;
      }
      if (child.heartbeat && now - child.heartbeat.sentAt > this.#settings.heartbeatTimeout) {
        const silent = Math.round(now - child.heartbeat.sentAt);
        this.terminate(child, `it stopped answering its heartbeat for ${silent} ms`);
        continue;
      }
      child.beat();
      if (child.current === undefined) this.retireIfDue(child);
    }
  }

  #retirementReason(child: PoolChild): string | undefined {
    const { maxExecutionsPerChild, maxChildAge, rssLimit } = this.#settings;
    if (child.executions >= maxExecutionsPerChild) {
      return `it retired after ${child.executions} executions, its service life`;
    }
    const age = performance.now() - child.spawnedAt;
    if (age >= maxChildAge) return `it retired at its service age of ${maxChildAge} ms`;
    // A child that has served nothing holds only its floor; recycling it would gain nothing and churn.
    const rssMb = child.rss / 2 ** 20;
    if (child.executions > 0 && rssMb > rssLimit) {
      return `it was recycled with ${Math.round(rssMb)} MB resident, past the ${rssLimit} MB bound`;
    }
    return undefined;
  }

  /** Forks children until `size` are in service; after failed starts, with a growing delay. */
  #replenish(): void {
    if (this.#stopped || this.#respawn) return;
    // Children started for nested executions are beyond the size and never replaced.
    const inService = this.#children.filter((child) => child.state.inService && child.nestingLevel === 0);
    const missing = this.#settings.size - inService.length;
    if (missing <= 0) return;
    if (this.#startFailures === 0) {
      // The pool's first child starts alone where the cores are few (startOneFirst).
      const count = this.#holding ? Math.min(missing, 1 - inService.length) : missing;
      for (let index = 0; index < count; index++) this.#spawn();
      return;
    }
    const delay = this.#respawnDelay();
    this.#respawn = setTimeout(() => {
      this.#respawn = undefined;
      if (this.#stopped) return;
      // One at a time while children fail to start: a broken engine costs one fork per delay.
      this.#spawn();
      this.#replenish();
    }, delay);
    this.#respawn.unref();
  }

  /** 100 ms after the first failed start, doubling with each one since a child last started, up to MAX_RESPAWN_DELAY. */
  #respawnDelay(): number {
    return Math.min(100 * 2 ** (this.#startFailures - 1), MAX_RESPAWN_DELAY);
  }

  #emit(event: PoolEvent): void {
    try {
      this.#onEvent?.(event);
    } catch {
      // An observer must not break supervision.
    }
  }
}
