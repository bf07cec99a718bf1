/** Timing helpers shared by the benchmarks: samples in milliseconds, summarized as median and p99. */

export interface Summary {
  readonly name: string;
  readonly median: number;
  readonly p99: number;
  readonly samples: number;
}

export function summarize(name: string, samples: number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  return { name, median: at(0.5), p99: at(0.99), samples: samples.length };
}

export async function sample(
  iterations: number,
  run: () => Promise<unknown> | unknown,
  warmup = 20,
): Promise<number[]> {
  for (let index = 0; index < warmup; index++) await run();
  const samples: number[] = [];
  for (let index = 0; index < iterations; index++) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  return samples;
}

/**
 * Like sample, with `gapMs` of idle time before each run. An execution prepares the next isolate
 * once the event loop is free; back to back, every other run would pay for a fresh one, and a
 * per-call figure computed against a paced baseline would carry that cost.
 */
export async function samplePaced(
  iterations: number,
  run: () => Promise<unknown> | unknown,
  gapMs: number,
  warmup = 5,
): Promise<number[]> {
  for (let index = 0; index < warmup; index++) await run();
  const samples: number[] = [];
  for (let index = 0; index < iterations; index++) {
    await new Promise((resolve) => setTimeout(resolve, gapMs));
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  return samples;
}

const format = (ms: number) => (ms < 1 ? `${(ms * 1000).toFixed(1)} µs` : `${ms.toFixed(3)} ms`);

/** Prints one table: each row's median and p99, and its ratio to the baseline row it names. */
export function printTable(
  title: string,
  rows: readonly { summary: Summary; baseline?: Summary; target?: string }[],
): void {
  console.log(`\n${title}`);
  console.log(`| measurement | median | p99 | samples | ratio to baseline | baseline | target |`);
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const { summary, baseline, target } of rows) {
    const ratio = baseline ? `${(summary.median / baseline.median).toFixed(2)}x` : '—';
    console.log(
      `| ${summary.name} | ${format(summary.median)} | ${Number.isNaN(summary.p99) ? '—' : format(summary.p99)} | ${summary.samples} | ${ratio} | ${baseline?.name ?? '—'} | ${target ?? '—'} |`,
    );
  }
}
