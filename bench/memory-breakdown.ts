/**
 * Where a pool child's resident memory goes at rest (docs/pool.md, "Memory", reads its tables).
 * Started by `tools/run bench`; prints one table and records nothing.
 *
 *   module rows   a Node process with the children's flags and environment that only imports the
 *                 named module and idles: what loading that code costs over a bare one
 *   child rows    one pool child of the built package, at rest (6.5 s idle: past the type
 *                 eraser's idle timeout) after each phase: fresh, 200 trivial executions, 30
 *                 TypeScript programs (the eraser's thread started and ended), 400 mixed ones
 *
 * Each row reads /proc/<pid>/smaps: resident total, its anonymous part, the node binary's pages,
 * glibc's main malloc arena ([heap]), and for the child rows the child's own V8 heap (total and
 * new space) through bench/memory-probe.mjs, loaded with `--import`. The median of three readings
 * for the module rows. BENCH_CHILD_FLAGS (space-separated) adds flags to every process, to compare.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CHILD_EXEC_ARGV } from '../packages/executor/dist/executor/defaults.js';
import { IsolateExecutor } from '../packages/executor/dist/index.js';
import { childEnvironment } from '../packages/executor/dist/pool/child-spawn.js';
import { WORKER_IDLE_TIMEOUT } from '../packages/executor/dist/sandbox/threads/deadline-worker.js';

const MB = 2 ** 20;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const extraFlags = (process.env.BENCH_CHILD_FLAGS ?? '').split(' ').filter(Boolean);
const flags = [...DEFAULT_CHILD_EXEC_ARGV, ...extraFlags];
const root = new URL('..', import.meta.url);
const probeDir = mkdtempSync(join(tmpdir(), 'codemode-memory-probe-'));

interface Reading {
  readonly rss: number;
  readonly anonymous: number;
  readonly binary: number;
  readonly mallocMain: number;
  heapTotal?: number;
  newSpace?: number;
}

/** Sums /proc/<pid>/smaps by kind of mapping, in bytes. */
function readSmaps(pid: number): Reading {
  let rss = 0;
  let anonymous = 0;
  let binary = 0;
  let mallocMain = 0;
  let name = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const mapping = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (mapping) {
      name = mapping[1] ?? '';
      continue;
    }
    const field = /^(Rss|Anonymous):\s+(\d+) kB/.exec(line);
    if (field === null) continue;
    const bytes = Number(field[2]) * 1024;
    if (field[1] === 'Anonymous') anonymous += bytes;
    else {
      rss += bytes;
      if (name === process.execPath) binary += bytes;
      if (name === '[heap]') mallocMain += bytes;
    }
  }
  return { rss, anonymous, binary, mallocMain };
}

/** A process that imports `module` (nothing when undefined) and idles; its reading after 800 ms. */
async function moduleRow(module: string | undefined): Promise<Reading> {
  const readings: Reading[] = [];
  for (let index = 0; index < 3; index++) {
    const child = spawn(
      process.execPath,
      [...flags, ...(module ? ['--import', module] : []), '-e', 'setInterval(() => {}, 1000)'],
      { stdio: 'ignore', cwd: new URL('packages/protocol/', root), env: childEnvironment(process.env) },
    );
    await pause(800);
    readings.push(readSmaps(child.pid ?? -1));
    child.kill();
  }
  return readings.sort((a, b) => a.rss - b.rss)[1] as Reading;
}

const rows: [string, Reading][] = [];
rows.push(['bare Node child', await moduleRow(undefined)]);
rows.push(['+ isolated-vm', await moduleRow('isolated-vm')]);
rows.push(['+ zod', await moduleRow('zod')]);
rows.push(['+ the protocol package (zod, es-module-lexer)', await moduleRow('./dist/index.js')]);
rows.push(['+ the sandbox modules', await moduleRow('../executor/dist/sandbox/index.js')]);

const tools = [{ name: 'tools', fns: { echo: (value: number) => value } }];
const MIX: readonly { code: string; timeout?: number }[] = [
  { code: 'async () => 1' },
  {
    code: 'async () => { let sum = 0; for (let i = 0; i < 10; i++) sum += await tools.echo(i); return sum }',
  },
  {
    code: `async () => {
      const url = new URL('https://example.com/a/b?c=d#e');
      const body = await new Response(new TextEncoder().encode(url.href + 'é')).text();
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

process.env.BENCH_PROBE_DIR = probeDir;
const executor = new IsolateExecutor({
  poolSize: 1,
  maxExecutionsPerChild: 1_000_000,
  childExecArgv: [...flags, '--import', new URL('memory-probe.mjs', import.meta.url).pathname],
});
await executor.engine();
const pid = executor.stats().children[0]?.pid ?? -1;
const atRest = async (): Promise<Reading> => {
  await pause(WORKER_IDLE_TIMEOUT + 1500);
  process.kill(pid, 'SIGUSR2');
  await pause(300);
  const heap = JSON.parse(readFileSync(join(probeDir, `${pid}.json`), 'utf8'));
  return { ...readSmaps(pid), heapTotal: heap.heapTotal, newSpace: heap.newSpace };
};
rows.push(['pool child, fresh', await atRest()]);
for (let index = 0; index < 200; index++) await executor.execute({ code: 'async () => 1' });
rows.push(['pool child, after 200 trivial', await atRest()]);
for (let index = 0; index < 30; index++) await executor.execute({ ...(MIX[5] as (typeof MIX)[number]) });
rows.push(['pool child, after 30 TypeScript programs too', await atRest()]);
for (let index = 0; index < 400; index++) {
  await executor.execute({ ...(MIX[index % MIX.length] as (typeof MIX)[number]), providers: tools });
}
rows.push(['pool child, after 400 mixed too', await atRest()]);
if (executor.stats().children[0]?.pid !== pid) console.log('(the child was replaced during the runs)');
await executor.dispose();
rmSync(probeDir, { recursive: true, force: true });

const mb = (bytes: number | undefined) => (bytes === undefined ? '' : (bytes / MB).toFixed(1));
console.log(`\nWhere a pool child's memory goes, MB (Node ${process.version}, flags ${flags.join(' ')})`);
console.log(
  '| process | resident | anonymous | node binary | malloc main arena | V8 heap (own) | of it new space |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const [label, reading] of rows) {
  console.log(
    `| ${label} | ${mb(reading.rss)} | ${mb(reading.anonymous)} | ${mb(reading.binary)} | ${mb(reading.mallocMain)} | ${mb(reading.heapTotal)} | ${mb(reading.newSpace)} |`,
  );
}
