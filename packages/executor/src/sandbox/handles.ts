/**
 * Retained handles: an execution whose program resolved to a fetch handler keeps its isolate, and
 * callers invoke the handler with requests until they close it (docs/handles.md).
 *
 * Invocations of one execution run one at a time, in arrival order, chained on a promise: the
 * isolate serializes their synchronous parts anyway, and a bound measuring one invocation alone is
 * the honest reading. Each runs under the bounds the execution was granted, with a fresh RunClock
 * in the same clock slot, so the dispatch and outbound wraps installed once per isolate pause the
 * clock that owns the invocation. Disposal is the only way to stop a wedged isolate, so most
 * failures of an invocation end the retained execution with it.
 */
import { randomUUID } from 'node:crypto';
import {
  ExecutionTimeoutError,
  HandleNotFoundError,
  HandlesClosedError,
  type HttpRequest,
  type HttpResponse,
  HttpResponseSchema,
  MAX_DELAY,
  MemoryLimitError,
  PAUSED_RECHECK,
  PAYLOAD_LIMIT,
  PayloadTooLargeError,
  validate,
} from '@supolka/codemode-protocol';
import type ivm from 'isolated-vm';
import { RunClock } from './clock.ts';
import { disposeIsolate, type IsolateHandle } from './isolate.ts';
import type { PreparedIsolate } from './prepared-isolate.ts';
import { rewriteEngineTermination } from './timeout.ts';

/** The handles a retained execution can grant; only a fetch handler today. */
export const GRANTED_HANDLES = ['fetch'] as const;

type Frame = ['returned', HttpResponse] | ['thrown', string];

/**
 * Reads the invoker the entry installed once the run has settled. Presence of the invoker is the
 * grant; its absence means the program did not resolve to a handler. The read is asynchronous
 * (the isolate may still be running timers) and bounded by the caller.
 */
export async function captureInvokeReference(
  handle: IsolateHandle,
): Promise<ivm.Reference<(wire: HttpRequest) => Promise<Frame>> | undefined> {
  const reference = (await handle.jail.get('__invokeHandle', { reference: true })) as ivm.Reference<
    (wire: HttpRequest) => Promise<Frame>
  >;
  if (reference.typeof === 'function') return reference;
  reference.release();
  return undefined;
}

/**
 * Checks the handler's answer again on the host, whatever the isolate claimed: the status, the
 * status text, the header pairs and the body, and their size against PAYLOAD_LIMIT.
 */
export function assertResponseWireShape(value: unknown): HttpResponse {
  const response = validate(HttpResponseSchema, value, 'response of the handler');
  let size = response.statusText.length + (response.body?.byteLength ?? 0);
  for (const [name, text] of response.headers) size += name.length + text.length;
  if (size > PAYLOAD_LIMIT) throw new PayloadTooLargeError('response of the handler', size, PAYLOAD_LIMIT);
  return response;
}

interface Retained {
  readonly prepared: PreparedIsolate;
  readonly invoker: ivm.Reference<(wire: HttpRequest) => Promise<Frame>>;
  readonly timeout: number;
  readonly grace: number;
  readonly countHostWaits: boolean;
  chain: Promise<unknown>;
}

export interface RetainOptions {
  readonly timeout: number;
  readonly grace: number;
  readonly countHostWaits: boolean;
}

export class RetainedHandles {
  readonly #executions = new Map<string, Retained>();

  get size(): number {
    return this.#executions.size;
  }

  /** Keeps the isolate, its timers, its clock slot and its bounds; answers the executionId. */
  retain(prepared: PreparedIsolate, invoker: Retained['invoker'], options: RetainOptions): string {
    const executionId = randomUUID();
    this.#executions.set(executionId, { prepared, invoker, ...options, chain: Promise.resolve() });
    return executionId;
  }

  has(executionId: string): boolean {
    return this.#executions.has(executionId);
  }

