/**
 * What each message a child sends means to the pool: one switch over the message types a child
 * sends, each handed to the handler for it. A message has passed the pool table's validation
 * (messages/table.ts) before it gets here; one of a type the pool never expects from a child is a
 * protocol violation.
 */
import type { LastWords, PoolChild } from './child-handle.ts';
import type { PoolMessage, PoolMessageOf } from './messages/table.ts';

/** A host call of a run: a tool call, or an outbound request of a proxied run. */
export type HostCallMessage = PoolMessageOf<'dispatch'> | PoolMessageOf<'outbound'>;

export interface ChildMessageHandlers {
  health(child: PoolChild, message: PoolMessageOf<'health'>): void;
  result(child: PoolChild, message: PoolMessageOf<'result'>): void;
  hostCall(child: PoolChild, message: HostCallMessage): void;
  hostWait(child: PoolChild, message: PoolMessageOf<'hostWait'>): void;
  console(child: PoolChild, message: PoolMessageOf<'console'>): void;
  prepared(child: PoolChild): void;
  /** The answer to a conversation (invoke, closeHandles). */
  answer(child: PoolChild, message: PoolMessageOf<'invokeResult'> | PoolMessageOf<'ack'>): void;
  fault(child: PoolChild, message: PoolMessageOf<'fault'>): void;
  /** It is ending itself, for memory or for a run its engine could not stop. */
  ending(child: PoolChild, message: LastWords): void;
  wedged(child: PoolChild, message: PoolMessageOf<'wedged'>): void;
  handlesClosed(child: PoolChild, message: PoolMessageOf<'handlesClosed'>): void;
  /** The snapshot its start made, for the children spawned after it. */
  snapshot(child: PoolChild, message: PoolMessageOf<'snapshot'>): void;
  /** It is not speaking the protocol. */
  violation(child: PoolChild, reason: string): void;
}

export function routeChildMessage(
  child: PoolChild,
  message: PoolMessage,
  handlers: ChildMessageHandlers,
): void {
  switch (message.type) {
    case 'health':
      handlers.health(child, message);
      break;
    case 'result':
      handlers.result(child, message);
      break;
    case 'dispatch':
    case 'outbound':
      handlers.hostCall(child, message);
      break;
    case 'hostWait':
      handlers.hostWait(child, message);
      break;
    case 'console':
      handlers.console(child, message);
      break;
    case 'prepared':
      handlers.prepared(child);
      break;
    case 'invokeResult':
    case 'ack':
      handlers.answer(child, message);
      break;
    case 'fault':
      handlers.fault(child, message);
      break;
    case 'outOfMemory':
    case 'timedOut':
      handlers.ending(child, message);
      break;
    case 'wedged':
      handlers.wedged(child, message);
      break;
    case 'handlesClosed':
      handlers.handlesClosed(child, message);
      break;
    case 'snapshot':
      handlers.snapshot(child, message);
      break;
    default:
      handlers.violation(child, `it sent a ${message.type} message, which a pool child never sends`);
      break;
  }
}
