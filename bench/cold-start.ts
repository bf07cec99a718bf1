/**
 * Cold start (issue 28): how long each door takes from a process's spawn to its first answer, each
 * row a whole process timed BENCH_COLD_RUNS times (default 7), the rows taken in turn round by round
 * so a machine whose load drifts disturbs them alike, with the floors beside them in the same run.
 * Started by `tools/run bench`.
 *
 *   node -e 1                     the floor of any Node process, spawn to exit
 *   node --no-node-snapshot -e 1  the same without Node's own startup snapshot, as a child runs
 *   child floor                   a process with the pool children's flags that loads isolated-vm and
 *                                 makes one isolate (context, 1 + 1): what no pool child can beat
 *   engine ready                  `new IsolateExecutor()` with its default pool to the answer of its first
 *                                 execution (bench/cold-start-engine.mjs): spawn to the answer, and in
 *                                 process from the construction
 *   run                           `codemode-executor run` of a file holding `async () => 1 + 1`, spawn to exit
 *   child replacement             in this process, a pool of one child retired after every execution:
 *                                 from the replacement's spawn to the answer of the execution waiting for it
 *   serve                         `codemode-server --port 0`, spawn to GET /healthz answering ok
 *   mcp                           `codemode-mcp` with one stdio upstream (@modelcontextprotocol/server-memory),
 *                                 spawn to its first tools/list answer; beside it the upstream's own
 *
 * CPU is the process tree's (the process and every child it waited for), read from this process's
 * cutime and cstime in /proc/self/stat, in clock ticks; it is given for the rows timed to the exit.
 *
 * Then a pool child's start phase by phase (bench/cold-start-phases.mjs), and a pool child at rest:
 * its resident memory against the child floor at rest, and the modules it has loaded, by package
 * (bench/module-census.mjs).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { DEFAULT_CHILD_EXEC_ARGV } from '../packages/executor/dist/executor/defaults.js';
import { IsolateExecutor } from '../packages/executor/dist/index.js';
import { childEnvironment } from '../packages/executor/dist/pool/child-handle.js';
import { processRss, record, summarize } from './stats.ts';

const runs = Number(process.env.BENCH_COLD_RUNS ?? 7);
const root = new URL('..', import.meta.url);
const executorDist = new URL('packages/executor/dist/', root);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const scratch = mkdtempSync(join(tmpdir(), 'codemode-bench-cold-'));
const CHILD_FLAGS = DEFAULT_CHILD_EXEC_ARGV;
/** isolated-vm resolves from the executor package, whose dependency it is. */
const executorDir = new URL('packages/executor/', root).pathname;

// The MCP SDK and the memory server are the mcp package's (dev) dependencies.
const mcpRequire = createRequire(new URL('packages/mcp/package.json', root));
const { Client } = (await import(
  mcpRequire.resolve('@modelcontextprotocol/sdk/client/index.js')
)) as typeof import('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = (await import(
  mcpRequire.resolve('@modelcontextprotocol/sdk/client/stdio.js')
)) as typeof import('@modelcontextprotocol/sdk/client/stdio.js');
const memoryServer = mcpRequire
  .resolve('@modelcontextprotocol/server-memory/package.json')
  .replace(/package\.json$/, 'dist/index.js');

/** CPU of this process's waited-for children so far (utime + stime of the reaped), in ms. */
function childrenCpu(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
  // After the command's ')': state is field 3, so cutime (16) and cstime (17) are at 13 and 14.
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
}

interface Sample {
  readonly wall: number;
  readonly cpu?: number;
  readonly extra?: Record<string, number>;
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** A process spawned and timed to its exit, which must be 0; CPU of its whole tree. */
async function toExit(command: readonly string[], cwd?: string): Promise<Sample> {
  const cpuBefore = childrenCpu();
  const started = performance.now();
  const child = spawn(process.execPath, command, { stdio: ['ignore', 'ignore', 'pipe'], cwd });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk;
  });
  const code = await exited(child);
  const wall = performance.now() - started;
  if (code !== 0) throw new Error(`${command.join(' ')} exited ${code}: ${stderr}`);
  return { wall, cpu: childrenCpu() - cpuBefore };
}

