/**
 * The parent's handle on one child process: forking it, its channel, its health as the heartbeat
 * last saw it, and ending it (SIGTERM, then SIGKILL when that goes unanswered). The pool decides
 * what to do; this file knows how to do it to one process.
 */
import { ChildProcess } from 'node:child_process';
import { Duplex, type Readable } from 'node:stream';
import { Channel } from './channel.ts';
import { type ChildCommand, type ChildFork, childCommand, spawnChild, spawnIdentity } from './child-spawn.ts';
import { ChildLifecycle } from './child-state.ts';
import { adoptEarlyChild } from './early-child.ts';
import type { PoolExecution } from './execution.ts';
import { describeEnd, type Termination } from './exit-cause.ts';
import type { StartCommitment } from './handed-start.ts';
import type { StartReport } from './messages/health.ts';
import { validatePoolMessageOnDemand } from './messages/schemas-on-demand.ts';
import type { PoolMessage, PoolMessageOf } from './messages/table.ts';

/** How much of a child's stderr is kept to explain its end. */
const STDERR_TAIL = 16 * 1024;

export type EngineReportMessage = PoolMessageOf<'health'>['engine'];

/** What a child says as it ends itself: for memory (`outOfMemory`) or a run past its bound (`timedOut`). */
export type LastWords = PoolMessageOf<'outOfMemory'> | PoolMessageOf<'timedOut'>;

export interface ChildEvents {
  /** A message that passed validation. */
  message(child: PoolChild, message: PoolMessage): void;
  /** A message that did not: the child is not speaking the protocol. */
  invalid(child: PoolChild, reason: string): void;
  /** The process is gone; `cause` says how, in words for WORKER_LOST. */
  exit(child: PoolChild, cause: string): void;
}

export interface ForkOptions extends ChildFork {
  readonly killTimeout: number;
}

/**
 * The child spawned, or, where Node refused the spawn by throwing (E2BIG, ENOMEM, EPERM) rather than
 * by an 'error' event (EMFILE, ENOENT, EACCES), a process that never started and reports that
 * refusal as its 'error' on the next tick: the pool meets both alike, as a start that failed,
 * wherever it spawns (a replacement spawns from an exit handler or a timer, where a throw would end
 * the caller's process).
 */
function spawnOrFailLater(command: ChildCommand): ChildProcess {
  try {
    return spawnChild(command);
  } catch (error) {
    const never = new ChildProcess();
    process.nextTick(() => never.emit('error', error));
    return never;
  }
}

/** A stream nothing is read from and whatever is written to is dropped: the channel of a child that never started. */
function nowhere(): Duplex {
  return new Duplex({
    read() {},
    write(_chunk, _encoding, done) {
      done();
    },
  });
}

