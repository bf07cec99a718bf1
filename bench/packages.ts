/**
 * What importing an allowed package costs a run (docs/packages.md, issue 27): Sandbox.execute in
 * process with an isolate prepared ahead, for a program importing nothing, date-fns (its main entry,
 * which initializes every one of its 250 functions' modules, and one subpath), and zod. Each is
 * measured on a fresh sandbox's first run and over the runs after it, three ways: warmed in the
 * prepared isolate (what the sandbox does), through the packages' script code cache alone, and
 * compiling each package's script from source every run (a cache that keeps nothing). Throughput
 * is runs per second back to back on one sandbox, which is one core (back to back, a run finds no
 * isolate prepared, so it pays for its own). Started by `tools/run bench`; records the warmed medians.
 */
import { join } from 'node:path';
import { assertEngineServesSandbox, Sandbox } from '../packages/executor/src/sandbox/index.ts';
import type { CodeCache } from '../packages/executor/src/sandbox/modules/code-cache.ts';
import { bundlePackages } from '../packages/packages/src/index.ts';
import { printTable, record, type Summary, single, summarize } from './stats.ts';

const runs = Number(process.env.BENCH_ITERATIONS ?? 100);
const base = new URL('../packages/packages/', import.meta.url).pathname;
const bundleStarted = performance.now();
const bundle = await bundlePackages({ packages: ['date-fns', 'zod'], base: join(base) });
const bundleMs = performance.now() - bundleStarted;
const engine = await assertEngineServesSandbox();

const programs = {
  none: `async () => new Date(Date.UTC(2024, 0, 1) + 86400000).toISOString().slice(0, 10)`,
  'date-fns': `import { addDays, formatISO } from 'date-fns'\nasync () => formatISO(addDays(new Date(Date.UTC(2024, 0, 1)), 1), { representation: 'date' })`,
  'date-fns/addDays': `import { addDays } from 'date-fns/addDays'\nasync () => addDays(new Date(Date.UTC(2024, 0, 1)), 1).toISOString().slice(0, 10)`,
  zod: `import { z } from 'zod'\nasync () => z.object({ day: z.string() }).parse({ day: '2024-01-02' }).day`,
} as const;
type Program = keyof typeof programs;

/** A code cache that keeps nothing: every run compiles each package's script from source. */
const noCache: CodeCache = { get: () => undefined, set: () => undefined };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function timed(sandbox: Sandbox, code: string): Promise<number> {
  const started = performance.now();
  const envelope = await sandbox.execute({ code });
  const elapsed = performance.now() - started;
  if (envelope.error !== undefined) throw new Error(envelope.error);
  return elapsed;
}

const rows: { summary: Summary; baseline?: Summary; target?: string }[] = [];
const rates: string[] = [];
const sides = [
  { label: 'warmed in the prepared isolate', options: {} },
  { label: 'script code cache, not warmed', options: { warmPackages: false } },
  { label: 'compiled from source every run', options: { warmPackages: false, packageCodeCache: noCache } },
] as const;
let none: Summary | undefined;
for (const side of sides) {
  for (const name of Object.keys(programs) as Program[]) {
    if (name === 'none' && none !== undefined) continue;
    const sandbox = new Sandbox({ engine, packages: bundle, ...side.options });
    await pause(50);
    const first = await timed(sandbox, programs[name]);
    const samples: number[] = [];
    for (let run = 1; run < runs; run++) {
      // Paced, so each run finds its isolate prepared (and warmed), as a pool child at rest has it.
      await pause(20);
      samples.push(await timed(sandbox, programs[name]));
    }
    const started = performance.now();
    for (let run = 0; run < runs; run++) await timed(sandbox, programs[name]);
    const perSecond = (runs * 1000) / (performance.now() - started);
    sandbox.dispose();
    const label = name === 'none' ? 'no import' : `import ${name}, ${side.label}`;
    const steady = summarize(`${label}: runs 2 to ${runs}`, samples);
    if (name === 'none') none = steady;
    const target =
      side === sides[0] && name === 'date-fns'
        ? '≤ no import + 1 ms'
        : side === sides[0] && name === 'zod'
          ? '≤ no import + 3 ms'
          : undefined;
    rows.push({ summary: single(`${label}: first run of a fresh sandbox`, first) });
    rows.push({
      summary: steady,
      ...(none && name !== 'none' ? { baseline: none } : {}),
      ...(target ? { target } : {}),
    });
    rows.push({ summary: single(`${label}: run ${runs}`, samples.at(-1) ?? Number.NaN) });
    rates.push(`| ${label} | ${perSecond.toFixed(1)} |`);
    if (side === sides[0]) record(`packages-${name.replace('/', '-')}-warm`, steady);
  }
}
printTable(`Importing allowed packages, Sandbox.execute in process (${runs} runs each)`, rows);
console.log(
  `\nThroughput back to back on one sandbox (one core)\n| program | runs/s |\n| --- | --- |\n${rates.join('\n')}`,
);
console.log(
  `\nBundling date-fns and zod took ${bundleMs.toFixed(0)} ms; their scripts hold ${bundle.packages.map((pkg) => `${pkg.name} ${(pkg.source.length / 1024).toFixed(0)} KB`).join(', ')}.`,
);
