/**
 * The pool of supervised children. It forks `size` children under the caller's own Node, keeps each
 * busy with at most one execution at a time, queues the rest in a bounded queue (a full queue
 * answers OVERLOADED at once) and hands work to the warmest child whose next isolate is ready
 * (#idleChild).
 *
 * Supervision: each child answers a heartbeat with its engine report and resident memory; one that
 * stops answering is ended (SIGTERM, then SIGKILL) and replaced. A child leaves service once idle
 * after its service life (a count and an age) or when its resident memory passes the bound. A child
 * that dies takes exactly its own execution with it, which comes back as WORKER_LOST naming how.
 */
import { availableParallelism } from 'node:os';
import {
  CancelledError,
  DEFAULT_HANDLES_IDLE_TIMEOUT,
  type ExecuteRequest,
  ExecutionTimeoutError,
  encodeMessage,
  errorText,
  faultEnvelope,
  HandlesClosedError,
  type HttpRequest,
  type HttpResponse,
  MemoryLimitError,
  type Message,
  type MessageOf,
  OVERLOADED_MESSAGE,
  PayloadTooLargeError,
  shapeEnvelope,
  WorkerLostError,
} from '@supolka/codemode-protocol';
import {
  DEFAULT_CHILD_EXEC_ARGV,
  DEFAULT_CHILD_RSS_LIMIT,
  DEFAULT_GRACE,
  DEFAULT_HEARTBEAT_INTERVAL,
  DEFAULT_HEARTBEAT_TIMEOUT,
  DEFAULT_KILL_TIMEOUT,
  DEFAULT_MAX_CHILD_AGE,
  DEFAULT_MAX_EXECUTIONS_PER_CHILD,
  DEFAULT_MAX_RETAINED_PER_CHILD,
  DEFAULT_QUEUE_LIMIT,
  DEFAULT_START_TIMEOUT,
} from '../executor/defaults.ts';
import type { OwnEndpoint } from '../sandbox/address-policy.ts';
import type { ExecuteResult } from '../sandbox/sandbox.ts';
import { childEntryUrl, type EngineReportMessage, PoolChild } from './child.ts';
import { Conversations, faultError } from './conversations.ts';
import type { ChildStats, PoolEvent, PoolStats } from './events.ts';
import { cancelledEnvelope, type ExecutionHost, PoolExecution } from './execution.ts';
import { WEDGED_REASON } from './exit-cause.ts';
import { RetainedRoutes } from './retained.ts';
import { serveDispatch, serveOutbound } from './serve.ts';
import type { ChildTestHooks } from './settings.ts';

export interface PoolOptions {
  /** Children kept in service (default: the machine's cores). */
  readonly size?: number;
  /** Executions that may wait for a child; past it execute answers OVERLOADED (default 256). */
  readonly queueLimit?: number;
  /** Executions a child serves before it retires once idle (default 1000). */
  readonly maxExecutionsPerChild?: number;
  /** Milliseconds a child serves before it retires once idle (default 30 minutes). */
  readonly maxChildAge?: number;
  readonly heartbeatInterval?: number;
  /** Milliseconds a heartbeat may go unanswered before the child is ended and replaced. */
  readonly heartbeatTimeout?: number;
  /** Milliseconds a new child may take to report healthy. */
  readonly startTimeout?: number;
  /** Milliseconds between SIGTERM and SIGKILL. */
  readonly killTimeout?: number;
  /** Resident memory (MB) past which an idle child is recycled. */
  readonly rssLimit?: number;
  readonly maxRetainedPerChild?: number;
  readonly handlesIdleTimeout?: number;
  /** Let native outbound requests reach link-local addresses (cloud metadata endpoints); off by default. */
  readonly allowLinkLocal?: boolean;
  /** Let native outbound requests reach loopback addresses; off by default. */
  readonly allowLoopback?: boolean;
  /** Let native outbound requests reach private addresses; off by default. */
  readonly allowPrivate?: boolean;
  /** Endpoints native outbound requests never reach (the server's own). */
  readonly ownEndpoints?: readonly OwnEndpoint[];
  /** Headroom past each run's timeout (ms), handed to every child's sandbox. */
  readonly grace?: number;
  /** Node flags of the children (default DEFAULT_CHILD_EXEC_ARGV: adr/0002). */
  readonly childExecArgv?: readonly string[];
  /** Supervision as it happens: forks, health, retirements, terminations, exits. */
  readonly onEvent?: (event: PoolEvent) => void;
  /** Test-only faults injected into every child (settings.ts). */
  readonly testHooks?: ChildTestHooks;
}