export class PoolChild {
  readonly process: ChildProcess;
  readonly channel: Channel;
  readonly pid: number;
  /** When it was spawned (performance.now()): by the pool, or earlier by its command (early-child.ts). */
  readonly spawnedAt: number;
  /**
   * 0 for a child of the pool's own size; d for one started beyond it for nested executions d
   * levels deep (nested-executions.ts), which takes only executions at least that deep and ends once none waits.
   */
  readonly nestingLevel: number;
  /** Its one state (child-state.ts): the pool moves it; this file moves it to terminating and gone. */
  readonly state = new ChildLifecycle();
  /** Set by the first healthy heartbeat answer: its engine serves the sandbox. */
  engine: EngineReportMessage | undefined;
  /** Executions assigned to it over its life. */
  executions = 0;
  /** Resident memory at the last heartbeat, in bytes. */
  rss = 0;
  /** Heartbeats it answered healthy; each is a point where the pool decided on its service. */
  heartbeatsAnswered = 0;
  /** Retained executions the child said it holds at its last heartbeat. */
  heldRetained = 0;
  /** Of those, the ones it said were running timer work then: while any are, it is not idle. */
  workingRetained = 0;
  /** Tool calls and outbound requests of its current execution being served in this process. */
  hostCalls = 0;
  /** The one execution it runs; it stays set after a cancel until the child answers. */
  current: PoolExecution | undefined;
  /** When it last became idle. */
  idleSince = performance.now();
  /** Whether its isolate for the next execution is ready (it said so since its last execution). */
  prepared = false;
  /** What it said before it ended itself (memory-guard.ts): whose death it is, and of what. */
  lastWords: LastWords | undefined;
  /** Retained executions it holds: it is not retired while it holds any. */
  readonly retained = new Set<string>();
  /** Why it could not start, once the pool gave up on it. */
  startFailure: string | undefined;
  /** What it was spawned as (spawnIdentity). */
  readonly spawnedAs: string;
  /** The start handed on to it at spawn (the `handOn` text), if one was. */
  handedStart: string | undefined;
  /** Whether it was asked to hand its own start on (handed-start.ts). */
  askedForStart = false;
  /** What its first healthy answer committed its snapshot to, until the snapshot arrives. */
  commitment: StartCommitment | undefined;
  /** How it started, as its first healthy heartbeat answer said. */
  start: StartReport | undefined;
  /** Why it is leaving service, once it is (it is retiring or terminating then). */
  retiringReason: string | undefined;
  /** It said an isolate it disposed is still running (wedge.ts): it is killed once it answered. */
  wedged = false;
  /** Invoke conversations its wedge reports came before: it is killed only once each is answered. */
  readonly answersDue = new Set<string>();
  /** The heartbeat waiting for an answer, and when it was sent. */
  heartbeat: { readonly id: string; readonly sentAt: number } | undefined;
  /** Resolves once the process has exited and its handles in this process are closed. */
  readonly exited: Promise<void>;
  #heartbeats = 0;
  #termination: Termination | undefined;
  #killTimer: NodeJS.Timeout | undefined;
  #stderr = '';
  readonly #killTimeout: number;

  constructor(options: ForkOptions, events: ChildEvents, nestingLevel = 0) {
    this.#killTimeout = options.killTimeout;
    this.nestingLevel = nestingLevel;
    this.spawnedAs = spawnIdentity(options.execArgv);
    const command = childCommand(options);
    // The child its command started before it loaded, when it is the very one this would spawn.
    const early = adoptEarlyChild(command);
    this.process = early?.process ?? spawnOrFailLater(command);
    this.spawnedAt = early?.spawnedAt ?? performance.now();
    this.pid = this.process.pid ?? -1;
    // A process that could not be started (EMFILE, say) has no pipes: its 'error' below reports it,
    // and the channel is one nothing is read from and what is written to goes nowhere.
    const stderr = this.process.stderr as Readable | null | undefined;
    stderr?.setEncoding('utf8');
    stderr?.on('data', (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-STDERR_TAIL);
    });
    this.channel = new Channel(
      (this.process.stdio?.[3] as Duplex | null | undefined) ?? nowhere(),
      {
        received: (decoded) => {
          if (decoded.ok) events.message(this, decoded.message);
          else events.invalid(this, decoded.fault.message);
        },
        violation: (reason) => events.invalid(this, reason),
        // The exit event says how it ended, a frame its end cut short included: a child killed
        // mid-write (by the kernel's OOM killer, say) reads as killed, not as a protocol violation.
        closed: () => {},
      },
      { holdReadingOnBacklog: true, schemaPath: validatePoolMessageOnDemand },
    );
    let resolveExited: () => void = () => {};
    this.exited = new Promise((resolve) => {
      resolveExited = resolve;
    });
    const gone = (code: number | null, signal: NodeJS.Signals | null, failure?: Error) => {
      if (!this.state.alive) return;
      this.state.move('gone');
      clearTimeout(this.#killTimer);
      const cause = failure
        ? `its process could not be started: ${failure.message}`
        : describeEnd({
            code,
            signal,
            stderr: this.#stderr,
            termination: this.#termination,
            lastRss: this.rss || undefined,
            lastWords: this.lastWords,
          });
      events.exit(this, cause);
      // A process that never started has no 'close' to wait for; the pipes Node made for a spawn it
      // refused by throwing close at the end of this loop turn, so the next timer turn has them gone.
      if (failure) setTimeout(resolveExited, 0);
    };
    this.process.on('exit', (code, signal) => gone(code, signal));
    // 'exit' comes while the process handle is still closing, and dispose() keeps it referenced
    // until then, so a caller counting handles right after dispose() would still see it. 'close'
    // follows once the stdio pipes (the channel among them) are closed too; the process handle's
    // own close finishes at the end of the loop turn that saw the exit, so the next timer turn has
    // it gone.
    this.process.on('close', () => setTimeout(resolveExited, 0));
    // Only a process that never started reports 'error' without an 'exit' after it.
    this.process.on('error', (error) => {
      if (this.process.pid === undefined) gone(null, null, error);
    });
  }

