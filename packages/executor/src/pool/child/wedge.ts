/**
 * Whether an isolate this child disposed is still running guest code.
 *
 * Disposal at a run's bound (or at a cancel) returns at once, but cannot stop a builtin that never
 * checks for interrupts: `new Array(2 ** 27).fill(1.5)` ran on for more than 15 s after dispose()
 * here, on the isolate's own thread, outside every bound (isolated-vm 6.2.0). A child in that
 * state must take no new work: the next run would share a core with it, the backstop would stop
 * measuring it, and the engine's "Script failed to terminate" would end the child under that run.
 * So before the child answers such a run it waits for the isolates it disposed to stop
 * (sandbox/isolate.ts, stoppingIsolates), at most ISOLATE_SETTLE_BOUND ms, and says `wedged` when
 * one has not; the pool then ends it with SIGKILL once its answer is in.
 */
import { stoppingIsolates } from '../../sandbox/isolate.ts';

/**
 * How long a disposed isolate's thread may take to stop, in ms: an idle one stops in 0.3 ms, a
 * loop the termination interrupts in about 10 ms (measured here); twenty times that is a wedge.
 */
export const ISOLATE_SETTLE_BOUND = 200;

/** Resolves true when an isolate disposed so far still runs ISOLATE_SETTLE_BOUND ms from now. */
export async function wedgedAfterDisposal(bound = ISOLATE_SETTLE_BOUND): Promise<boolean> {
  // The sandbox disposes a finished run's isolate off the caller's path, in a setImmediate queued
  // before its envelope resolved: one queued now runs after it, so that disposal is counted.
  await new Promise((resolve) => setImmediate(resolve));
  const waiting = [...stoppingIsolates().values()];
  if (waiting.length === 0) return false;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(true), bound);
  });
  try {
    return await Promise.race([Promise.all(waiting).then(() => false), expired]);
  } finally {
    clearTimeout(timer);
  }
}