  /** Invokes a granted handle; rejects with HANDLES_CLOSED or HANDLE_NOT_FOUND errors by code. */
  invoke(executionId: string, request: HttpRequest, handle = 'fetch'): Promise<HttpResponse> {
    const retained = this.#executions.get(executionId);
    if (retained === undefined) return Promise.reject(new HandlesClosedError(executionId));
    if (!(GRANTED_HANDLES as readonly string[]).includes(handle)) {
      return Promise.reject(new HandleNotFoundError(handle, GRANTED_HANDLES));
    }
    const result = retained.chain.then(() => {
      // A closeHandles that arrived while this invocation waited its turn.
      if (this.#executions.get(executionId) !== retained) throw new HandlesClosedError(executionId);
      return this.#perform(executionId, retained, request);
    });
    retained.chain = result.catch(() => undefined);
    return result;
  }

  /** Ends a retained execution and disposes its isolate. */
  close(executionId: string): boolean {
    const retained = this.#executions.get(executionId);
    if (retained === undefined) return false;
    this.#executions.delete(executionId);
    this.#end(retained);
    return true;
  }

  closeAll(): void {
    for (const executionId of [...this.#executions.keys()]) this.close(executionId);
  }

  #end(retained: Retained): void {
    const { slots, handle } = retained.prepared;
    slots.dispatch.completed = true;
    slots.outbound = undefined;
    slots.abortOutbound();
    slots.clock.current?.release();
    slots.clock.clear();
    slots.timers.cancelAll();
    retained.invoker.release();
    disposeIsolate(handle);
  }

  /**
   * performInvocation: the engine timeout at timeout + grace on the call, as the backstop for a
   * synchronous spin, raced against the run clock's expiry at the timeout. The invoker always
   * answers a frame, so an undefined answer means the bound expired on a parked run.
   */
  async #perform(executionId: string, retained: Retained, request: HttpRequest): Promise<HttpResponse> {
    const { handle, slots } = retained.prepared;
    const total = Math.min(retained.timeout + retained.grace, MAX_DELAY);
    const clock = new RunClock(handle.isolate, { countHostWaits: retained.countHostWaits });
    slots.clock.set(clock);
    slots.dispatch.completed = false;
    let watch: NodeJS.Timeout | undefined;
    const disposed = new Promise<'disposed'>((resolve) => {
      watch = setInterval(() => {
        if (handle.isolate.isDisposed) resolve('disposed');
      }, PAUSED_RECHECK);
    });
    const call = retained.invoker
      .apply(undefined, [request], {
        arguments: { copy: true },
        result: { promise: true, copy: true },
        timeout: total,
      })
      .then(
        (frame) => ({ frame: frame as unknown as Frame }),
        (error: unknown) => ({ error }),
      );
    try {
      const outcome = await Promise.race([
        call,
        clock.expire(retained.timeout).then(() => undefined),
        disposed,
      ]);
      if (outcome === undefined)
        throw this.#fail(executionId, retained, new ExecutionTimeoutError(retained.timeout));
      if (outcome === 'disposed')
        throw this.#fail(executionId, retained, new MemoryLimitError(handle.memoryLimit));
      if ('error' in outcome) {
        const message = outcome.error instanceof Error ? outcome.error.message : String(outcome.error);
        const rewritten = rewriteEngineTermination(message, {
          elapsed: clock.elapsed(),
          bound: total,
          disposed: handle.isolate.isDisposed,
          timeout: retained.timeout,
          memoryLimit: handle.memoryLimit,
        });
        if (rewritten?.code === 'TIMEOUT')
          throw this.#fail(executionId, retained, new ExecutionTimeoutError(retained.timeout));
        if (rewritten?.code === 'MEMORY_LIMIT' || handle.isolate.isDisposed) {
          throw this.#fail(executionId, retained, new MemoryLimitError(handle.memoryLimit));
        }
        // An isolate still alive that failed the call for its own reason: the execution survives.
        throw new Error(message);
      }
      const [kind, payload] = outcome.frame;
      if (kind === 'thrown') throw new Error(payload);
      return assertResponseWireShape(payload);
    } finally {
      clearInterval(watch);
      if (this.#executions.get(executionId) === retained) {
        slots.dispatch.completed = true;
        clock.release();
        slots.clock.clear();
      }
    }
  }

  /** Ends the execution for a failure that leaves its isolate unusable, and answers that failure. */
  #fail(executionId: string, retained: Retained, error: Error): Error {
    if (this.#executions.get(executionId) === retained) {
      this.#executions.delete(executionId);
      this.#end(retained);
    }
    return error;
  }
}