  get alive(): boolean {
    return this.state.alive;
  }

  /** Whether it ever answered healthy. */
  get healthy(): boolean {
    return this.engine !== undefined;
  }

  /** Whether the pool ended it (it is terminating, or gone since). */
  get endedByPool(): boolean {
    return this.#termination !== undefined;
  }

  /** Sends a message; answers its UTF-8 bytes. */
  send(message: PoolMessage): number {
    return this.channel.send(message);
  }

  sendText(text: string): number {
    return this.channel.sendText(text);
  }

  /**
   * Sends a heartbeat unless one is still waiting for its answer. Its id is a count, and needs no
   * secrecy: a child answers only on its own channel, the pool takes an answer only to the one
   * heartbeat it has in flight to that child (any other id is a violation that ends the child:
   * pool.ts, #health), and the child has that id in hand anyway, since the heartbeat carried it.
   * Guessing the next id buys an answer sent early, which is a violation too; what an answer says
   * (its memory, its retained executions) is the child's word whatever the id is.
   */
  beat(): void {
    if (this.heartbeat || this.endedByPool || !this.alive) return;
    const id = `h${this.#heartbeats++}`;
    this.heartbeat = { id, sentAt: performance.now() };
    this.send({ type: 'heartbeat', id });
  }

  /**
   * Ends the process: SIGTERM first, so a responsive child exits on its own, then SIGKILL after
   * killTimeout for one that cannot (a blocked event loop never runs its signal handler).
   */
  terminate(reason: string): void {
    if (this.#termination || !this.alive) return;
    const termination: Termination = { reason, killed: false };
    this.#termination = termination;
    this.state.move('terminating');
    this.process.kill('SIGTERM');
    this.#killTimer = setTimeout(() => {
      if (!this.alive) return;
      termination.killed = true;
      this.process.kill('SIGKILL');
    }, this.#killTimeout);
  }

  /**
   * Ends the process with SIGKILL at once: a thread running guest code past its isolate's disposal
   * cannot be stopped, and ending a process whose isolate thread runs on may crash at exit anyway.
   */
  kill(reason: string): void {
    if (this.#termination || !this.alive) return;
    this.#termination = { reason, killed: true, direct: true };
    this.state.move('terminating');
    this.process.kill('SIGKILL');
  }

  /**
   * The child said it is ending (for memory, or for a run its engine could not stop): it ends
   * itself at once, and SIGKILL follows after killTimeout in case it cannot.
   */
  markEnding(message: LastWords): void {
    if (this.lastWords || !this.alive) return;
    this.lastWords = message;
    this.#killTimer = setTimeout(() => {
      if (this.alive) this.process.kill('SIGKILL');
    }, this.#killTimeout);
  }

  /** Whether the process may keep the parent's event loop alive: only while it has work. */
  setRef(ref: boolean): void {
    const handles = [this.process, this.process.stderr] as (
      | { ref?: () => void; unref?: () => void }
      | null
      | undefined
    )[];
    for (const handle of handles) {
      if (ref) handle?.ref?.();
      else handle?.unref?.();
    }
    this.channel.setRef(ref);
  }
}
