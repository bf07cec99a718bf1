/** Timing helpers shared by the benchmarks: samples in milliseconds, summarized as median and p99. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

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

/** What a recorded figure is measured in: milliseconds (the default), a rate per second, bytes, or a plain ratio. */
export type Unit = 'ms' | '/s' | 'bytes' | 'ratio';

/** A figure as a bench file hands it to bench/run.mjs: its summary, the stable key the targets name, its unit. */
export interface Recorded extends Summary {
  readonly key: string;
  readonly unit: Unit;
}

/**
 * Writes one figure into the run's results directory (BENCH_RESULTS, made by bench/run.mjs), where
 * run.mjs reads it back for the "Issue 11 targets" table. The key, not the printed name, is what the
 * table looks up, so a bench may rename its rows freely. A bench started by hand, without the
 * directory, records nothing.
 */
export function record(key: string, summary: Summary, unit: Unit = 'ms'): void {
  const directory = process.env.BENCH_RESULTS;
  if (directory === undefined || directory === '') return;
  const recorded: Recorded = { key, unit, ...summary };
  // JSON has no NaN: a figure without a tail (a difference of medians, a single value) writes null.
  writeFileSync(
    join(directory, `${key}.json`),
    JSON.stringify(recorded, (_name, value) => (Number.isNaN(value) ? null : value)),
  );
}

/** A single measured value (a rate, a byte count, a resident size) in the shape of a Summary. */
export function single(name: string, value: number, samples = 1): Summary {
  return { name, median: value, p99: Number.NaN, samples };
}

/**
 * Resident memory of a process, read from /proc (bytes); NaN where /proc cannot say, so the figure
 * reads "not measured" rather than a zero that would pass any bound.
 */
export function processRss(pid: number): number {
  try {
    const pages = Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]);
    return pages * 4096;
  } catch {
    return Number.NaN;
  }
}
