/**
 * A child's resident memory through its life, and how far it moved from where it settled. The
 * samples fall at any moment, inside a run that allocates too, so single readings swing; the life
 * is cut into windows of `window` executions, and each window is read twice: by its median (what
 * the child holds under load) and by its lowest reading (its floor between runs, what it keeps).
 * Settled is the first window past the warm-up; growth is the highest later window against it.
 * Only whole windows count: the one the life's end cuts short holds its last run or two.
 * A child retired by its service life ends its series there; its replacement is a life of its own.
 */
export interface ChildLife {
  readonly pid: number;
  readonly samples: { executions: number; rss: number }[];
}

export interface WindowGrowth {
  /** The first window past the warm-up, in bytes. */
  readonly settled: number;
  /** The highest later window, in bytes. */
  readonly highest: number;
  /** highest / settled - 1. */
  readonly growth: number;
}

export interface LifeGrowth {
  readonly pid: number;
  readonly executions: number;
  /** Windows read by their medians. */
  readonly median: WindowGrowth;
  /** Windows read by their lowest readings. */
  readonly floor: WindowGrowth;
  readonly peak: number;
}

/** The growth of a life long enough to have a settled window and one after it; undefined otherwise. */
export function lifeGrowth(life: ChildLife, warmup: number, window: number): LifeGrowth | undefined {
  // The last window is cut short by the life's end (its last run alone, often): too few readings to say.
  const complete = Math.floor(((life.samples.at(-1)?.executions ?? 0) - warmup) / window);
  const windows: number[][] = [];
  for (const { executions, rss } of life.samples) {
    if (executions < warmup || executions >= warmup + complete * window) continue;
    const index = Math.floor((executions - warmup) / window);
    const readings = windows[index] ?? [];
    readings.push(rss);
    windows[index] = readings;
  }
  const [first, ...later] = windows;
  const readLater = later.filter((readings) => readings !== undefined);
  if (first === undefined || readLater.length === 0) return undefined;
  const growthBy = (read: (readings: number[]) => number): WindowGrowth => {
    const settled = read(first);
    const highest = Math.max(...readLater.map(read));
    return { settled, highest, growth: highest / settled - 1 };
  };
  return {
    pid: life.pid,
    executions: life.samples.at(-1)?.executions ?? 0,
    median: growthBy(median),
    floor: growthBy((readings) => Math.min(...readings)),
    peak: Math.max(...life.samples.map((sample) => sample.rss)),
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}
