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

/**
 * The kinds of handle the caller holds more of after than before, each as often as it grew: what a
 * run left behind. One fewer is no leak (an idle keep-alive socket of the warm-up closing meanwhile).
 */
export function resourcesGrown(before: ParentSample, after: ParentSample): string[] {
  const left = new Map<string, number>();
  for (const kind of before.resources) left.set(kind, (left.get(kind) ?? 0) + 1);
  const grown: string[] = [];
  for (const kind of after.resources) {
    const remaining = left.get(kind) ?? 0;
    if (remaining > 0) left.set(kind, remaining - 1);
    else grown.push(kind);
  }
  return grown.sort();
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

/** A report row: the figure, what was measured, the target, and whether it was met. */
export type ReportRow = [figure: string, measured: string, target: string, met: boolean];

/** Prints each kind's outcomes and their counts as a Markdown table, as soak and chaos report them. */
export function printOutcomes(outcomes: Record<string, Record<string, number>>): void {
  console.log('| kind | outcomes |\n| --- | --- |');
  for (const [kind, counts] of Object.entries(outcomes)) {
    const cells = Object.entries(counts).map(([outcome, count]) => `${outcome} ${count}`);
    console.log(`| ${kind} | ${cells.join(', ')} |`);
  }
}

/** Prints the rows beside their targets as a Markdown table; answers whether every target was met. */
export function printRows(rows: readonly ReportRow[]): boolean {
  console.log('\n| figure | measured | target | |\n| --- | --- | --- | --- |');
  for (const [name, measured, target, met] of rows)
    console.log(`| ${name} | ${measured} | ${target} | ${met ? 'met' : 'MISSED'} |`);
  return rows.every(([, , , met]) => met);
}

/**
 * The rows both soak and chaos report about the parent, from its samples before and after the load:
 * descriptors and handles flat, resident memory and heap within 15%. The heap is read after a full
 * collection when the process runs with --expose-gc, and the row says which it was: without it the
 * heap is read as it stands, which moves with the collector's timing.
 */
export function parentRows(before: ParentSample, after: ParentSample): ReportRow[] {
  const collected = typeof (globalThis as { gc?: unknown }).gc === 'function';
  return [
    ['parent descriptors, before → after', `${before.fds} → ${after.fds}`, 'flat', after.fds <= before.fds],
    [
      'parent handles, before → after',
      `${before.handles} → ${after.handles}`,
      'flat',
      after.handles <= before.handles,
    ],
    [
      'parent resident memory, before → after',
      `${mb(before.rss)} → ${mb(after.rss)}`,
      'flat (<= 15%)',
      after.rss <= before.rss * 1.15,
    ],
    [
      `parent heap${collected ? ' after a full collection' : ''}, before → after`,
      `${mb(before.heapUsed)} → ${mb(after.heapUsed)}`,
      'flat (<= 15%)',
      after.heapUsed <= before.heapUsed * 1.15,
    ],
  ];
}