/** The first line `child` prints on stdout. */
function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.once('line', (line) => {
      lines.close();
      resolve(line);
    });
    child.once('exit', (code) => reject(new Error(`exited ${code} before its first line`)));
  });
}

async function engineReady(): Promise<Sample> {
  const cpuBefore = childrenCpu();
  const started = performance.now();
  const child = spawn(process.execPath, [new URL('cold-start-engine.mjs', import.meta.url).pathname], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await firstLine(child);
  const wall = performance.now() - started;
  const answer = JSON.parse(line) as { ready: number; result: unknown };
  if (answer.result !== 2) throw new Error(`engine ready answered ${line}`);
  if ((await exited(child)) !== 0) throw new Error('the engine-ready process failed');
  return { wall, cpu: childrenCpu() - cpuBefore, extra: { inProcess: answer.ready } };
}

const programFile = join(scratch, 'one-plus-one.js');
writeFileSync(programFile, 'async () => 1 + 1\n');
const runBin = new URL('packages/executor/bin/codemode-executor.js', root).pathname;

async function runCommand(): Promise<Sample> {
  return toExit([runBin, 'run', programFile]);
}

const serveBin = new URL('packages/server/bin/codemode-server.js', root).pathname;

async function serve(): Promise<Sample> {
  const started = performance.now();
  const child = spawn(process.execPath, [serveBin, '--port', '0', '--log-level', 'silent'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await firstLine(child);
  const url = /serving on (\S+)/.exec(line)?.[1];
  if (url === undefined) throw new Error(`serve printed ${line}`);
  const healthz = new URL('/healthz', url.replace(/^ws/, 'http'));
  let status = '';
  while (status !== 'ok') {
    const response = await fetch(healthz);
    status = ((await response.json()) as { status: string }).status;
  }
  const wall = performance.now() - started;
  child.kill('SIGTERM');
  await exited(child);
  return { wall };
}

const mcpBin = new URL('packages/mcp/bin/codemode-mcp.js', root).pathname;
const mcpConfig = join(scratch, 'mcp.json');
const memoryEnv = { MEMORY_FILE_PATH: join(scratch, 'memory.jsonl') };
writeFileSync(
  mcpConfig,
  JSON.stringify({
    mcpServers: { memory: { command: process.execPath, args: [memoryServer], env: memoryEnv } },
  }),
);

/** Spawn (the client's connect) to the first tools/list answer; `expected` a tool it must list. */
async function firstToolsList(
  args: string[],
  expected: string,
  env?: Record<string, string>,
): Promise<Sample> {
  const started = performance.now();
  const client = new Client({ name: 'codemode-bench', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args,
      stderr: 'ignore',
      ...(env ? { env: { ...(process.env as Record<string, string>), ...env } } : {}),
    }),
  );
  const { tools } = await client.listTools();
  const wall = performance.now() - started;
  if (!tools.some((tool) => tool.name === expected)) throw new Error(`tools/list named no ${expected}`);
  await client.close();
  return { wall };
}

/**
 * Replacements in one pool: one child, retired after every execution. Each sample runs one
 * execution right after the previous answer; it waits for the replacement, spawned as that answer
 * came, and the sample is the time from that spawn to its answer. Also the replacement's spawn to
 * its first healthy heartbeat, and the same two for the pool's first child.
 */
async function replacements(count: number): Promise<{ first: Sample; replaced: Sample[] }> {
  const spawnedAt = new Map<number, number>();
  const healthyAfter = new Map<number, number>();
  const executor = new IsolateExecutor({
    poolSize: 1,
    maxExecutionsPerChild: 1,
    onPoolEvent: (event) => {
      if (event.type === 'spawned') spawnedAt.set(event.pid, performance.now());
      if (event.type === 'healthy')
        healthyAfter.set(event.pid, performance.now() - (spawnedAt.get(event.pid) ?? 0));
    },
  });
  const one = async (): Promise<Sample> => {
    const pid = executor.stats().children.find((child) => child.state !== 'retiring')?.pid ?? -1;
    const answer = await executor.execute({ code: 'async () => 1 + 1' });
    if (answer.result !== 2) throw new Error(`a replacement answered ${JSON.stringify(answer)}`);
    const wall = performance.now() - (spawnedAt.get(pid) ?? Number.NaN);
    return { wall, extra: { healthy: healthyAfter.get(pid) ?? Number.NaN } };
  };
  const first = await one();
  const replaced: Sample[] = [];
  for (let index = 0; index < count; index++) replaced.push(await one());
  await executor.dispose();
  return { first, replaced };
}

const CHILD_FLOOR_SOURCE = [
  "import ivm from 'isolated-vm';",
  'const isolate = new ivm.Isolate({ memoryLimit: 8 });',
  "if (isolate.createContextSync().evalSync('1 + 1') !== 2) process.exit(1);",
].join(' ');

const ROWS = {
  'node -e 1': () => toExit(['-e', '1']),
  'node --no-node-snapshot -e 1': () => toExit(['--no-node-snapshot', '-e', '1']),
  'child floor: isolated-vm + one isolate': () =>
    toExit([...CHILD_FLAGS, '--input-type=module', '-e', CHILD_FLOOR_SOURCE], executorDir),
  'engine ready: IsolateExecutor, default pool, to the first answer': engineReady,
  'codemode-executor run of async () => 1 + 1': runCommand,
  'serve: spawn to /healthz ok': serve,
  'upstream alone: server-memory, spawn to tools/list': () =>
    firstToolsList([memoryServer], 'read_graph', memoryEnv),
  'mcp: codemode-mcp with server-memory, spawn to tools/list': () =>
    firstToolsList([mcpBin, '--config', mcpConfig], 'execute'),
} as const;
type RowName = keyof typeof ROWS;

const samples = new Map<RowName, Sample[]>(Object.keys(ROWS).map((name) => [name as RowName, []]));
const loadBefore = loadavg();
// One round first, unrecorded: the disk cache and the JIT of this process warm for every row alike.
for (const run of Object.values(ROWS)) await run();
for (let round = 0; round < runs; round++) {
  for (const [name, run] of Object.entries(ROWS) as [RowName, () => Promise<Sample>][]) {
    samples.get(name)?.push(await run());
  }
}
const { first, replaced } = await replacements(runs);

/** The value at quantile q of the samples (nearest rank). */
function quantile(values: readonly number[], q: number): number {
  const sorted = values.filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}
const median = (values: readonly number[]) => quantile(values, 0.5);
const ms = (value: number) => (Number.isNaN(value) ? '—' : `${value.toFixed(0)} ms`);

const floors = {
  node: median(samples.get('node -e 1')?.map((sample) => sample.wall) ?? []),
  noSnapshot: median(samples.get('node --no-node-snapshot -e 1')?.map((sample) => sample.wall) ?? []),
  child: median(samples.get('child floor: isolated-vm + one isolate')?.map((sample) => sample.wall) ?? []),
  upstream: median(
    samples.get('upstream alone: server-memory, spawn to tools/list')?.map((sample) => sample.wall) ?? [],
  ),
};

interface TableRow {
  readonly name: string;
  readonly walls: readonly number[];
  readonly cpus?: readonly number[];
  readonly against: string;
  readonly key: string;
}

const table: TableRow[] = [];
for (const [name, rowSamples] of samples) {
  const key = name.split(':')[0]?.replace(/[^a-z0-9]+/gi, '-') ?? name;
  const against = name.startsWith('mcp')
    ? 'upstream'
    : name.startsWith('node')
      ? 'node'
      : name.startsWith('child floor')
        ? 'noSnapshot'
        : 'child';
  table.push({
    name,
    walls: rowSamples.map((sample) => sample.wall),
    ...(rowSamples.some((sample) => sample.cpu !== undefined)
      ? { cpus: rowSamples.map((sample) => sample.cpu ?? Number.NaN) }
      : {}),
    against,
    key,
  });
  if (name.startsWith('engine ready')) {
    table.push({
      name: 'engine ready, in process: construction to the first answer',
      walls: rowSamples.map((sample) => sample.extra?.inProcess ?? Number.NaN),
      against: 'child',
      key: 'engine-ready-in-process',
    });
  }
}
table.push({
  name: "pool's first child: spawn to its execution's answer (in process)",
  walls: [first.wall],
  against: 'child',
  key: 'first-child',
});
table.push({
  name: "pool's first child: spawn to healthy",
  walls: [first.extra?.healthy ?? Number.NaN],
  against: 'child',
  key: 'first-child-healthy',
});
table.push({
  name: 'child replacement: spawn to the answer of the execution waiting for it',
  walls: replaced.map((sample) => sample.wall),
  against: 'child',
  key: 'replacement',
});
table.push({
  name: 'child replacement: spawn to healthy',
  walls: replaced.map((sample) => sample.extra?.healthy ?? Number.NaN),
  against: 'child',
  key: 'replacement-healthy',
});

const floorLabel: Record<string, string> = {
  node: 'node -e 1',
  noSnapshot: 'node --no-node-snapshot -e 1',
  child: 'child floor',
  upstream: 'server-memory alone',
};
console.log(
  `\nCold start, whole processes (Node ${process.version}, ${runs} runs a row, load average ${loadBefore.map((value) => value.toFixed(1)).join(' ')} before and ${loadavg()
    .map((value) => value.toFixed(1))
    .join(' ')} after)`,
);
console.log('| measurement | median | p90 | CPU median (tree) | runs | against | ratio | difference |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const row of table) {
  const value = median(row.walls);
  const floor = floors[row.against as keyof typeof floors];
  const isFloor = value === floor;
  console.log(
    `| ${row.name} | ${ms(value)} | ${ms(quantile(row.walls, 0.9))} | ${row.cpus ? ms(median(row.cpus)) : '—'} | ${row.walls.length} | ${isFloor ? '—' : floorLabel[row.against]} | ${isFloor ? '—' : `${(value / floor).toFixed(2)}x`} | ${isFloor ? '—' : `+${ms(value - floor)}`} |`,
  );
  record(
    `coldStart.${row.key}`,
    summarize(
      row.name,
      row.walls.filter((wall) => !Number.isNaN(wall)),
    ),
  );
}

// A pool child's start, phase by phase.
const lexer = await import(
  createRequire(new URL('packages/protocol/package.json', root)).resolve('es-module-lexer')
);
await lexer.init;
/** The modules a file of the child imports statically, as URLs. */
function importsOf(file: URL): string[] {
  const [imports] = lexer.parse(readFileSync(file, 'utf8'));
  return (imports as { type: string; specifier?: string }[])
    .filter((entry) => entry.type === 'static' && entry.specifier !== undefined)
    .map(({ specifier }) => {
      const name = specifier as string;
      if (name.startsWith('.')) return new URL(name, file).href;
      if (name.startsWith('node:')) return name;
      return pathToFileURL(createRequire(file).resolve(name)).href;
    });
}
const childDir = new URL('pool/child/', executorDist);
const childModules = [
  ...importsOf(new URL('child-start.js', childDir)),
  ...importsOf(new URL('child-entry.js', childDir)),
];
if (childModules.length === 0) throw new Error('no imports read from child-start.js and child-entry.js');
const phaseRuns: Record<string, number>[] = [];
for (let index = 0; index < runs; index++) {
  const child = spawn(
    process.execPath,
    [
      ...CHILD_FLAGS,
      new URL('cold-start-phases.mjs', import.meta.url).pathname,
      JSON.stringify(childModules),
      executorDist.href,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], cwd: executorDir, env: childEnvironment(process.env) },
  );
  phaseRuns.push(JSON.parse(await firstLine(child)) as Record<string, number>);
  await exited(child);
}
const snapshotBytes = phaseRuns[0]?.snapshotBytes ?? Number.NaN;
console.log(
  `\nA pool child's start, phase by phase (bench/cold-start-phases.mjs, ${runs} processes; the runtime snapshot is ${(snapshotBytes / 2 ** 20).toFixed(2)} MB)`,
);
console.log('| phase | median | p90 |');
console.log('| --- | --- | --- |');
for (const phase of Object.keys(phaseRuns[0] ?? {}).filter((name) => name !== 'snapshotBytes')) {
  const values = phaseRuns.map((run) => run[phase] ?? Number.NaN);
  const label = phase === 'node' ? 'Node start to the first line of the script' : phase;
  console.log(
    `| ${label} | ${values.map((value) => value).length ? ms(median(values)) : '—'} | ${ms(quantile(values, 0.9))} |`,
  );
  record(`coldStart.phase.${phase.replace(/[^a-z0-9]+/gi, '-')}`, summarize(label, values));
}

// A child at rest: its resident memory against the child floor at rest, and what it has loaded.
const MB = 2 ** 20;
const floorAtRest: number[] = [];
for (let index = 0; index < 3; index++) {
  const child = spawn(
    process.execPath,
    [...CHILD_FLAGS, '--input-type=module', '-e', `${CHILD_FLOOR_SOURCE} setInterval(() => {}, 1000);`],
    { stdio: 'ignore', cwd: executorDir, env: childEnvironment(process.env) },
  );
  await pause(1500);
  floorAtRest.push(processRss(child.pid ?? -1));
  child.kill();
  await exited(child);
}
process.env.BENCH_PROBE_DIR = scratch;
const atRest = new IsolateExecutor({ poolSize: 1 });
await atRest.engine();
await pause(2500);
const restingPid = atRest.stats().children[0]?.pid ?? -1;
const childAtRest = processRss(restingPid);
await atRest.execute({ code: 'async () => 1 + 1' });
await pause(2500);
const childAfterOne = processRss(restingPid);
await atRest.dispose();
const census = new IsolateExecutor({
  poolSize: 1,
  childExecArgv: [...CHILD_FLAGS, '--import', new URL('module-census.mjs', import.meta.url).pathname],
});
await census.engine();
await census.execute({ code: 'async () => 1 + 1' });
await pause(1500);
const censusPid = census.stats().children[0]?.pid ?? -1;
process.kill(censusPid, 'SIGUSR2');
await pause(300);
const loaded = JSON.parse(readFileSync(join(scratch, `${censusPid}-modules.json`), 'utf8')) as string[];
await census.dispose();

console.log(`\nA pool child at rest against the child floor at rest (MB, resident)`);
console.log('| process | resident | above the floor |');
console.log('| --- | --- | --- |');
const floorRss = median(floorAtRest);
for (const [label, rss] of [
  ['child floor: isolated-vm + one isolate, idle', floorRss],
  ['pool child, healthy, its first isolate prepared', childAtRest],
  ['pool child, after one execution', childAfterOne],
] as const) {
  console.log(
    `| ${label} | ${(rss / MB).toFixed(1)} | ${rss === floorRss ? '—' : `+${((rss - floorRss) / MB).toFixed(1)}`} |`,
  );
}
record('coldStart.childFloorRss', summarize('child floor at rest', floorAtRest), 'bytes');
record('coldStart.childRss', summarize('pool child at rest', [childAtRest]), 'bytes');

/** Which package (or Node's own, or this project's) a loaded module's URL belongs to. */
function packageOf(url: string): string {
  if (url.startsWith('node:')) return 'node: built-ins';
  const inModules = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (inModules?.[1]) return inModules[1];
  const own = /packages\/([^/]+)\//.exec(url);
  return own?.[1] ? `@supolka/codemode-${own[1]}` : url;
}
const byPackage = new Map<string, number>();
for (const url of loaded) byPackage.set(packageOf(url), (byPackage.get(packageOf(url)) ?? 0) + 1);
console.log(`\nModules a pool child has loaded after one execution, by package (${loaded.length} in all)`);
console.log('| package | modules |');
console.log('| --- | --- |');
for (const [name, count] of [...byPackage].sort((a, b) => b[1] - a[1])) console.log(`| ${name} | ${count} |`);

rmSync(scratch, { recursive: true, force: true });
