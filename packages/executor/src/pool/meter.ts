/**
 * What one execution cost, counted by the pool as it runs: the wait for a child, the calls it
 * made on the caller, and the bytes that crossed to and from its child. The pool fills one only
 * when the caller handed it one (an observer is set: executor/observer.ts), so an execution nobody
 * observes counts nothing.
 */
export class ExecutionMeter {
  /** Milliseconds from the pool being handed the execution to a child taking it; unset while none has. */
  queueWait: number | undefined;
  /** Tool calls the child sent for it. */
  toolCalls = 0;
  /** Proxied outbound requests the child sent for it. */
  outboundRequests = 0;
  /** UTF-8 bytes of what the pool sent its child for it: the execute message and the answers to its calls. */
  bytesOut = 0;
  /** UTF-8 bytes of what its child sent for it: its calls and its result. */
  bytesIn = 0;
}
