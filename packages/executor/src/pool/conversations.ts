/**
 * Requests to a child that are not executions (invoke, closeHandles): each has an id of its own,
 * and settles with the child's answer, a fault, or the child's end. They reject with errors that
 * carry a code, since they are calls and not executions (docs/pool.md, "Outcomes").
 */
import { CodemodeError, type EnvelopeCode, type FaultCode } from '@supolka/codemode-protocol/wire';
import type { PoolChild } from './child-handle.ts';
import type { PoolMessage } from './messages/table.ts';

interface Pending {
  readonly child: PoolChild;
  readonly resolve: (message: PoolMessage) => void;
  readonly reject: (error: Error) => void;
}

/** Names each code's error the way the protocol's classes do, for callers that match on `name`. */
const ERROR_NAMES: Partial<Record<FaultCode, string>> = {
  BAD_REQUEST: 'BadRequestError',
  PAYLOAD_TOO_LARGE: 'PayloadTooLargeError',
  HANDLES_CLOSED: 'HandlesClosedError',
  HANDLE_NOT_FOUND: 'HandleNotFoundError',
  TIMEOUT: 'ExecutionTimeoutError',
  MEMORY_LIMIT: 'MemoryLimitError',
  CANCELLED: 'CancelledError',
  WORKER_LOST: 'WorkerLostError',
  INTERNAL: 'InternalError',
};

/** The error a fault from a child becomes on this side. */
export function faultError(code: EnvelopeCode, message: string): CodemodeError {
  const error = new CodemodeError(code, message);
  error.name = ERROR_NAMES[code as FaultCode] ?? 'CodemodeError';
  return error;
}

export class Conversations {
  readonly #pending = new Map<string, Pending>();
  #next = 0;

  /** Sends the message `build` makes with a fresh id, and waits for its answer. */
  start(child: PoolChild, build: (id: string) => PoolMessage): Promise<PoolMessage> {
    const id = `c${this.#next++}`;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { child, resolve, reject });
      try {
        child.send(build(id));
      } catch (error) {
        this.#pending.delete(id);
        reject(error);
      }
    });
  }

  get size(): number {
    return this.#pending.size;
  }

  /** Whether the conversation `id` with `child` waits for its answer. */
  pending(child: PoolChild, id: string): boolean {
    return this.#pending.get(id)?.child === child;
  }

  /** Settles the conversation `id` of `child` with its answer; false when there is none. */
  answer(child: PoolChild, id: string, message: PoolMessage): boolean {
    const pending = this.#take(child, id);
    if (!pending) return false;
    if (message.type === 'fault') pending.reject(faultError(message.code, message.message));
    else pending.resolve(message);
    return true;
  }

  /** Rejects every conversation of a child that is gone, each with the error `error` makes for its id. */
  dropChild(child: PoolChild, error: (id: string) => Error): void {
    for (const [id, pending] of this.#pending) {
      if (pending.child !== child) continue;
      this.#pending.delete(id);
      pending.reject(error(id));
    }
  }

  clear(error: () => Error): void {
    for (const pending of this.#pending.values()) pending.reject(error());
    this.#pending.clear();
  }

  #take(child: PoolChild, id: string): Pending | undefined {
    const pending = this.#pending.get(id);
    if (pending?.child !== child) return undefined;
    this.#pending.delete(id);
    return pending;
  }
}
