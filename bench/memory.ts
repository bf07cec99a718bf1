/**
 * Memory benchmark: what a pool child holds, at rest and after work. Started by `tools/run bench`.
 *
 *   RSS per child, fresh      started, nothing run yet, after 1 s idle
 *   RSS per child at rest     after a warm-up of mixed executions and 6 s idle (past the eraser's
 *                             idle timeout), read from /proc; read again 8 s later, once V8 has
 *                             released the heap pages of the eraser's ended thread (below)
 *   growth over 1000 mixed    the children's resident memory after 1000 more mixed executions and
 *                             the same full rest, against the same children's at rest (the warm-up
 *                             excluded)
 *
 * The mix: a trivial program, tool calls, the Web runtime (URL, TextEncoder, a Response body,
 * JSON), console output, a thrown error, a program with TypeScript types (the eraser's path), a
 * larger allocation, and a timeout. Retirement by count is set out of reach, so the figure is one
 * child's growth, not a fresh child's; a child that was replaced anyway is reported.
 * BENCH_MEMORY_RUNS changes the 1000. The executor is imported from dist/, as users load it: a pool
 * loaded from the sources forks its children on the .ts entry, which Node strips of types at load
 * at a cost of tens of MB per child that no user pays.
 */
import { availableParallelism } from 'node:os';
import { IsolateExecutor } from '../packages/executor/dist/index.js';
import { WORKER_IDLE_TIMEOUT } from '../packages/executor/dist/sandbox/threads/deadline-worker.js';
import { processRss, record, single } from './stats.ts';

const runs = Number(process.env.BENCH_MEMORY_RUNS ?? 1000);
const warmup = 200;
const cores = availableParallelism();
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
// At rest is past the type eraser's idle timeout: its thread (about 25 MB) ends then (docs/pool.md, "Memory").
const rest = WORKER_IDLE_TIMEOUT + 1000;
// V8 (13.6, Node 24) keeps the heap pages of an isolate that ended, the eraser thread's among them, in
// a pool for other isolates to reuse, and frees them 8 s later (src/heap/page-pool.cc): full rest.
const V8_PAGE_POOL_DELAY = 8000;
const tools = [{ name: 'tools', fns: { echo: (value: number) => value } }];

const MIX: readonly { code: string; timeout?: number }[] = [
  { code: 'async () => 1' },
  {
    code: 'async () => { let sum = 0; for (let i = 0; i < 10; i++) sum += await tools.echo(i); return sum }',
  },
  {
    code: `async () => {
      const url = new URL('https://example.com/a/b?c=d#e');
      const bytes = new TextEncoder().encode(url.href + 'é');
      const body = await new Response(bytes).text();
      return JSON.parse(JSON.stringify({ body, search: url.searchParams.get('c') }));
    }`,
  },
  { code: 'async () => { for (let i = 0; i < 20; i++) console.log("line", i, { i }); return "logged" }' },
  { code: 'async () => { throw new TypeError("thrown on purpose") }' },
  { code: 'async (): Promise<number> => { const n: number = 41; return n + 1 }' },
  {
    code: 'async () => { const parts = []; for (let i = 0; i < 2000; i++) parts.push("x".repeat(1000) + i); return parts.length }',
  },
  { code: 'async () => { await new Promise(() => {}) }', timeout: 50 },
];

const executor = new IsolateExecutor({ maxExecutionsPerChild: 1_000_000 });
await executor.engine();
// What the runs ended in, so a mix that silently failed shows in the table.
const outcomes = new Map<string, number>();
const run = async (count: number) => {
  let next = 0;
  // As many callers as children, so every child serves its share of the mix.
  await Promise.all(
    Array.from({ length: cores }, async () => {
      while (next < count) {
        const program = MIX[next++ % MIX.length] as (typeof MIX)[number];
        const envelope = await executor.execute({ ...program, providers: tools });
        const outcome = envelope.code ?? (envelope.error === undefined ? 'result' : 'error');
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      }
    }),
  );
};
const children = () => executor.stats().children.map((child) => child.pid);
const rss = (pids: readonly number[]) => pids.map(processRss);
const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

// Fresh: started, engine probed, nothing run yet.
await pause(1000);
const fresh = rss(children());
await run(warmup);
await pause(rest);
const restPids = children();
const atRestEarly = rss(restPids);
await pause(V8_PAGE_POOL_DELAY);
const atRest = rss(restPids);
await run(runs);
await pause(rest + V8_PAGE_POOL_DELAY);
const afterPids = children();
const after = rss(afterPids);
await executor.dispose();

const replaced = restPids.filter((pid) => !afterPids.includes(pid)).length;
// The bound holds for every child, so the largest is the figure; Math.max is NaN if any reading is.
const restLargest = Math.max(...atRest);
const restEarlyLargest = Math.max(...atRestEarly);
const growth = sum(after) / sum(atRest) - 1;
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
console.log(`\nMemory of the pool's children (Node ${process.version}, pool of ${cores})`);
console.log('| measurement | value |\n| --- | --- |');
console.log(`| RSS per child at rest, fresh (nothing run) | ${fresh.map(mb).join(', ')} |`);
console.log(
  `| RSS per child at rest, after ${warmup} mixed executions, ${rest / 1000} s idle | ${atRestEarly.map(mb).join(', ')} |`,
);
console.log(
  `| the same, ${(rest + V8_PAGE_POOL_DELAY) / 1000} s idle (V8 freed the eraser thread's pages) | ${atRest.map(mb).join(', ')} |`,
);
console.log(`| RSS per child after ${runs} more mixed executions | ${after.map(mb).join(', ')} |`);
console.log(`| growth, all children | ${(growth * 100).toFixed(1)}% |`);
console.log(
  `| outcomes, warm-up included | ${[...outcomes].map(([code, count]) => `${code} ${count}`).join(', ')} |`,
);
if (replaced > 0)
  console.log(`| children replaced during the runs (the growth is not one child's) | ${replaced} |`);
record(
  'memory.restRssEarly',
  single(`RSS per child at rest, ${rest / 1000} s idle (the largest child)`, restEarlyLargest, atRest.length),
  'bytes',
);
record(
  'memory.restRss',
  single('RSS per child at rest (the largest child)', restLargest, atRest.length),
  'bytes',
);
record(
  'memory.growth',
  single(`growth over ${runs} mixed executions, from after warm-up`, growth, runs),
  'ratio',
);
