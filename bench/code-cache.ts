/**
 * What the code cache costs where the engine ignores a module's cache (isolated-vm 6.2.0; the
 * moduleCodeCache probe, docs/pool.md "Memory"): Sandbox.execute in process on the fallback, which
 * compiles from source and makes nothing, against the cache path, which hashes each source, has V8
 * make a blob, keeps it and offers it to the next compile (forced on with an engine report that
 * claims the behaviour), alternated round by round so both sides meet the same load. Two programs:
 * one importing acorn (230 KB of source, the size of a library a program might bring) and a
 * model-written one of a few lines. Started by `tools/run bench`; prints one table and records nothing.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { assertEngineServesSandbox, Sandbox } from '../packages/executor/src/sandbox/index.ts';
import { BoundedCodeCache } from '../packages/executor/src/sandbox/modules/code-cache.ts';
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

const engine = await assertEngineServesSandbox();
const claimed = { ...engine, behaviours: { ...engine.behaviours, moduleCodeCache: { present: true } } };
const cached = new BoundedCodeCache();
const sides = [
  { label: 'the cache path', sandbox: new Sandbox({ engine: claimed, codeCache: cached }) },
  {
    label: `this engine (module cache ${engine.behaviours.moduleCodeCache.present ? 'read' : 'ignored, none made'})`,
    sandbox: new Sandbox({ engine }),
  },
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

const [cachePath, thisEngine] = sides.map(({ label }) => {
  const of = samples.get(label) as { library: number[]; small: number[] };
  return {
    library: summarize(`${label}: a program importing acorn (230 KB)`, of.library),
    small: summarize(`${label}: a small program`, of.small),
  };
}) as [{ library: ReturnType<typeof summarize>; small: ReturnType<typeof summarize> }, typeof cachePath];
printTable(`Code cache, Sandbox.execute in process (${rounds} alternated rounds)`, [
  { summary: thisEngine.library },
  { summary: cachePath.library, baseline: thisEngine.library },
  { summary: thisEngine.small },
  { summary: cachePath.small, baseline: thisEngine.small },
]);
console.log(`\nThe cache after the runs: ${cached.size} blobs, ${(cached.bytes / 1024).toFixed(1)} KB`);