type Settings = Required<Omit<PoolOptions, 'onEvent' | 'testHooks'>>;

/** How long the pool waits before forking again after children failed to start, at most. */
const MAX_RESPAWN_DELAY = 5000;

export class Pool {
  readonly #settings: Settings;
  readonly #onEvent: ((event: PoolEvent) => void) | undefined;
  readonly #testHooks: ChildTestHooks | undefined;
  readonly #entry = childEntryUrl(import.meta.url);
  readonly #children: PoolChild[] = [];
  #queue: PoolExecution[] = [];
  readonly #conversations = new Conversations();
  readonly #routes: RetainedRoutes;
  readonly #ticker: NodeJS.Timeout;
  #nextExecution = 0;
  #respawn: NodeJS.Timeout | undefined;
  /** Children that failed to start since one last did; it sets the respawn delay. */
  #startFailures = 0;
  /** Why the last child failed to start, while no child is healthy. */
  #startFailure: string | undefined;
  /** One promise for every engine() caller while no child has reported: callers share it, never pile up. */
  #engineWaiter: ReturnType<typeof Promise.withResolvers<EngineReportMessage>> | undefined;
  #disposal: Promise<void> | undefined;
  #disposed = false;
  #referenced = true;

  constructor(options: PoolOptions = {}) {
    this.#settings = {
      size: options.size ?? availableParallelism(),
      queueLimit: options.queueLimit ?? DEFAULT_QUEUE_LIMIT,
      maxExecutionsPerChild: options.maxExecutionsPerChild ?? DEFAULT_MAX_EXECUTIONS_PER_CHILD,
      maxChildAge: options.maxChildAge ?? DEFAULT_MAX_CHILD_AGE,
      heartbeatInterval: options.heartbeatInterval ?? DEFAULT_HEARTBEAT_INTERVAL,
      heartbeatTimeout: options.heartbeatTimeout ?? DEFAULT_HEARTBEAT_TIMEOUT,
      startTimeout: options.startTimeout ?? DEFAULT_START_TIMEOUT,
      killTimeout: options.killTimeout ?? DEFAULT_KILL_TIMEOUT,
      rssLimit: options.rssLimit ?? DEFAULT_CHILD_RSS_LIMIT,
      maxRetainedPerChild: options.maxRetainedPerChild ?? DEFAULT_MAX_RETAINED_PER_CHILD,
      handlesIdleTimeout: options.handlesIdleTimeout ?? DEFAULT_HANDLES_IDLE_TIMEOUT,
      grace: options.grace ?? DEFAULT_GRACE,
      childExecArgv: options.childExecArgv ?? DEFAULT_CHILD_EXEC_ARGV,
      allowLinkLocal: options.allowLinkLocal ?? false,
      allowLoopback: options.allowLoopback ?? false,
      allowPrivate: options.allowPrivate ?? false,
      ownEndpoints: options.ownEndpoints ?? [],
    };
    this.#onEvent = options.onEvent;
    this.#testHooks = options.testHooks;
    this.#routes = new RetainedRoutes(this.#settings.handlesIdleTimeout, (executionId, child) =>
      this.#closeIdle(executionId, child),
    );
    for (let index = 0; index < this.#settings.size; index++) this.#spawn();
    this.#ticker = setInterval(() => this.#tick(), this.#settings.heartbeatInterval);
    // Supervision alone must not keep the caller's process alive; work in flight does (#updateRef).
    this.#ticker.unref();
    this.#updateRef();
  }

  /** Runs one execution in a child. Never rejects: every ending is an envelope with its code. */
  execute(request: ExecuteRequest, host: ExecutionHost = {}): Promise<ExecuteResult> {
    if (this.#disposed) {
      return Promise.resolve(
        faultEnvelope('CANCELLED', new CancelledError('the executor was disposed before it started').message),
      );
    }
    if (host.signal?.aborted) return Promise.resolve(cancelledEnvelope(host.signal));
    const id = `x${this.#nextExecution++}`;
    let text: string;
    try {
      // Measured once, here: a request past PAYLOAD_LIMIT never queues.
      text = encodeMessage({
        type: 'execute',
        id,
        request,
        ...(host.onHostWaitChanged ? { reportHostWaits: true } : {}),
      });
    } catch (error) {
      if (error instanceof PayloadTooLargeError) {
        return Promise.resolve(faultEnvelope('PAYLOAD_TOO_LARGE', error.message));
      }
      // A value the encoder cannot walk (a JSON module nested past the stack) is the request's fault.
      return Promise.resolve(
        faultEnvelope('BAD_REQUEST', `The request could not be encoded: ${errorText(error)}`),
      );
    }
    if (this.#startFailure !== undefined && !this.#canServeSoon()) {
      return Promise.resolve(faultEnvelope('INTERNAL', noChildMessage(this.#startFailure)));
    }
    const execution = new PoolExecution(id, text, host, request.retainHandles === true);
    const child = this.#idleChild(execution.retainHandles);
    if (child) this.#assign(child, execution);
    else if (this.#queue.length < this.#settings.queueLimit + this.#starting()) this.#queue.push(execution);
    else return Promise.resolve(faultEnvelope('OVERLOADED', OVERLOADED_MESSAGE));
    execution.watchSignal(() => this.#cancel(execution));
    this.#updateRef();
    return execution.promise;
  }

  /** Invokes a retained handler in the child holding it. Rejects with HANDLES_CLOSED when none does. */
  async invoke(executionId: string, handle: string, request: HttpRequest): Promise<HttpResponse> {
    if (this.#disposed) throw new HandlesClosedError(executionId);
    const child = this.#routes.beginInvocation(executionId);
    if (!child) throw this.#routes.closedError(executionId);
    try {
      const answer = await this.#converse(child, (id) => ({
        type: 'invoke',
        id,
        executionId,
        handle,
        request,
      }));
      if (answer.type !== 'invokeResult') {
        throw faultError('INTERNAL', `The worker answered an invoke with ${answer.type}.`);
      }
      return answer.response;
    } catch (error) {
      // These end the retained execution in the child (docs/handles.md), so its route goes too.
      const code = (error as { code?: unknown } | null)?.code;
      if (
        (code === 'TIMEOUT' || code === 'MEMORY_LIMIT' || code === 'HANDLES_CLOSED') &&
        this.#routes.get(executionId) === child
      ) {
        this.#routes.remove(executionId);
        this.#afterRetainedClosed(child);
      }
      throw error;
    } finally {
      this.#routes.endInvocation(executionId, child);
    }
  }

  /** Ends a retained execution and frees its isolate. Rejects with HANDLES_CLOSED when none is held. */
  async closeHandles(executionId: string): Promise<void> {
    const child = this.#routes.remove(executionId);
    if (!child || this.#disposed) throw new HandlesClosedError(executionId);
    try {
      await this.#converse(child, (id) => ({ type: 'closeHandles', id, executionId }));
    } finally {
      this.#afterRetainedClosed(child);
    }
  }

  /** The engine report of the children, once one reported healthy; rejects when none can start. */
  engine(): Promise<EngineReportMessage> {
    const healthy = this.#children.find((child) => child.healthy);
    if (healthy?.engine) return Promise.resolve(healthy.engine);
    if (this.#disposed) return Promise.reject(new CancelledError('the executor was disposed'));
    if (this.#startFailure !== undefined && !this.#canServeSoon())
      return Promise.reject(new Error(noChildMessage(this.#startFailure)));
    if (!this.#engineWaiter) {
      this.#engineWaiter = Promise.withResolvers<EngineReportMessage>();
      this.#updateRef();
    }
    return this.#engineWaiter.promise;
  }

  stats(): PoolStats {
    return {
      queued: this.#queue.length,
      children: this.#children.filter((child) => child.alive).map(childStats),
    };
  }

  /**
   * Ends every execution still queued or running with a CANCELLED envelope that says the executor
   * was disposed, ends every child (SIGTERM, then SIGKILL) and resolves once all have exited.
   */
  dispose(): Promise<void> {
    if (this.#disposal) return this.#disposal;
    // First: every step below ends children, and an ended child is otherwise replaced.
    this.#disposed = true;
    this.#updateRef();
    clearInterval(this.#ticker);
    clearTimeout(this.#respawn);
    const disposed = (when: string) => faultEnvelope('CANCELLED', new CancelledError(when).message);
    for (const execution of this.#queue)
      execution.settle(disposed('the executor was disposed before it started'));
    this.#queue = [];
    for (const child of this.#children) {
      child.current?.settle(disposed('the executor was disposed while it ran'));
      this.#terminate(child, 'the executor was disposed');
    }
    this.#routes.clear();
    this.#conversations.clear(() => new CancelledError('the executor was disposed'));
    this.#rejectEngineWaiters(new CancelledError('the executor was disposed'));
    this.#disposal = Promise.all(this.#children.map((child) => child.exited)).then(() => {});
    return this.#disposal;
  }

  #spawn(): void {
    if (this.#disposed) return;
    const child = new PoolChild(
      {
        entry: this.#entry,
        execArgv: this.#settings.childExecArgv,
        killTimeout: this.#settings.killTimeout,
        settings: {
          grace: this.#settings.grace,
          maxRetained: this.#settings.maxRetainedPerChild,
          allowLinkLocal: this.#settings.allowLinkLocal,
          allowLoopback: this.#settings.allowLoopback,
          allowPrivate: this.#settings.allowPrivate,
          ownEndpoints: this.#settings.ownEndpoints,
          rssLimit: this.#settings.rssLimit,
          ...(this.#testHooks ? { testHooks: this.#testHooks } : {}),
        },
      },
      {
        message: (from, message) => this.#onMessage(from, message),
        invalid: (from, reason) =>
          this.#violation(from, `it sent a message that failed validation: ${reason}`),
        exit: (from, cause) => this.#onExit(from, cause),
      },
    );
    this.#children.push(child);
    child.setRef(this.#referenced);
    this.#emit({ type: 'spawned', pid: child.pid });
    // The first heartbeat is answered once the engine check finished: that is the child's start.
    child.beat();
  }

  #onMessage(child: PoolChild, message: Message): void {
    switch (message.type) {
      case 'health':
        this.#onHealth(child, message);
        return;
      case 'result':
        this.#onResult(child, message);
        return;
      case 'dispatch': {
        const execution = this.#running(child, message.id);
        if (!execution) return;
        void serveDispatch(execution, message).then((frame) =>
          this.#reply(
            child,
            { type: 'dispatchReply', id: message.id, call: message.call, frame },
            (text) => ({
              type: 'dispatchReply',
              id: message.id,
              call: message.call,
              frame: ['thrown', text],
            }),
          ),
        );
        return;
      }
      case 'outbound': {
        const execution = this.#running(child, message.id);
        if (!execution) return;
        void serveOutbound(execution, message).then((frame) =>
          this.#reply(
            child,
            { type: 'outboundReply', id: message.id, call: message.call, frame },
            (text) => ({
              type: 'outboundReply',
              id: message.id,
              call: message.call,
              frame: ['thrown', text],
            }),
          ),
        );
        return;
      }
      case 'hostWait':
        this.#running(child, message.id)?.hostWaitChanged(message.waiting);
        return;
      case 'prepared':
        // One sent before the child took its current execution is stale: that isolate is in use.
        // The child prepares the next only after it answered, so the fresh one arrives after the result.
        if (!child.current) child.prepared = true;
        return;
      case 'invokeResult':
      case 'ack':
        if (!this.#conversations.answer(child, message.id, message)) {
          this.#violation(child, `it answered ${message.type} to a conversation it was not in`);
        }
        return;
      case 'fault':
        this.#onFault(child, message);
        return;
      case 'outOfMemory':
      case 'timedOut':
        // It is ending itself; it takes no more work, and a replacement starts now.
        child.markEnding(message);
        if (!child.retiring) {
          child.retiring =
            message.type === 'outOfMemory'
              ? 'it is ending: an isolate in it ran out of memory'
              : 'it is ending: its engine could not stop an isolate past its time bound';
          this.#replenish();
        }
        return;
      case 'wedged':
        this.#onWedged(child);
        return;
      case 'handlesClosed':
        // The child ended a retained execution on its own: the route and its slot go now.
        if (this.#routes.get(message.executionId) === child) {
          this.#routes.closedInChild(message.executionId, message.message);
          this.#afterRetainedClosed(child);
        }
        return;
      default:
        this.#violation(child, `it sent a ${message.type} message, which a pool child never sends`);
    }
  }

  #onHealth(child: PoolChild, health: MessageOf<'health'>): void {
    if (child.heartbeat?.id !== health.id) {
      this.#violation(child, 'it answered a heartbeat that was never sent');
      return;
    }
    child.heartbeat = undefined;
    child.rss = health.rss;
    child.heldRetained = health.retained;
    const wasWorking = child.workingRetained > 0;
    child.workingRetained = health.working ?? 0;
    // A child whose retained timers stopped working is idle again: queued work may go to it.
    if (wasWorking && child.workingRetained === 0) this.#pump();
    // Too late: a child already given up on (its start timed out) stays given up on.
    if (child.terminating) return;
    if (!child.healthy) {
      child.engine = health.engine;
      this.#startFailures = 0;
      this.#startFailure = undefined;
      this.#emit({ type: 'healthy', pid: child.pid, engine: health.engine });
      this.#engineWaiter?.resolve(health.engine);
      this.#engineWaiter = undefined;
      this.#pump();
      this.#updateRef();
      return;
    }
    if (child.idle) this.#retireIfDue(child);
    child.heartbeatsAnswered++;
  }

  #onResult(child: PoolChild, message: MessageOf<'result'>): void {
    const execution = child.current;
    if (execution?.id !== message.id) {
      this.#violation(child, `it sent the result of ${message.id}, which it was not running`);
      return;
    }
    const envelope = shapeEnvelope(message.envelope);
    if (envelope.executionId !== undefined) {
      // A cancelled execution's caller never learns the id, so nothing could ever close it.
      if (execution.settled) this.#closeIdle(envelope.executionId, child);
      else this.#routes.add(envelope.executionId, child);
    }
    execution.settle(envelope);
    this.#finished(child);
    if (child.wedged) child.kill(WEDGED_REASON);
  }

  /**
   * An isolate the child disposed still runs guest code (wedge.ts). The child takes no new work
   * from now, and is killed once its execution (if any) answered, so no later execution is ever
   * given to it; the retained executions it holds go with it.
   */
  #onWedged(child: PoolChild): void {
    if (child.wedged) return;
    child.wedged = true;
    if (!child.retiring) {
      child.retiring = WEDGED_REASON;
      this.#emit({ type: 'retiring', pid: child.pid, reason: WEDGED_REASON });
    }
    this.#replenish();
    if (!child.current) child.kill(WEDGED_REASON);
  }

  #onFault(child: PoolChild, fault: MessageOf<'fault'>): void {
    const { id } = fault;
    if (id !== undefined && child.heartbeat?.id === id) {
      child.heartbeat = undefined;
      this.#startFailed(child, fault.message);
      return;
    }
    if (id !== undefined && this.#conversations.answer(child, id, fault)) return;
    // The child refused an execute message: the request failed the schema on arrival. Once the run
    // has spoken, a fault naming it concerns a reply of ours, and the run may still be going, so
    // the child cannot count as free: that is a violation.
    if (id !== undefined && child.current?.id === id && !child.current.started) {
      child.current.settle(faultEnvelope(fault.code, fault.message));
      this.#finished(child);
      return;
    }
    this.#violation(child, `it reported a fault outside any conversation: ${fault.message}`);
  }

  #onExit(child: PoolChild, cause: string): void {
    this.#children.splice(this.#children.indexOf(child), 1);
    this.#emit({ type: 'exited', pid: child.pid, cause });
    // What the child named as the culprit of its end reads MEMORY_LIMIT or TIMEOUT; the rest WORKER_LOST.
    const last = child.lastWords;
    const errorOf = (id: string): WorkerLostError | MemoryLimitError | ExecutionTimeoutError =>
      last?.conversations.includes(id) !== true
        ? new WorkerLostError(cause)
        : last.type === 'outOfMemory'
          ? new MemoryLimitError(last.memoryLimit)
          : new ExecutionTimeoutError(last.timeout);
    if (child.current) {
      const error = errorOf(child.current.id);
      child.current.settle(
        faultEnvelope(error.code as 'WORKER_LOST' | 'MEMORY_LIMIT' | 'TIMEOUT', error.message),
      );
    }
    child.current = undefined;
    this.#routes.dropChild(child);
    this.#conversations.dropChild(child, errorOf);
    if (!child.healthy && !this.#disposed) this.#startFailed(child, cause);
    this.#replenish();
    this.#pump();
    this.#updateRef();
  }

  /** The execution `id` if `child` is running it; a message for any other is dropped. */
  /** The child's current execution when `id` names it; a message about it shows the run started. */
  #running(child: PoolChild, id: string): PoolExecution | undefined {
    const execution = child.current?.id === id ? child.current : undefined;
    if (execution) execution.started = true;
    return execution;
  }

  #reply(child: PoolChild, message: Message, tooLarge: (text: string) => Message): void {
    try {
      child.send(message);
    } catch (error) {
      // Past PAYLOAD_LIMIT: the run meets the error instead of the answer.
      child.send(tooLarge((error as Error).message));
    }
  }

  #converse(child: PoolChild, build: (id: string) => Message): Promise<Message> {
    const answer = this.#conversations.start(child, build);
    this.#updateRef();
    const done = () => this.#updateRef();
    answer.then(done, done);
    return answer;
  }

  #closeIdle(executionId: string, child: PoolChild): void {
    if (!child.alive) return;
    void this.#converse(child, (id) => ({ type: 'closeHandles', id, executionId }))
      .catch(() => {
        // Closed already, or the child is gone: either way nothing is held any more.
      })
      .finally(() => this.#afterRetainedClosed(child));
  }

  #afterRetainedClosed(child: PoolChild): void {
    if (child.retiring && child.idle && child.retained.size === 0) this.#terminate(child, child.retiring);
    else this.#pump();
  }

  /** A child that is not speaking the protocol is ended; its execution comes back as WORKER_LOST. */
  #violation(child: PoolChild, reason: string): void {
    this.#terminate(child, reason);
  }

  #startFailed(child: PoolChild, reason: string): void {
    if (child.startFailure !== undefined) return;
    child.startFailure = reason;
    this.#startFailures++;
    this.#startFailure = reason;
    this.#emit({ type: 'unhealthy', pid: child.pid, reason });
    this.#terminate(child, `it could not start: ${reason}`);
    if (this.#canServeSoon()) return;
    // No child can take work, nor will one that is starting: what waits would wait for ever, so it
    // is answered now. A replacement is still forked (with backoff) and may serve later requests.
    const envelope = faultEnvelope('INTERNAL', noChildMessage(reason));
    for (const execution of this.#queue) execution.settle(envelope);
    this.#queue = [];
    this.#rejectEngineWaiters(new Error(noChildMessage(reason)));
    this.#updateRef();
  }

  #tick(): void {
    const now = performance.now();
    for (const child of [...this.#children]) {
      if (!child.alive || child.terminating) continue;
      if (!child.healthy) {
        if (now - child.spawnedAt > this.#settings.startTimeout) {
          this.#startFailed(child, `it did not report healthy within ${this.#settings.startTimeout} ms`);
        }
        continue;
      }
      if (child.heartbeat && now - child.heartbeat.sentAt > this.#settings.heartbeatTimeout) {
        const silent = Math.round(now - child.heartbeat.sentAt);
        this.#terminate(child, `it stopped answering its heartbeat for ${silent} ms`);
        continue;
      }
      child.beat();
      if (child.idle) this.#retireIfDue(child);
    }
  }

  /**
   * A healthy, idle child (for a retaining execution, one with room for it). Among those whose next
   * isolate is ready, the one idle the shortest time: a process that ran recently answers faster
   * than one that sat idle (measured 2.5 against 2.9 ms for a trivial run at light load, docs/pool.md),
   * so light load stays on one warm child. Without a ready one, the one idle longest, which is the
   * likeliest to be ready first.
   */
  #idleChild(retainHandles: boolean): PoolChild | undefined {
    let warmest: PoolChild | undefined;
    let longest: PoolChild | undefined;
    for (const child of this.#children) {
      if (!child.healthy || !child.idle || child.retiring || child.terminating || !child.alive) continue;
      // Its retained executions' timers are running work (handles.ts): that core is busy.
      if (child.workingRetained > 0) continue;
      if (retainHandles && child.retained.size >= this.#settings.maxRetainedPerChild) continue;
      if (child.prepared && (!warmest || child.idleSince > warmest.idleSince)) warmest = child;
      if (!longest || child.idleSince < longest.idleSince) longest = child;
    }
    return warmest ?? longest;
  }

  /** A child in service now, or one still starting that may yet report healthy. */
  #canServeSoon(): boolean {
    return this.#children.some(
      (child) => child.alive && !child.terminating && !child.retiring && child.startFailure === undefined,
    );
  }

  /** Children still starting: each will take one queued execution, so they add to the queue's room. */
  #starting(): number {
    return this.#children.filter((child) => child.alive && !child.healthy && !child.terminating).length;
  }

  #assign(child: PoolChild, execution: PoolExecution): void {
    child.current = execution;
    child.executions++;
    child.prepared = false;
    child.sendText(execution.text);
  }

  /** Hands queued executions to idle children, in order, skipping those no idle child has room for. */
  #pump(): void {
    if (this.#disposed) return;
    for (let index = 0; index < this.#queue.length; ) {
      const execution = this.#queue[index] as PoolExecution;
      const child = this.#idleChild(execution.retainHandles);
      if (!child) {
        if (!this.#idleChild(false)) return;
        index++;
        continue;
      }
      this.#queue.splice(index, 1);
      this.#assign(child, execution);
    }
  }

  #finished(child: PoolChild): void {
    child.current = undefined;
    child.idleSince = performance.now();
    if (!this.#retireIfDue(child)) this.#pump();
    this.#updateRef();
  }

  #cancel(execution: PoolExecution): void {
    const queued = this.#queue.indexOf(execution);
    if (queued >= 0) this.#queue.splice(queued, 1);
    const child = this.#children.find((candidate) => candidate.current === execution);
    // The child answers with its own CANCELLED envelope, dropped here; until then it stays busy.
    if (child) child.send({ type: 'cancel', id: execution.id });
    execution.settle(cancelledEnvelope(execution.host.signal));
    this.#updateRef();
  }

  /** Retires an idle child past its service life or its memory bound; true when it did. */
  #retireIfDue(child: PoolChild): boolean {
    if (child.retiring || child.terminating || !child.idle) return false;
    const reason = this.#retirementReason(child);
    if (reason === undefined) return false;
    child.retiring = reason;
    this.#emit({ type: 'retiring', pid: child.pid, reason });
    // A child holding retained executions stays until they close; it takes no new work meanwhile.
    if (child.retained.size === 0) this.#terminate(child, reason);
    else this.#replenish();
    return true;
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

  #terminate(child: PoolChild, reason: string): void {
    if (child.terminating || !child.alive) return;
    this.#emit({ type: 'terminating', pid: child.pid, reason });
    child.terminate(reason);
    this.#replenish();
  }

  /** Forks children until `size` are in service; after failed starts, with a growing delay. */
  #replenish(): void {
    if (this.#disposed || this.#respawn) return;
    const inService = this.#children.filter((child) => child.alive && !child.terminating && !child.retiring);
    const missing = this.#settings.size - inService.length;
    if (missing <= 0) return;
    if (this.#startFailures === 0) {
      for (let index = 0; index < missing; index++) this.#spawn();
      return;
    }
    const delay = Math.min(100 * 2 ** (this.#startFailures - 1), MAX_RESPAWN_DELAY);
    this.#respawn = setTimeout(() => {
      this.#respawn = undefined;
      if (this.#disposed) return;
      // One at a time while children fail to start: a broken engine costs one fork per delay.
      this.#spawn();
      this.#replenish();
    }, delay);
    this.#respawn.unref();
  }

  /**
   * Children keep the caller's process alive only while executions or calls are in flight, and
   * after dispose until each has exited: an unreferenced child killed then would let the caller's
   * process end before its exit is seen, with dispose() unsettled.
   */
  #updateRef(): void {
    const busy =
      this.#disposed ||
      this.#queue.length > 0 ||
      this.#conversations.size > 0 ||
      this.#engineWaiter !== undefined ||
      this.#children.some((child) => child.current !== undefined && !child.current.settled);
    if (busy === this.#referenced) return;
    this.#referenced = busy;
    for (const child of this.#children) child.setRef(busy);
  }

  #rejectEngineWaiters(error: Error): void {
    this.#engineWaiter?.reject(error);
    this.#engineWaiter = undefined;
    this.#updateRef();
  }

  #emit(event: PoolEvent): void {
    try {
      this.#onEvent?.(event);
    } catch {
      // An observer must not break supervision.
    }
  }
}

function noChildMessage(reason: string): string {
  return `No pool child can serve executions: ${reason}.`;
}

function childStats(child: PoolChild): ChildStats {
  let state: ChildStats['state'] = 'idle';
  if (!child.healthy) state = 'starting';
  else if (child.retiring || child.terminating) state = 'retiring';
  else if (!child.idle || child.workingRetained > 0) state = 'busy';
  return {
    pid: child.pid,
    state,
    executions: child.executions,
    prepared: child.prepared,
    heartbeatsAnswered: child.heartbeatsAnswered,
    rss: child.rss,
    retained: child.retained.size,
    heldRetained: child.heldRetained,
  };
}
