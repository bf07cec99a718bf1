/**
 * What an isolate's catastrophic error means, by its text, and so what its run reads.
 *
 * isolated-vm calls the isolate's catastrophic-error callback with one of two texts of its own:
 * - "Catastrophic out-of-memory error": V8's fatal out-of-memory in that isolate (a 512 MiB backing
 *   store it could not allocate, for one). The run read MEMORY_LIMIT.
 * - "Script failed to terminate": a termination the engine asked for did not happen within 5 s,
 *   because a builtin that never checks for interrupts kept running (`Array.prototype.fill` or
 *   `Object.keys` over 2 ** 27 elements). Measured with isolated-vm 6.2.0, it comes 5 s after the
 *   engine's own timer on the call fired (the run's timeout + grace), and never on a call without
 *   one: the memory limit's own termination does not raise it, though it may have failed as well.
 *   So it reads TIMEOUT when the run's bound had passed, unless the process holds more than every
 *   isolate's limit allows, which shows the isolate ran out of memory first (MEMORY_LIMIT).
 * Any other text is an engine failure nobody caused: WORKER_LOST for everyone, with that text.
 */

export const ENGINE_OUT_OF_MEMORY_TEXT = 'Catastrophic out-of-memory error';
export const FAILED_TERMINATION_TEXT = 'Script failed to terminate';

const MEMORY_TEXT = /out[ -]of[ -]memory|memory limit|heap limit/i;

export type CatastropheCause = 'memory' | 'timeout' | 'engine';

export interface CatastropheEvidence {
  /** Whether the process holds more than the floor plus every live isolate's limit and the slack. */
  readonly overLimits: boolean;
  /** Whether the culprit's call had run past its timeout + grace (the engine's timer is set there). */
  readonly boundPassed: boolean;
}

export function causeOfCatastrophe(message: string, evidence: CatastropheEvidence): CatastropheCause {
  if (MEMORY_TEXT.test(message)) return 'memory';
  if (!message.includes(FAILED_TERMINATION_TEXT)) return 'engine';
  if (evidence.overLimits) return 'memory';
  // Only the run's timer and the memory limit ask an isolate of this process to terminate.
  return evidence.boundPassed ? 'timeout' : 'memory';
}
