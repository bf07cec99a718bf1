/**
 * A pool child's one explicit state, and every move it may make. The pool asks for a move at the
 * point where it learns something (a heartbeat answer, a result, a tool call, a retirement, an
 * exit); the table below is the only place that says which moves exist. A move it does not list is
 * a defect of the pool, never of the child: the child's messages are checked before any move, so a
 * hostile or broken child is a protocol violation and cannot reach an illegal move.
 *
 *   starting ──► idle ◄──► busy ◄──► hostWait
 *      │          ▲ │       │           │
 *      │          │ ▼       ▼           ▼
 *      │     retainedWork ──► retiring ──► terminating ──► gone
 *      └────────────────────────┴──────────────┴────────────┘ (any state may end in terminating or gone)
 */

export type ChildPhase =
  /** Forked; its first heartbeat answer (the engine check) has not come. It takes no work. */
  | 'starting'
  /** Healthy, running nothing, with no retained timer work: it may take an execution. */
  | 'idle'
  /** Running an execution. */
  | 'busy'
  /** Running an execution that waits on the caller: a tool call or an outbound request is being served here. */
  | 'hostWait'
  /** Running no execution, but the timers of retained executions it holds are working: that core is busy. */
  | 'retainedWork'
  /** Leaving service: it takes no new work and is ended once what it holds is done. */
  | 'retiring'
  /** The pool is ending the process (SIGTERM, then SIGKILL; or SIGKILL at once). */
  | 'terminating'
  /** The process has exited. */
  | 'gone';

/** Every move a child may make, by the state it is in. */
const TRANSITIONS: { readonly [From in ChildPhase]: readonly ChildPhase[] } = {
  starting: ['idle', 'retainedWork', 'retiring', 'terminating', 'gone'],
  idle: ['busy', 'retainedWork', 'retiring', 'terminating', 'gone'],
  busy: ['hostWait', 'idle', 'retainedWork', 'retiring', 'terminating', 'gone'],
  hostWait: ['busy', 'idle', 'retainedWork', 'retiring', 'terminating', 'gone'],
  retainedWork: ['idle', 'retiring', 'terminating', 'gone'],
  retiring: ['terminating', 'gone'],
  terminating: ['gone'],
  gone: [],
};

export function illegalTransitionMessage(from: ChildPhase, to: ChildPhase): string {
  return `A pool child cannot move from ${from} to ${to}: the pool asked for a move its state table does not allow.`;
}

export function canMove(from: ChildPhase, to: ChildPhase): boolean {
  return TRANSITIONS[from].includes(to);
}

/** The state of one child. */
export class ChildLifecycle {
  #phase: ChildPhase = 'starting';

  get phase(): ChildPhase {
    return this.#phase;
  }

  /** Moves to `to`; throws when the table does not allow it, which is a defect of the pool. */
  move(to: ChildPhase): void {
    if (!canMove(this.#phase, to)) throw new Error(illegalTransitionMessage(this.#phase, to));
    this.#phase = to;
  }

  /** Whether the process is still there. */
  get alive(): boolean {
    return this.#phase !== 'gone';
  }

  /** Whether it is in service: not retiring, terminating or gone (it may still be starting). */
  get inService(): boolean {
    return this.#phase !== 'retiring' && this.#phase !== 'terminating' && this.#phase !== 'gone';
  }

  /** Whether it runs an execution and is in service. */
  get running(): boolean {
    return this.#phase === 'busy' || this.#phase === 'hostWait';
  }
}
