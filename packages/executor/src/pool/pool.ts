/**
 * The pool of supervised children: the coordinator. It keeps each child busy with at most one
 * execution at a time, queues the rest in a bounded queue (a full queue answers OVERLOADED at once)
 * and hands work to the warmest child whose next isolate is ready (#idleChild). A child that dies
 * takes exactly its own execution with it, which comes back as WORKER_LOST naming how.
 *
 * Supervision (forks, heartbeat, start, retirement, respawn) is supervision.ts; what each message
 * of a child means is child-messages.ts; a child's one state and its moves are child-state.ts.
 * Settings arrive resolved (executor/options.ts): the pool applies no defaults of its own.
 */
import {
  CancelledError,
  type ExecuteRequest,
  ExecutionTimeoutError,
  echo,
  errorText,
  faultEnvelope,
  HandlesClosedError,
  type HttpRequest,
  type HttpResponse,
  MemoryLimitError,
  OVERLOADED_MESSAGE,
  PayloadTooLargeError,
  REASON_ECHO_LIMIT,
  shapeEnvelope,
  WorkerLostError,
} from '@supolka/codemode-protocol/wire';
import type { PackageBundle } from '../packages/bundle.ts';
import type { OwnEndpoint } from '../sandbox/outbound/address-policy.ts';
import type { ExecuteResult } from '../sandbox/sandbox.ts';
import type { EngineReportMessage, PoolChild } from './child-handle.ts';
import { type ChildMessageHandlers, type HostCallMessage, routeChildMessage } from './child-messages.ts';
import { childEntryUrl } from './child-spawn.ts';
import { Conversations, faultError } from './conversations.ts';
import type { ChildStats, PoolEvent, PoolStats } from './events.ts';
import { cancelledEnvelope, type ExecutionHost, PoolExecution } from './execution.ts';
import { FairQueue } from './fair-queue.ts';
import type { PoolMessage, PoolMessageOf } from './messages/table.ts';
import { encodePoolMessage } from './messages/wire.ts';
import {
  currentContext,
  MAX_NESTING_DEPTH,
  NESTING_TOO_DEEP_MESSAGE,
  type NestingFrame,
  nestingDepth,
  PARENT_ENDED_REASON,
} from './nested-executions.ts';
import { PackageDelivery } from './packages.ts';
import { RetainedRoutes } from './retained.ts';
import {
  answerCompleted,
  answerHostCall,
  HOST_CALL_LIMIT,
  strayCallMessage,
  TOO_MANY_HOST_CALLS_MESSAGE,
} from './serve.ts';
import { type ChildTestHooks, childSettingsOf } from './settings.ts';
import { CONSOLE_PAST_BOUND_MESSAGE, CONSOLE_UNASKED_MESSAGE } from './streamed-console.ts';
import { heartbeatFaultAfterHealthyMessage, Supervision, type SupervisionSettings } from './supervision.ts';

/** The pool's settings, every one resolved by the caller (executor/options.ts holds the defaults). */
export interface PoolSettings extends SupervisionSettings {
  /** Executions that may wait for a child; past it execute answers OVERLOADED. */
  readonly queueLimit: number;
  /** Milliseconds between SIGTERM and SIGKILL. */
  readonly killTimeout: number;
  readonly maxRetainedPerChild: number;
  readonly handlesIdleTimeout: number;
  /** Let native outbound requests reach link-local addresses (cloud metadata endpoints). */
  readonly allowLinkLocal: boolean;
  /** Let native outbound requests reach loopback addresses. */
  readonly allowLoopback: boolean;
  /** Let native outbound requests reach private addresses. */
  readonly allowPrivate: boolean;
  /** Endpoints native outbound requests never reach (the server's own). */
  readonly ownEndpoints: readonly OwnEndpoint[];
  /** Headroom past each run's timeout (ms), handed to every child's sandbox. */
  readonly grace: number;
  /** Runs whose imports each child's sandbox holds ready in its prepared isolate (its warmPackages); its default when absent. */
  readonly warmPackages?: number;
  /** Node flags of the children (adr/0002). */
  readonly childExecArgv: readonly string[];
  /** The trusted folder children keep their start in on disk (cache/cache-option.ts); undefined: none. */
  readonly startCache?: string | undefined;
  /**
   * The trusted folder children keep Node's compile cache in (cache/compile-cache.ts), beside their
   * start; undefined: none.
   */
  readonly compileCache?: string | undefined;
}

