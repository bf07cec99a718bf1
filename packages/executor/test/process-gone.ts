/**
 * Whether a process the test started (or a command it ran started) is gone, for the tests that
 * check nothing outlives a command: shared by the early-child tests of the pool, the CLI and the
 * bridge.
 */
import { existsSync, readFileSync } from 'node:fs';

/**
 * Whether `pid` is gone: no such process, or one that died and waits to be reaped by whoever
 * adopted it (a zombie, read from /proc where there is one; elsewhere a signal 0 tells only
 * whether the pid exists).
 */
export function gone(pid: number): boolean {
  if (!existsSync('/proc')) {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') === true;
  } catch {
    return true;
  }
}

/** Whether `pid` is gone within 10 s, looked at every 20 ms. */
export async function eventuallyGone(pid: number): Promise<boolean> {
  for (let waited = 0; waited < 10_000 && !gone(pid); waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return gone(pid);
}
