/**
 * The isolate's memory limit, as the host names it at the handshake. The engine meters the heap
 * and ordinary ArrayBuffers by it on its own; the runtime bounds by it what the engine cannot
 * see: reserved memory (reserved-memory.ts) and the bytes crossing to the host (crypto/crossing.ts).
 */
import { MathTrunc } from './primordials.ts';

/** The limit assumed when the host names none (the snapshot's warm-up context). */
const DEFAULT_MEMORY_LIMIT_MB = 128;

let limitMB = DEFAULT_MEMORY_LIMIT_MB;

/** Records the limit; called once per isolate, in the second install step, before user code. */
export function setMemoryLimit(memoryLimitMB: number | undefined): void {
  limitMB = typeof memoryLimitMB === 'number' && memoryLimitMB > 0 ? memoryLimitMB : DEFAULT_MEMORY_LIMIT_MB;
}

/** The limit in bytes. */
export function memoryLimitBytes(): number {
  return MathTrunc(limitMB * 2 ** 20);
}
