/**
 * What a process holds, read the way an operator would: descriptors from /proc/self/fd, Node's
 * active handles and requests, resident memory and the JS heap; and a child's resident memory
 * from /proc/<pid>/status. Linux only, as the pool's own memory readings are.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface ParentSample {
  readonly fds: number;
  /** process.getActiveResourcesInfo(): sockets, pipes, timers and requests Node keeps alive. */
  readonly handles: number;
  /** Their kinds, so a handle that stayed says what it is. */
  readonly resources: readonly string[];
  readonly rss: number;
  readonly heapUsed: number;
}

/**
 * The caller's figures now. With --expose-gc (the commands run with it) a full collection runs
 * first, so the heap reads what is kept, not what the next collection would take.
 */
export function sampleParent(): ParentSample {
  (globalThis as { gc?: () => void }).gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  const resources = process.getActiveResourcesInfo();
  return {
    fds: readdirSync('/proc/self/fd').length,
    handles: resources.length,
    resources,
    rss,
    heapUsed,
  };
}

/** A process's resident memory in bytes (VmRSS, which the kernel states in kB), or undefined once it is gone. */
export function residentOf(pid: number): number | undefined {
  try {
    const line = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return line ? Number(line[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process exists and is not a zombie waiting to be reaped. */
export function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

export const mb = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MB`;
