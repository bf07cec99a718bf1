/**
 * A child's resident memory through its life, and how far it moved from where it settled. The
 * samples fall at any moment, inside a run that allocates too, so single readings swing; the life
 * is cut into windows of `window` executions and each window is read by its median. Settled is
 * the median of the first window past the warm-up; growth is the highest later window's median
 * against it. A child retired by its service life ends its series there; its replacement is a
 * life of its own.
 */
export interface ChildLife {
  readonly pid: number;
  readonly samples: { executions: number; rss: number }[];
}

export interface LifeGrowth {
  readonly pid: number;
  readonly executions: number;
  /** Median resident memory of the first window past the warm-up, in bytes. */
  readonly settled: number;
  /** The highest window median after it, in bytes. */
  readonly highest: number;
  /** highest / settled - 1. */
  readonly growth: number;
  readonly peak: number;
}

/** The growth of a life long enough to have a settled window and one after it; undefined otherwise. */
export function lifeGrowth(life: ChildLife, warmup: number, window: number): LifeGrowth | undefined {
  const windows = new Map<number, number[]>();
  for (const { executions, rss } of life.samples) {
    if (executions < warmup) continue;
    const index = Math.floor((executions - warmup) / window);
    const readings = windows.get(index) ?? [];
    readings.push(rss);
    windows.set(index, readings);
  }
  const settledReadings = windows.get(0);
  const later = [...windows].filter(([index]) => index > 0).map(([, readings]) => median(readings));
  if (settledReadings === undefined || later.length === 0) return undefined;
  const settled = median(settledReadings);
  const highest = Math.max(...later);
  return {
    pid: life.pid,
    executions: life.samples.at(-1)?.executions ?? 0,
    settled,
    highest,
    growth: highest / settled - 1,
    peak: Math.max(...life.samples.map((sample) => sample.rss)),
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}