export interface PoolOptions extends PoolSettings {
  /** Supervision as it happens: forks, health, retirements, terminations, exits. */
  readonly onEvent?: (event: PoolEvent) => void;
  /** Test-only faults injected into every child (settings.ts). */
  readonly testHooks?: ChildTestHooks;
}

export class Pool {
  readonly #settings: PoolSettings;
  readonly #supervision: Supervision;
  /** Executions waiting for a child, shared between their callers (fair-queue.ts). */
  readonly #queue = new FairQueue<PoolExecution>();
  readonly #conversations = new Conversations();
  readonly #routes: RetainedRoutes;
  #nextExecution = 0;
  /** One promise for every engine() caller while no child has reported: callers share it, never pile up. */
  #engineWaiter: ReturnType<typeof Promise.withResolvers<EngineReportMessage>> | undefined;
  #disposal: Promise<void> | undefined;
  #disposed = false;
  #referenced = true;
  readonly #packages = new PackageDelivery();
  readonly #handlers: ChildMessageHandlers = {
    health: (child, message) => this.#health(child, message),
    result: (child, message) => this.#result(child, message),
    hostCall: (child, message) => this.#hostCall(child, message),
    hostWait: (child, message) => this.#running(child, message.id)?.hostWaitChanged(message.waiting),
    console: (child, message) => this.#console(child, message),
    prepared: (child) => this.#prepared(child),
    answer: (child, message) => this.#answer(child, message),
    fault: (child, message) => this.#fault(child, message),
    ending: (child, message) => this.#supervision.ending(child, message),
    wedged: (child, message) => this.#wedged(child, message),
    handlesClosed: (child, message) => this.#handlesClosed(child, message),
    snapshot: (child, message) => {
      const violation = this.#supervision.snapshot(child, message);
      if (violation !== undefined) this.#violation(child, violation);
    },
    violation: (child, reason) => this.#violation(child, reason),
  };

  constructor(options: PoolOptions) {
    const { onEvent, testHooks, ...settings } = options;
    this.#settings = settings;
    this.#routes = new RetainedRoutes(settings.handlesIdleTimeout, (executionId, child) =>
      this.#closeIdle(executionId, child),
    );
    this.#supervision = new Supervision(
      settings,
      {
        entry: childEntryUrl(import.meta.url),
        execArgv: settings.childExecArgv,
        killTimeout: settings.killTimeout,
        settings: childSettingsOf(settings, testHooks),
      },
      {
        message: (child, message) => routeChildMessage(child, message, this.#handlers),
        invalid: (child, reason) =>
          this.#violation(child, `it sent a message that failed validation: ${reason}`),
        exit: (child, cause) => this.#onExit(child, cause),
        spawned: (child) => {
          child.setRef(this.#referenced);
          this.#packages.spawned(child);
        },
        healthy: (_, engine) => {
          this.#engineWaiter?.resolve(engine);
          this.#engineWaiter = undefined;
          this.#pump();
          this.#updateRef();
        },
        available: () => this.#pump(),
        noChildCanServe: (reason) => this.#noChildCanServe(reason),
      },
      onEvent,
    );
    this.#updateRef();
  }

  /**
   * Sends the packages the executor allows to every child, and to each spawned later; before the
   * first execution, never per request (packages.ts).
   */
  usePackages(bundle: PackageBundle): void {
    this.#packages.deliver(bundle, this.#supervision.children);
  }

  /**
   * Runs one execution in a child. Never rejects: every ending is an envelope with its code. Called
   * from a tool or outbound function of one of this pool's executions, it is nested (nested-executions.ts).
   */
  execute(request: ExecuteRequest, host: ExecutionHost = {}): Promise<ExecuteResult> {
    if (this.#disposed) {
      return Promise.resolve(
        faultEnvelope('CANCELLED', new CancelledError('the executor was disposed before it started').message),
      );
    }
    if (host.signal?.aborted) return Promise.resolve(cancelledEnvelope(host.signal));
    const context = currentContext();
    const depth = nestingDepth(this, context?.frame);
    if (depth > MAX_NESTING_DEPTH)
      return Promise.resolve(faultEnvelope('BAD_REQUEST', NESTING_TOO_DEEP_MESSAGE));
    // Started inside a host call still pending: it lives no longer than the execution the call serves.
    const bound: NestingFrame | undefined =
      context?.bound === true && !context.frame.settled ? context.frame : undefined;
    const id = `x${this.#nextExecution++}`;
    let text: string;
    try {
      // Measured once, here: a request past PAYLOAD_LIMIT never queues.
      text = encodePoolMessage({
        type: 'execute',
        id,
        request,
        ...(host.onHostWaitChanged ? { reportHostWaits: true } : {}),
        ...(host.onConsole ? { streamConsole: true } : {}),
        ...(host.durable ? { durable: host.durable.start } : {}),
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
    const startFailure = this.#supervision.startFailure;
    if (startFailure !== undefined && !this.#supervision.canServeSoon()) {
      return Promise.resolve(faultEnvelope('INTERNAL', noChildMessage(startFailure)));
    }
    const execution = new PoolExecution(id, text, host, request.retainHandles === true, {
      owner: this,
      depth,
      parent: context?.frame,
    });
    const child = this.#idleChild(execution);
    if (child) this.#assign(child, execution);
    else {
      if (depth > 0) this.#startNestedChild(depth);
      if (this.#queue.length < this.#settings.queueLimit + this.#supervision.starting())
        this.#queue.push(execution);
      else return Promise.resolve(faultEnvelope('OVERLOADED', OVERLOADED_MESSAGE));
    }
    const signals = [host.signal, bound?.endedSignal].filter((signal) => signal !== undefined);
    execution.watchSignals(signals, (signal) => this.#cancel(execution, signal));
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
    const child = this.#routes.remove(executionId, true);
    if (!child || this.#disposed) throw new HandlesClosedError(executionId);
    try {
      await this.#converse(child, (id) => ({ type: 'closeHandles', id, executionId }));
    } finally {
      this.#routes.closeAnswered(executionId);
      this.#afterRetainedClosed(child);
    }
  }

  /** The engine report of the children, once one reported healthy; rejects when none can start. */
  engine(): Promise<EngineReportMessage> {
    const healthy = this.#supervision.children.find((child) => child.healthy);
    if (healthy?.engine) return Promise.resolve(healthy.engine);
    if (this.#disposed) return Promise.reject(new CancelledError('the executor was disposed'));
    const startFailure = this.#supervision.startFailure;
    if (startFailure !== undefined && !this.#supervision.canServeSoon())
      return Promise.reject(new Error(noChildMessage(startFailure)));
    if (!this.#engineWaiter) {
      this.#engineWaiter = Promise.withResolvers<EngineReportMessage>();
      this.#updateRef();
    }
    return this.#engineWaiter.promise;
  }

  stats(): PoolStats {
    return {
      queued: this.#queue.length,
      children: this.#supervision.children.filter((child) => child.alive).map(childStats),
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
    this.#supervision.stop();
    const disposed = (when: string) => faultEnvelope('CANCELLED', new CancelledError(when).message);
    for (const execution of this.#queue.clear())
      execution.settle(disposed('the executor was disposed before it started'));
    const children = this.#supervision.children;
    for (const child of children) {
      child.current?.settle(disposed('the executor was disposed while it ran'));
      this.#supervision.terminate(child, 'the executor was disposed');
    }
    this.#routes.clear();
    this.#conversations.clear(() => new CancelledError('the executor was disposed'));
    this.#rejectEngineWaiters(new CancelledError('the executor was disposed'));
    this.#disposal = Promise.all(children.map((child) => child.exited)).then(() => {});
    return this.#disposal;
  }

  // What each message of a child means (child-messages.ts routes them here).

  #health(child: PoolChild, message: PoolMessageOf<'health'>): void {
    if (child.heartbeat?.id !== message.id) {
      this.#violation(child, 'it answered a heartbeat that was never sent');
      return;
    }
    this.#supervision.answered(child, message);
  }

  #result(child: PoolChild, message: PoolMessageOf<'result'>): void {
    const execution = child.current;
    if (execution?.id !== message.id) {
      this.#violation(child, `it sent the result of ${message.id}, which it was not running`);
      return;
    }
    if (execution.host.meter) execution.host.meter.bytesIn += child.channel.lastReceivedBytes;
    if (message.journal !== undefined) {
      // Only a durable run pauses, and only its parent seals what the child hands back.
      if (!execution.host.durable) {
        this.#violation(
          child,
          `it sent the journal of a pause for ${message.id}, which is not a durable run`,
        );
        return;
      }
      execution.host.durable.handBack(message.journal);
    }
    const envelope = shapeEnvelope(message.envelope);
    if (envelope.executionId !== undefined) {
      // Routed before it settles, so its caller's functions stay with its handles (retained.ts).
      this.#routes.add(envelope.executionId, child, execution);
      // A cancelled execution's caller never learns the id, so nothing could ever close it.
      if (execution.settled) {
        this.#routes.remove(envelope.executionId, true);
        this.#closeIdle(envelope.executionId, child);
      }
    }
    execution.settle(envelope);
    this.#finished(child);
    this.#supervision.killIfWedged(child);
  }

  /**
   * A tool call or outbound request of the child's current run, or of an invocation of handles it
   * holds (made as the run that granted them). Every one is answered: one naming a run whose
   * handles just closed with the thrown frame a settled run's call gets; one naming no run the
   * child could be calling for is a child not running the sandbox.
   */
  #hostCall(child: PoolChild, message: HostCallMessage): void {
    const execution = this.#running(child, message.id);
    if (!execution) {
      this.#handleCall(child, message);
      return;
    }
    // Its sandbox never has more in flight; each one served here runs a caller's function.
    if (child.hostCalls >= HOST_CALL_LIMIT) {
      this.#violation(child, TOO_MANY_HOST_CALLS_MESSAGE);
      return;
    }
    const meter = execution.host.meter;
    if (meter) {
      if (message.type === 'dispatch') meter.toolCalls++;
      else meter.outboundRequests++;
      meter.bytesIn += child.channel.lastReceivedBytes;
    }
    // The run waits on this process until the caller's function answers.
    child.hostCalls++;
    if (child.state.phase === 'busy') child.state.move('hostWait');
    answerHostCall(child, execution, message, () => {
      // A call that outlived its execution no longer says anything about the child.
      if (child.current !== execution) return;
      child.hostCalls--;
      if (child.hostCalls === 0 && child.state.phase === 'hostWait') child.state.move('busy');
    });
  }

  /** A host call made by an invocation of retained handles, as the run that granted them. */
  #handleCall(child: PoolChild, message: HostCallMessage): void {
    const execution = this.#routes.host(child, message.id);
    if (!execution) {
      if (this.#routes.isClosing(child, message.id)) answerCompleted(child, message);
      else this.#violation(child, strayCallMessage(message));
      return;
    }
    if (execution.handleCalls >= HOST_CALL_LIMIT) {
      this.#violation(child, TOO_MANY_HOST_CALLS_MESSAGE);
      return;
    }
    execution.handleCalls++;
    answerHostCall(child, execution, message, () => {
      execution.handleCalls--;
    });
  }

  /**
   * Console lines of a run that asked for them. Its sandbox streams only what it captured, so a
   * child that sends lines unasked, or more than the capture bound holds, is not running it.
   */
  #console(child: PoolChild, message: PoolMessageOf<'console'>): void {
    const execution = this.#running(child, message.id);
    if (!execution) return;
    if (!execution.host.onConsole) {
      this.#violation(child, CONSOLE_UNASKED_MESSAGE);
      return;
    }
    if (!execution.chargeConsole(message.lines)) {
      this.#violation(child, CONSOLE_PAST_BOUND_MESSAGE);
      return;
    }
    execution.consoleLines(message.lines);
  }

  #prepared(child: PoolChild): void {
    // One sent before the child took its current execution is stale: that isolate is in use.
    // The child prepares the next only after it answered, so the fresh one arrives after the result.
    if (!child.current) child.prepared = true;
  }

  #answer(child: PoolChild, message: PoolMessageOf<'invokeResult'> | PoolMessageOf<'ack'>): void {
    if (!this.#conversations.answer(child, message.id, message)) {
      this.#violation(child, `it answered ${message.type} to a conversation it was not in`);
      return;
    }
    this.#answered(child, message.id);
  }

  /**
   * The child's wedge report (wedge.ts) comes before the answer it concerns: a run's result, which
   * the kill waits for anyway (it is the child's current execution), or an invocation's TIMEOUT,
   * which it waits for here. On a loaded machine the answer can come many milliseconds after the
   * report; killed in between, the child would take it along and the invocation read WORKER_LOST.
   */
  #wedged(child: PoolChild, message: PoolMessageOf<'wedged'>): void {
    if (message.id !== undefined && this.#conversations.pending(child, message.id))
      child.answersDue.add(message.id);
    this.#supervision.wedged(child);
  }

  /** The conversation `id` with `child` was answered: a wedged child may be killed now. */
  #answered(child: PoolChild, id: string): void {
    if (child.answersDue.delete(id)) this.#supervision.killIfWedged(child);
  }

  #fault(child: PoolChild, fault: PoolMessageOf<'fault'>): void {
    const { id } = fault;
    if (id !== undefined) {
      const heartbeat = this.#supervision.heartbeatFault(child, id, fault.message);
      if (heartbeat === 'after healthy') {
        this.#violation(child, heartbeatFaultAfterHealthyMessage(fault.message));
        return;
      }
      if (heartbeat === 'start failure') return;
    }
    if (id !== undefined && this.#conversations.answer(child, id, fault)) {
      this.#answered(child, id);
      return;
    }
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

  #handlesClosed(child: PoolChild, message: PoolMessageOf<'handlesClosed'>): void {
    // The child ended a retained execution on its own: the route and its slot go now.
    if (this.#routes.get(message.executionId) === child) {
      this.#routes.closedInChild(message.executionId, message.message);
      this.#afterRetainedClosed(child);
    }
  }

  /** A child that is not speaking the protocol is ended; its execution comes back as WORKER_LOST. */
  #violation(child: PoolChild, reason: string): void {
    // Nothing more it sends is acted on, the frames after the violation in the same chunk
    // included: until it is gone, its tool calls would still reach the caller's functions.
    child.channel.stopReading();
    // The reason often repeats what the child sent (a fault's text, a refusal quoting a field),
    // and it reaches the WORKER_LOST error of the child's run: cut once, here, for every route.
    this.#supervision.terminate(child, echo(reason, REASON_ECHO_LIMIT));
  }

  #onExit(child: PoolChild, cause: string): void {
    this.#supervision.forget(child, cause);
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
    this.#supervision.replace(child, cause);
    this.#pump();
    this.#updateRef();
  }

  /** The child's current execution when `id` names it; a message about it shows the run started. */
  #running(child: PoolChild, id: string): PoolExecution | undefined {
    const execution = child.current?.id === id ? child.current : undefined;
    if (execution) execution.started = true;
    return execution;
  }

  #converse(child: PoolChild, build: (id: string) => PoolMessage): Promise<PoolMessage> {
    const answer = this.#conversations.start(child, build);
    this.#updateRef();
    const done = () => this.#updateRef();
    answer.then(done, done);
    return answer;
  }

  /** Tells `child` to close `executionId`, whose route was removed as closing. */
  #closeIdle(executionId: string, child: PoolChild): void {
    if (!child.alive) {
      this.#routes.closeAnswered(executionId);
      return;
    }
    void this.#converse(child, (id) => ({ type: 'closeHandles', id, executionId }))
      .catch(() => {
        // Closed already, or the child is gone: either way nothing is held any more.
      })
      .finally(() => {
        this.#routes.closeAnswered(executionId);
        this.#afterRetainedClosed(child);
      });
  }

  #afterRetainedClosed(child: PoolChild): void {
    const reason = child.retiringReason;
    if (reason !== undefined && !child.current && child.retained.size === 0)
      this.#supervision.terminate(child, reason);
    else this.#pump();
  }

  /** What waits would wait for ever: it is answered now. */
  #noChildCanServe(reason: string): void {
    const envelope = faultEnvelope('INTERNAL', noChildMessage(reason));
    for (const execution of this.#queue.clear()) execution.settle(envelope);
    this.#rejectEngineWaiters(new Error(noChildMessage(reason)));
    this.#updateRef();
  }

  /**
   * An idle child that may take `execution`: one of the pool's own, or one started for nested
   * executions no deeper than it (nested-executions.ts); for a retaining execution, one with room for it.
   * Among those whose next isolate is ready, the one idle the shortest time: a process that ran
   * recently answers faster than one that sat idle (measured 2.5 against 2.9 ms for a trivial run
   * at light load, docs/pool.md), so light load stays on one warm child. Without a ready one, the
   * one idle longest, which is the likeliest to be ready first.
   */
  #idleChild(execution: PoolExecution): PoolChild | undefined {
    let warmest: PoolChild | undefined;
    let longest: PoolChild | undefined;
    for (const child of this.#supervision.children) {
      // Idle is healthy, in service, running nothing, and no retained timer work (handles.ts) busy on its core.
      if (child.state.phase !== 'idle') continue;
      if (child.nestingLevel > execution.depth) continue;
      if (execution.retainHandles && child.retained.size >= this.#settings.maxRetainedPerChild) continue;
      if (child.prepared && (!warmest || child.idleSince > warmest.idleSince)) warmest = child;
      if (!longest || child.idleSince < longest.idleSince) longest = child;
    }
    return warmest ?? longest;
  }

  /**
   * A nested execution `depth` deep found no child it may take: a child is started beyond the pool
   * size for its own level, unless that level already has the pool's size of them. A child of
   * level d runs only executions at least d deep, none of which is an ancestor of one d deep, so
   * with its level full it waits for a child that will free up.
   */
  #startNestedChild(depth: number): void {
    if (this.#supervision.nestedChildren(depth) < this.#settings.size) this.#supervision.startNested(depth);
  }

  /**
   * Every nested execution still queued has a child of its own level in service (or about to
   * start): one that was started for it may have failed to start, or died, meanwhile.
   */
  #keepNestedCapacity(): void {
    for (const execution of this.#queue) {
      const depth = execution.depth;
      if (depth === 0 || this.#supervision.nestedStartPending(depth)) continue;
      const serving = this.#supervision.children.some(
        (child) => child.nestingLevel === depth && child.state.inService && child.startFailure === undefined,
      );
      if (!serving) this.#startNestedChild(depth);
    }
  }

  #assign(child: PoolChild, execution: PoolExecution): void {
    // Its caller's turn, whether it waited or found a child idle.
    this.#queue.served(execution.caller);
    child.state.move('busy');
    child.current = execution;
    child.hostCalls = 0;
    child.executions++;
    child.prepared = false;
    const sent = child.sendText(execution.text);
    execution.sent();
    const meter = execution.host.meter;
    if (meter) {
      meter.queueWait = performance.now() - execution.queuedAt;
      meter.bytesOut += sent;
    }
  }

  /**
   * Hands queued executions to idle children, each to the first in turn (fair-queue.ts: the caller
   * running fewest executions first) that an idle child may take; then a child started for nested
   * executions that is left idle has nothing waiting for it, and ends.
   */
  #pump(): void {
    if (this.#disposed) return;
    while (this.#queue.length > 0) {
      if (!this.#supervision.children.some((candidate) => candidate.state.phase === 'idle')) break;
      let served: { child: PoolChild; execution: PoolExecution } | undefined;
      for (const execution of this.#queue.inTurn((caller) => this.#runningFor(caller))) {
        const child = this.#idleChild(execution);
        if (child) {
          served = { child, execution };
          break;
        }
      }
      if (!served) break;
      this.#queue.remove(served.execution);
      this.#assign(served.child, served.execution);
    }
    for (const child of this.#supervision.children) {
      if (child.nestingLevel > 0 && child.state.phase === 'idle') this.#supervision.retireNested(child);
    }
    this.#keepNestedCapacity();
  }

  /** How many children run an execution of `caller` now: its share of them. */
  #runningFor(caller: string): number {
    let count = 0;
    for (const child of this.#supervision.children) if (child.current?.caller === caller) count++;
    return count;
  }

  #finished(child: PoolChild): void {
    child.current = undefined;
    child.hostCalls = 0;
    if (child.state.running) child.state.move(child.workingRetained > 0 ? 'retainedWork' : 'idle');
    child.idleSince = performance.now();
    if (!this.#supervision.retireIfDue(child)) this.#pump();
    this.#updateRef();
  }

  /** `signal` (the caller's, or the ended signal of the execution that started this one) aborted. */
  #cancel(execution: PoolExecution, signal: AbortSignal): void {
    this.#queue.remove(execution);
    const child = this.#supervision.children.find((candidate) => candidate.current === execution);
    // The child answers with its own CANCELLED envelope, dropped here; until then it stays busy.
    if (child) child.send({ type: 'cancel', id: execution.id });
    execution.settle(
      signal === execution.host.signal
        ? cancelledEnvelope(signal)
        : faultEnvelope('CANCELLED', new CancelledError(PARENT_ENDED_REASON).message),
    );
    this.#updateRef();
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
      this.#supervision.children.some((child) => child.current !== undefined && !child.current.settled);
    if (busy === this.#referenced) return;
    this.#referenced = busy;
    for (const child of this.#supervision.children) child.setRef(busy);
  }

  #rejectEngineWaiters(error: Error): void {
    this.#engineWaiter?.reject(error);
    this.#engineWaiter = undefined;
    this.#updateRef();
  }
}

function noChildMessage(reason: string): string {
  return `No pool child can serve executions: ${reason}.`;
}

function childStats(child: PoolChild): ChildStats {
  const phase = child.state.phase;
  let state: ChildStats['state'] = 'idle';
  if (!child.healthy) state = 'starting';
  else if (!child.state.inService) state = 'retiring';
  else if (phase !== 'idle') state = 'busy';
  return {
    pid: child.pid,
    state,
    phase,
    executions: child.executions,
    nestingLevel: child.nestingLevel,
    prepared: child.prepared,
    heartbeatsAnswered: child.heartbeatsAnswered,
    rss: child.rss,
    retained: child.retained.size,
    heldRetained: child.heldRetained,
  };
}
