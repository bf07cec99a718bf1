/**
 * One execution of a remote client, as the server holds it: the dispatch and outbound functions
 * IsolateExecutor calls, each of which asks the client over the connection and waits for its
 * answer under a deadline, and the signal that cancels the run.
 *
 * The deadline exists because waits on the caller do not count on the run clock: a client that
 * never answers would otherwise park the run, and its isolate, for ever. The deadline alone does
 * not end that: a program that catches each failed call and calls again parks its child just as
 * well, so a wall-clock bound over the whole execution (queue, run and waits) ends it too.
 */

import { durableCall, pause } from '@supolka/codemode-executor';
import { currentContext, type NestingFrame } from '@supolka/codemode-executor/serving';
import type {
  DispatchFrame,
  HttpRequest,
  HttpResponse,
  Message,
  OutboundFrame,
  PauseMessage,
} from '@supolka/codemode-protocol/wire';
import { errorText, isErrorAnswer } from '@supolka/codemode-protocol/wire';
import type { ConnectionLog } from './log.ts';
import type { CallOutcome, ServerMetrics } from './metrics.ts';
import { dispatchUnansweredMessage, outboundUnansweredMessage, wallClockMessage } from './texts.ts';

type Kind = 'dispatch' | 'outbound';

interface PendingCall {
  readonly kind: Kind;
  /** Across every remote execution of the process, so the one asked last can be told. */
  readonly order: number;
  /** The nesting frame of the execution the call serves (the executor's pool/nested-executions.ts). */
  readonly frame: NestingFrame | undefined;
  answer(frame: DispatchFrame | OutboundFrame, paused?: PauseMessage): void;
  fail(text: string, outcome: CallOutcome): void;
}

/** A call's answer: its frame, and for a durable run's tool call, the pause the client's tool asked for. */
interface Answer {
  readonly frame: DispatchFrame | OutboundFrame;
  readonly paused?: PauseMessage | undefined;
}

let callOrder = 0;

/** A call of a remote execution waiting on its client, as a nested execute is attributed to it. */
export interface WaitingCall {
  readonly order: number;
  readonly frame: NestingFrame | undefined;
}

export interface RemoteExecutionBounds {
  /** How long each tool call or proxied fetch waits for the client's answer, in ms. */
  readonly deadline: number;
  /** How long the whole execution may take, in ms, before it is cancelled. */
  readonly wallClockLimit: number;
}

export class RemoteExecution {
  readonly id: string;
  readonly #controller = new AbortController();
  readonly #calls = new Map<number, PendingCall>();
  readonly #send: (message: Message) => void;
  readonly #deadline: number;
  readonly #metrics: ServerMetrics;
  readonly #log: ConnectionLog;
  readonly #wallClock: NodeJS.Timeout;
  #next = 0;
  #ended: string | undefined;
  #expired = false;

