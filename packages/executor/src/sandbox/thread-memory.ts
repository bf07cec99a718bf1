/**
 * What an eraser thread reports after each job (eraser.ts ends a thread past its retained limit):
 * the bytes its isolate holds outside the JavaScript heap. In an eraser thread that is amaro's
 * WebAssembly memory above all, which grows with the code it parses and never shrinks, and which
 * the thread's heap bound (resourceLimits) does not see.
 */
import { getHeapStatistics } from 'node:v8';

export function threadRetainedBytes(): number {
  return getHeapStatistics().external_memory;
}
