/**
 * What a tool function (or an outbound function) can learn about the call it serves without a
 * change to its arguments: the signal that fires when the execution or invocation it serves ends
 * (the wall-clock bound, a cancellation, the run's end), and a way to stop the wall clock while it
 * waits on a person. Both read an AsyncLocalStorage the executor enters around each call, so they
 * work anywhere in the function's async flow (docs/pool.md, "The wall-clock bound").
 *
 *   fns: { slow: async (query) => (await fetch(url, { signal: toolSignal() })).json() }
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { WallClock } from './wall-clock.ts';

const calls = new AsyncLocalStorage<WallClock>();

/** Runs `serve` (one tool call or outbound request) as a call under `clock`, which keeps it as pending. */
export function serveUnder<T>(clock: WallClock, label: string, serve: () => Promise<T> | T): Promise<T> {
  return calls.run(clock, () => clock.track(label, Promise.resolve(serve())));
}

/**
 * The signal of the execution or invocation the current tool call serves: it aborts when that ends
 * for any reason, with the wall-clock bound's error when the bound ended it. Undefined outside a
 * tool or outbound function the executor called.
 */
export function toolSignal(): AbortSignal | undefined {
  return calls.getStore()?.toolSignal;
}

/**
 * Runs `wait` with the wall clock of the current tool call stopped: for a wait on a person (an
 * approval question), whose own timeout bounds it. Outside a tool call it just runs `wait`.
 */
export async function pauseWallClock<T>(wait: () => Promise<T>): Promise<T> {
  const resume = calls.getStore()?.pause();
  try {
    return await wait();
  } finally {
    resume?.();
  }
}