  /**
   * Starts the wall clock. `send` throws (PayloadTooLargeError) when a message cannot go; the call
   * then fails with its text.
   */
  constructor(
    id: string,
    send: (message: Message) => void,
    bounds: RemoteExecutionBounds,
    metrics: ServerMetrics,
    log: ConnectionLog,
  ) {
    this.id = id;
    this.#send = send;
    this.#deadline = bounds.deadline;
    this.#metrics = metrics;
    this.#log = log;
    this.#wallClock = setTimeout(() => {
      this.#expired = true;
      this.cancel(wallClockMessage(bounds.wallClockLimit));
    }, bounds.wallClockLimit);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Whether the wall-clock bound cancelled the run (its envelope then says CANCELLED, not why). */
  get expired(): boolean {
    return this.#expired;
  }

  /**
   * IsolateExecutor's raw dispatch: the result envelope as codec JSON, or a throw with the client's
   * text. A durable run's call (docs/durable.md, "Over the wire") is asked with its durable context,
   * which the executor runs this function in; when the client's tool paused, the run pauses here,
   * in that context, as a tool of this process would have paused it.
   */
  readonly dispatch = async (provider: string, tool: string, args: string): Promise<string> => {
    const context = durableCall();
    const durable =
      context === undefined
        ? undefined
        : {
            sequence: context.sequence,
            ...(context.idempotencyKey !== undefined ? { idempotencyKey: context.idempotencyKey } : {}),
            ...(context.tokenId !== undefined ? { tokenId: context.tokenId } : {}),
          };
    const { frame, paused } = await this.#ask(
      'dispatch',
      (call) => ({
        type: 'dispatch',
        id: this.id,
        call,
        provider,
        tool,
        args,
        ...(durable !== undefined ? { durable } : {}),
      }),
      dispatchUnansweredMessage(provider, tool, this.#deadline),
      { provider, tool },
    );
    if (paused !== undefined && durable !== undefined)
      pause(paused.data, paused.reason !== undefined ? { reason: paused.reason } : {});
    if (frame[0] === 'thrown') throw new Error(frame[1]);
    return frame[1] as string;
  };

  /** IsolateExecutor's outbound function, for proxied runs: the client performs the fetch. */
  readonly outbound = async (request: HttpRequest): Promise<HttpResponse> => {
    const { frame } = await this.#ask(
      'outbound',
      (call) => ({ type: 'outbound', id: this.id, call, request }),
      outboundUnansweredMessage(request.url, this.#deadline),
    );
    if (frame[0] === 'thrown') throw new Error(frame[1]);
    return frame[1] as HttpResponse;
  };

  /** The call of this execution that waits on the client and was asked last, if one waits. */
  get latestCall(): WaitingCall | undefined {
    let latest: PendingCall | undefined;
    for (const pending of this.#calls.values()) latest = pending;
    return latest;
  }

  /** A reply from the client. One for a call that is not waiting (late, or of the other kind) is dropped. */
  answer(kind: Kind, call: number, frame: DispatchFrame | OutboundFrame, paused?: PauseMessage): void {
    const pending = this.#calls.get(call);
    if (pending?.kind === kind) pending.answer(frame, paused);
  }

  /**
   * The execution granted handles: its calls go on serving their invocations, each under its
   * deadline, until `end`. The wall clock bounded the execution, and it has ended.
   */
  holdForHandles(): void {
    clearTimeout(this.#wallClock);
  }

  /** Ends the run at once; its envelope comes back with code CANCELLED and this reason. */
  cancel(reason: string): void {
    this.#controller.abort(new Error(reason));
  }

  /** Fails every call still waiting, and any later one, with `reason`. */
  end(reason: string, outcome: CallOutcome = 'lost'): void {
    clearTimeout(this.#wallClock);
    this.#ended ??= reason;
    for (const pending of [...this.#calls.values()]) pending.fail(`The call failed: ${reason}.`, outcome);
  }

  /** `tool` names a tool call, for the log; an outbound request has none. */
  #ask(
    kind: Kind,
    build: (call: number) => Message,
    unanswered: string,
    tool?: { readonly provider: string; readonly tool: string },
  ): Promise<Answer> {
    const metric = kind === 'dispatch' ? 'tool' : 'outbound';
    const asked = performance.now();
    const count = (outcome: CallOutcome, call?: number) => {
      this.#metrics.call(metric, outcome);
      if (tool !== undefined) {
        this.#log.toolCall(this.id, call, tool.provider, tool.tool, outcome, performance.now() - asked);
      }
    };
    if (this.#ended !== undefined) {
      count('lost');
      return Promise.resolve({ frame: ['thrown', `The call failed: ${this.#ended}.`] });
    }
    const call = this.#next++;
    const frame = currentContext()?.frame;
    return new Promise((resolve) => {
      const settle = (frame: DispatchFrame | OutboundFrame, outcome: CallOutcome, paused?: PauseMessage) => {
        clearTimeout(timer);
        this.#calls.delete(call);
        count(outcome, call);
        resolve({ frame, paused });
      };
      const timer = setTimeout(() => settle(['thrown', unanswered], 'unanswered'), this.#deadline);
      this.#calls.set(call, {
        kind,
        order: callOrder++,
        frame,
        answer: (frame, paused) => settle(frame, answeredOutcome(frame), paused),
        fail: (text, outcome) => settle(['thrown', text], outcome),
      });
      try {
        this.#send(build(call));
      } catch (error) {
        settle(['thrown', errorText(error)], 'thrown');
      }
    });
  }
}

/**
 * How an answered call ended. A client's tool that throws is answered as a returned frame holding
 * the error envelope (`{"error": ...}`, as every serving function writes it), not a thrown frame:
 * counted as returned, a failing tool never showed in the metrics.
 */
function answeredOutcome(frame: DispatchFrame | OutboundFrame): CallOutcome {
  if (frame[0] === 'thrown') return 'thrown';
  return typeof frame[1] === 'string' && isErrorAnswer(frame[1]) ? 'thrown' : 'returned';
}
