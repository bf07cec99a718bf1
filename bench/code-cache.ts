/**
 * Whether the code cache pays (docs/pool.md, "Memory"): Sandbox.execute in process, with the
 * default BoundedCodeCache against a cache that keeps nothing, alternated round by round so both
 * sides meet the same load. Two programs: one importing acorn (230 KB of source, the size of a
 * library a program might bring) and a model-written one of a few lines. Started by
 * `tools/run bench`; prints one table and records nothing.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { BoundedCodeCache, type CodeCache } from '../packages/executor/src/sandbox/code-cache.ts';
import { Sandbox } from '../packages/executor/src/sandbox/index.ts';
import { printTable, summarize } from './stats.ts';

const rounds = Number(process.env.BENCH_ITERATIONS ?? 200) / 4;
const requireHere = createRequire(new URL('../packages/executor/package.json', import.meta.url));
const acorn = readFileSync(requireHere.resolve('acorn').replace(/acorn\.js$/, 'acorn.mjs'), 'utf8');

const library = {
  modules: { 'acorn.js': acorn },
  code: `import { parse } from './acorn.js'
async () => parse('const answer = 6 * 7', { ecmaVersion: 2022 }).body.length`,
};
const small = {
  code: `async () => {
    const words = ['code', 'mode', 'cache'];
    return words.map((word) => word.toUpperCase()).join(' ');
  }`,
};

const keepsNothing: CodeCache = { get: () => undefined, set: () => undefined };
const cached = new BoundedCodeCache();
const sides = [
  { label: 'with the code cache', sandbox: new Sandbox({ codeCache: cached }) },
  { label: 'without (a cache that keeps nothing)', sandbox: new Sandbox({ codeCache: keepsNothing }) },
];
const samples = new Map(
  sides.map(({ label }) => [label, { library: [] as number[], small: [] as number[] }]),
);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (let round = 0; round < rounds; round++) {
  for (const { label, sandbox } of sides) {
    for (const [name, program] of [
      ['library', library],
      ['small', small],
    ] as const) {
      // Paced, so each run finds its isolate prepared and only the compile differs.
      await pause(15);
      const started = performance.now();
      const envelope = await sandbox.execute(program);
      const elapsed = performance.now() - started;
      if (envelope.error !== undefined) throw new Error(`${name}: ${envelope.error}`);
      samples.get(label)?.[name].push(elapsed);
    }
  }
}
for (const { sandbox } of sides) sandbox.dispose();

const [withCache, without] = sides.map(({ label }) => {
  const of = samples.get(label) as { library: number[]; small: number[] };
  return {
    library: summarize(`${label}: a program importing acorn (230 KB)`, of.library),
    small: summarize(`${label}: a small program`, of.small),
  };
}) as [{ library: ReturnType<typeof summarize>; small: ReturnType<typeof summarize> }, typeof withCache];
printTable(`Code cache, Sandbox.execute in process (${rounds} alternated rounds)`, [
  { summary: without.library },
  { summary: withCache.library, baseline: without.library },
  { summary: without.small },
  { summary: withCache.small, baseline: without.small },
]);
console.log(`\nThe cache after the runs: ${cached.size} blobs, ${(cached.bytes / 1024).toFixed(1)} KB`);
