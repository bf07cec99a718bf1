/**
 * What the pool reports about its children, for logs and metrics and for tests that watch
 * supervision happen. Every event names the child's pid; a child whose process could not be started
 * at all (no descriptor left, an environment past the kernel's bounds) is named -1, never a
 * process's: its `unhealthy` and `exited` say why. Signal no pid an event names without checking it
 * is positive (`process.kill(-1)` signals every process the user may). A child that ends before it
 * reports healthy, started or not, is reported `exited` and then `unhealthy`.
 */
import type { EngineReportMessage } from './child-handle.ts';
import type { ChildPhase } from './child-state.ts';
import type { StartReport } from './messages/health.ts';

export type { ChildPhase };

export type PoolEvent =
  /** A child process was forked. */
  | { readonly type: 'spawned'; readonly pid: number }
  /** It answered its first heartbeat: its engine serves the sandbox, and it takes work. */
  | {
      readonly type: 'healthy';
      readonly pid: number;
      readonly engine: EngineReportMessage;
      /**
       * Whether it started from the start an earlier child made (docs/pool.md, "Handing the start
       * on"), or an earlier process's child kept on disk ("The start cache on disk").
       */
      readonly start?: StartReport;
    }
  /** Its engine cannot serve the sandbox; it never takes work. */
  | { readonly type: 'unhealthy'; readonly pid: number; readonly reason: string }
  /** It leaves service once idle (service life, age, resident memory); a replacement is forked. */
  | { readonly type: 'retiring'; readonly pid: number; readonly reason: string }
  /** The pool is ending it, and why (an unanswered heartbeat, a protocol violation, retirement, dispose). */
  | { readonly type: 'terminating'; readonly pid: number; readonly reason: string }
  /** The process is gone, and how. */
  | { readonly type: 'exited'; readonly pid: number; readonly cause: string };

export interface ChildStats {
  readonly pid: number;
  /** The coarse view metrics count: busy covers hostWait and retainedWork, retiring covers terminating. */
  readonly state: 'starting' | 'idle' | 'busy' | 'retiring';
  /** Its one explicit state (child-state.ts). */
  readonly phase: ChildPhase;
  readonly executions: number;
  /** 0 for the pool's own children; d for one started beyond the pool size for nested executions d levels deep. */
  readonly nestingLevel: number;
  /** Heartbeats it answered since it became healthy; the pool reviews its service at each. */
  readonly heartbeatsAnswered: number;
  /** Whether its isolate for the next execution is ready. */
  readonly prepared: boolean;
  /** Resident memory at the last heartbeat, in bytes. */
  readonly rss: number;
  /** Retained executions the pool routes to it. */
  readonly retained: number;
  /** Retained executions (isolates kept alive) the child reported at its last heartbeat. */
  readonly heldRetained: number;
}

export interface PoolStats {
  readonly children: readonly ChildStats[];
  readonly queued: number;
}
