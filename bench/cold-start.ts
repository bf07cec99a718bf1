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
 *   Worker Loader ready           workerd with a Worker Loader host (bench/workerd-host.ts), spawn to the
 *                                 answer of its first loaded Worker: the peer engine ready's target names;
 *                                 alone, and from a Node process that starts it (bench/cold-start-workerd.mjs)
 *   engine ready                  `new IsolateExecutor()` with its default pool to the answer of its first
 *                                 execution (bench/cold-start-engine.mjs): spawn to the answer, and in
 *                                 process from the construction
 *   run                           `codemode-executor run` of a file holding `async () => 1 + 1`, spawn to exit;
 *                                 beside it the peer issue 28 names, the npm package `run` (QuickJS), a
 *                                 process that imports it and runs `return 1 + 1`
 *   serve                         `codemode-server --port 0`, spawn to GET /healthz answering ok
 *   mcp                           `codemode-mcp` with one stdio upstream (@modelcontextprotocol/server-memory),
 *                                 spawn to its first tools/list answer; beside it the upstream's own
 *   import                        a process importing a door's modules (the main entry, the server's and the
 *                                 bridge's commands), spawn to exit: the breakdown of the rows above
 *   first child, replacement      in this process, a pool of one child retired after two executions:
 *                                 the execution after them waits for the replacement spawned as the
 *                                 second answer came; from its spawn to that answer, and to its first
 *                                 healthy heartbeat (replacements())
 *
 * CPU is the process tree's (the process and every child it waited for), read from this process's
 * cutime and cstime in /proc/self/stat, in clock ticks; it is given for the rows timed to the exit.
 * For the first child and the replacement it is that child's own (/proc/<pid>/stat) at its healthy
 * event and at its answer: on a loaded machine the steadier figure of what its start costs.
 *
 * Then a pool child's start phase by phase (bench/cold-start-phases.mjs; its import phase loads the
 * modules one by one, as a child started from source does, not the bundle a child of the build
 * loads, which the rows above measure), and a pool child at rest:
 * its resident memory against the child floor at rest, and the modules it has loaded, by package
 * (bench/module-census.mjs).
 *
 * BENCH_COLD_BASELINE names the root of another copy of this repository, built (an earlier commit,
 * say): every row of the project is then measured in both, alternated round by round, and each
 * table shows the two side by side. That is how a change's before and after come from one run.
 *
 * Each row of the project is measured twice: with the start cache on disk cold (a cache folder of
 * its own, empty, for every sample: a machine that never ran this build) and warm (one folder the
 * unrecorded first round filled: every later process of the same build), docs/pool.md, "The start
 * cache on disk". The bench never touches the user's own cache: CODEMODE_CACHE_DIR points at its
 * scratch folder for every process it starts, its own included.
 *
 * BENCH_COLD_ONLY, a regular expression, keeps the project's rows whose name it matches (and the
 * floors other than the upstream's, which are cheap) and leaves out the phase, rest and module
 * tables: a change's before and after on the rows it touches, with more runs, on a busy machine.
 * `BENCH_COLD_ONLY='first child|replacement' BENCH_COLD_RUNS=31 BENCH_COLD_BASELINE=../before`, say.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { workerdBinary } from '../packages/compat/src/workerd/binary.ts';
import type { IsolateExecutor as Executor } from '../packages/executor/dist/index.js';
import { processRss, record, summarize } from './stats.ts';
import { startWorkerdHost, stopWorkerd, writeHostConfig } from './workerd-host.ts';

const runs = Number(process.env.BENCH_COLD_RUNS ?? 7);
const here = new URL('..', import.meta.url);
const baselineRoot = process.env.BENCH_COLD_BASELINE;
const only = process.env.BENCH_COLD_ONLY ? new RegExp(process.env.BENCH_COLD_ONLY, 'i') : undefined;
/** Whether the row named `row` is measured (BENCH_COLD_ONLY). */
const selected = (row: string) => only === undefined || only.test(row);
/** The trees measured: this one, and the baseline when one is named. */
const trees: { readonly label: string; readonly root: URL }[] = [
  { label: 'this tree', root: here },
  ...(baselineRoot
    ? [{ label: 'baseline', root: pathToFileURL(`${baselineRoot.replace(/\/$/, '')}/`) }]
    : []),
];
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const scratch = mkdtempSync(join(tmpdir(), 'codemode-bench-cold-'));
/** The warm cache: every process this bench starts inherits it unless a sample names a cold one. */
const warmCache = join(scratch, 'cache-warm');
process.env.CODEMODE_CACHE_DIR = warmCache;
delete process.env.CODEMODE_CACHE;
/** Where cold samples' cache folders go; emptied after each sample. */
const coldCaches = join(scratch, 'cache-cold');
type CacheMode = 'cold' | 'warm';
const CACHE_MODES: readonly CacheMode[] = ['cold', 'warm'];
/** The environment of one sample's process: the warm cache, or a fresh empty folder. */
function cacheEnv(mode: CacheMode): NodeJS.ProcessEnv {
  if (mode === 'warm') return { ...process.env };
  mkdirSync(coldCaches, { recursive: true });
  return { ...process.env, CODEMODE_CACHE_DIR: mkdtempSync(join(coldCaches, 'sample-')) };
}
/** A row's name with its cache mode, before its colon: `engine ready, cache warm: ...`. */
function withCache(row: string, mode: CacheMode): string {
  return row.includes(':') ? row.replace(':', `, cache ${mode}:`) : `${row}, cache ${mode}`;
}
const { DEFAULT_CHILD_EXEC_ARGV } = (await import(
  new URL('packages/executor/dist/executor/defaults.js', here).href
)) as typeof import('../packages/executor/dist/executor/defaults.js');
const { childEnvironment } = (await import(
  new URL('packages/executor/dist/pool/child-spawn.js', here).href
)) as typeof import('../packages/executor/dist/pool/child-spawn.js');
const CHILD_FLAGS = DEFAULT_CHILD_EXEC_ARGV;
/** isolated-vm resolves from the executor package, whose dependency it is. */
const executorDir = new URL('packages/executor/', here).pathname;

// The MCP SDK and the memory server are the mcp package's (dev) dependencies.
const mcpRequire = createRequire(new URL('packages/mcp/package.json', here));
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

/**
 * CPU a live process has used so far (utime + stime from /proc/<pid>/stat), in ms: a pool child's
 * own work, which a loaded machine stretches far less than its wall time.
 */
function processCpu(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    // After the command's ')': state is field 3, so utime (14) and stime (15) are at 11 and 12.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
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
async function toExit(command: readonly string[], cwd?: string, env?: NodeJS.ProcessEnv): Promise<Sample> {
  const cpuBefore = childrenCpu();
  const started = performance.now();
  const child = spawn(process.execPath, command, { stdio: ['ignore', 'ignore', 'pipe'], cwd, env });
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

const programFile = join(scratch, 'one-plus-one.js');
writeFileSync(programFile, 'async () => 1 + 1\n');
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

const CHILD_FLOOR_SOURCE = [
  "import ivm from 'isolated-vm';",
  'const isolate = new ivm.Isolate({ memoryLimit: 8 });',
  "if (isolate.createContextSync().evalSync('1 + 1') !== 2) process.exit(1);",
].join(' ');

/**
 * The peer issue 28 names for the command: the npm package `run` (QuickJS in a worker thread, a
 * fresh context a run), imported and running one trivial program, spawn to exit: what a process
 * that runs one program with it costs, as `codemode-executor run` is one.
 */
const RUN_PEER_SOURCE = [
  "import { run } from 'run';",
  "const ran = await run({ source: 'return 1 + 1' });",
  "if (ran.status !== 'completed' || ran.value !== 2) process.exit(1);",
].join(' ');
const RUN_PEER = 'run (QuickJS): import, run return 1 + 1, spawn to exit';

/**
 * The peer issue 28 sets engine ready against: workerd with a Worker Loader host, from its spawn to
 * the answer of its first loaded Worker (a fresh isolate running a program that makes one call).
 */
const WORKERD_READY = "workerd Worker Loader: spawn to a loaded Worker's answer";
async function workerdReady(): Promise<Sample> {
  const directory = mkdtempSync(join(scratch, 'workerd-'));
  const started = performance.now();
  try {
    const { child } = await startWorkerdHost(directory);
    const wall = performance.now() - started;
    await stopWorkerd(child);
    return { wall };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** The same from a Node process that starts workerd (bench/cold-start-workerd.mjs), as engine ready's whole process is timed. */
const WORKERD_READY_FROM_NODE =
  "workerd Worker Loader from a Node process: spawn to a loaded Worker's answer";
const workerdPeerConfig = (() => {
  const directory = join(scratch, 'workerd-peer');
  mkdirSync(directory);
  return writeHostConfig(directory);
})();
async function workerdReadyFromNode(): Promise<Sample> {
  const cpuBefore = childrenCpu();
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [new URL('bench/cold-start-workerd.mjs', here).pathname, workerdBinary(), workerdPeerConfig],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const line = await firstLine(child);
  const wall = performance.now() - started;
  const answer = JSON.parse(line) as { ready: number; result: unknown };
  if (answer.result !== 1) throw new Error(`workerd's peer answered ${line}`);
  if ((await exited(child)) !== 0) throw new Error("workerd's peer process failed");
  return { wall, cpu: childrenCpu() - cpuBefore };
}

/** The floors: the same whatever tree is measured. */
const FLOOR_ROWS: Record<string, () => Promise<Sample>> = {
  'node -e 1': () => toExit(['-e', '1']),
  'node --no-node-snapshot -e 1': () => toExit(['--no-node-snapshot', '-e', '1']),
  'child floor: isolated-vm + one isolate': () =>
    toExit([...CHILD_FLAGS, '--input-type=module', '-e', CHILD_FLOOR_SOURCE], executorDir),
  'upstream alone: server-memory, spawn to tools/list': () =>
    firstToolsList([memoryServer], 'read_graph', memoryEnv),
  [RUN_PEER]: () => toExit(['--input-type=module', '-e', RUN_PEER_SOURCE], new URL('.', here).pathname),
  [WORKERD_READY]: workerdReady,
  [WORKERD_READY_FROM_NODE]: workerdReadyFromNode,
};

const ENGINE_READY = 'engine ready: IsolateExecutor, default pool, to the first answer';

/**
 * The import of each door's modules, spawn to exit: the part of a door's start its process spends
 * loading code before it can spawn a child or an upstream; with `node -e 1` beside it, the breakdown
 * of the rows above. Timed once, not per cache mode: an import reads no cache.
 */
function importRows(root: URL): Record<string, () => Promise<Sample>> {
  const importing = (file: string) => () =>
    toExit(['--input-type=module', '-e', `await import(${JSON.stringify(new URL(file, root).href)})`]);
  return {
    'import: @supolka/codemode-executor, spawn to exit': importing('packages/executor/dist/index.js'),
    "import: codemode-server's command, spawn to exit": importing('packages/server/dist/entry.js'),
    "import: codemode-mcp's command, spawn to exit": importing('packages/mcp/dist/entry.js'),
  };
}

/** The project's rows, over the build of the tree at `root`, each sample's process in `env()`. */
function projectRows(root: URL, env: () => NodeJS.ProcessEnv): Record<string, () => Promise<Sample>> {
  const serveBin = new URL('packages/server/bin/codemode-server.js', root).pathname;
  return {
    [ENGINE_READY]: async () => {
      const cpuBefore = childrenCpu();
      const started = performance.now();
      const child = spawn(process.execPath, [new URL('bench/cold-start-engine.mjs', root).pathname], {
        stdio: ['ignore', 'pipe', 'inherit'],
        env: env(),
      });
      const line = await firstLine(child);
      const wall = performance.now() - started;
      const answer = JSON.parse(line) as { ready: number; result: unknown };
      if (answer.result !== 2) throw new Error(`engine ready answered ${line}`);
      if ((await exited(child)) !== 0) throw new Error('the engine-ready process failed');
      return { wall, cpu: childrenCpu() - cpuBefore, extra: { inProcess: answer.ready } };
    },
    'codemode-executor run of async () => 1 + 1': () =>
      toExit(
        [new URL('packages/executor/bin/codemode-executor.js', root).pathname, 'run', programFile],
        undefined,
        env(),
      ),
    'serve: spawn to /healthz ok': async () => {
      const started = performance.now();
      const child = spawn(process.execPath, [serveBin, '--port', '0', '--log-level', 'silent'], {
        stdio: ['ignore', 'pipe', 'inherit'],
        env: env(),
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
    },
    'mcp: codemode-mcp with server-memory, spawn to tools/list': () =>
      firstToolsList(
        [new URL('packages/mcp/bin/codemode-mcp.js', root).pathname, '--config', mcpConfig],
        'execute',
        env() as Record<string, string>,
      ),
  };
}

async function executorOf(root: URL): Promise<typeof Executor> {
  const module = (await import(new URL('packages/executor/dist/index.js', root).href)) as {
    IsolateExecutor: typeof Executor;
  };
  return module.IsolateExecutor;
}

/**
 * Replacements in one pool of the tree at `root`: one child, retired after two executions, its
 * heartbeat every 20 ms. Each child runs one execution, idles two heartbeats (a child hands its
 * start on behind a heartbeat answer that finds it idle), runs a second and retires; the execution
 * after waits for the replacement, spawned as that answer came. A sample is a child's spawn to its
 * first answer, with its spawn to its first healthy heartbeat beside it; the first is the pool's
 * first child.
 */
async function replacements(root: URL, count: number, mode: CacheMode): Promise<Sample[]> {
  const IsolateExecutor = await executorOf(root);
  // Read as the executor is constructed: set around it, so a baseline without the option reads it too.
  const { CODEMODE_CACHE_DIR: saved } = process.env;
  process.env.CODEMODE_CACHE_DIR = cacheEnv(mode).CODEMODE_CACHE_DIR;
  const spawnedAt = new Map<number, number>();
  const healthyAfter = new Map<number, number>();
  const cpuAtHealthy = new Map<number, number>();
  const executor = new IsolateExecutor({
    poolSize: 1,
    maxExecutionsPerChild: 2,
    heartbeatInterval: 20,
    onPoolEvent: (event) => {
      if (event.type === 'spawned') spawnedAt.set(event.pid, performance.now());
      if (event.type === 'healthy') {
        healthyAfter.set(event.pid, performance.now() - (spawnedAt.get(event.pid) ?? 0));
        cpuAtHealthy.set(event.pid, processCpu(event.pid));
      }
    },
  });
  process.env.CODEMODE_CACHE_DIR = saved;
  const run = async () => {
    const answer = await executor.execute({ code: 'async () => 1 + 1' });
    if (answer.result !== 2) throw new Error(`a replacement answered ${JSON.stringify(answer)}`);
  };
  const samples: Sample[] = [];
  for (let index = 0; index <= count; index++) {
    const pid = executor.stats().children.find((child) => child.state !== 'retiring')?.pid ?? -1;
    await run();
    const wall = performance.now() - (spawnedAt.get(pid) ?? Number.NaN);
    samples.push({
      wall,
      cpu: processCpu(pid),
      extra: {
        healthy: healthyAfter.get(pid) ?? Number.NaN,
        cpuHealthy: cpuAtHealthy.get(pid) ?? Number.NaN,
      },
    });
    const answered = () =>
      executor.stats().children.find((child) => child.pid === pid)?.heartbeatsAnswered ?? 0;
    const target = answered() + 2;
    while (answered() < target) await pause(5);
    await run();
  }
  await executor.dispose();
  return samples;
}

/** Samples by row, and by tree for the project's rows ('' for the floors). */
const samples = new Map<string, Map<string, Sample[]>>();
const keep = (row: string, tree: string, sample: Sample) => {
  const byTree = samples.get(row) ?? new Map<string, Sample[]>();
  samples.set(row, byTree);
  byTree.set(tree, [...(byTree.get(tree) ?? []), sample]);
};
const loadBefore = loadavg();
const rounds: [string, string, () => Promise<Sample>][] = [
  ...Object.entries(FLOOR_ROWS)
    .filter(([row]) => !row.startsWith('upstream') || selected('mcp'))
    .map(([row, run]) => ['', row, run] as [string, string, () => Promise<Sample>]),
  ...trees.flatMap(({ label, root }) =>
    Object.entries(importRows(root))
      .map(([row, run]) => [label, row, run] as [string, string, () => Promise<Sample>])
      .filter(([, row]) => selected(row)),
  ),
  ...trees.flatMap(({ label, root }) =>
    CACHE_MODES.flatMap((mode) =>
      Object.entries(projectRows(root, () => cacheEnv(mode)))
        .map(([row, run]) => [label, withCache(row, mode), run] as [string, string, () => Promise<Sample>])
        .filter(([, row]) => selected(row)),
    ),
  ),
];
// One round first, unrecorded: the disk cache and this process's JIT warm for every row alike.
for (const [, , run] of rounds) await run().catch(() => undefined);
/** Samples that failed, by row: each is said, and the row's figures are of the rest. */
const failures = new Map<string, number>();
for (let round = 0; round < runs; round++) {
  for (const [tree, row, run] of rounds) {
    try {
      keep(row, tree, await run());
    } catch (error) {
      failures.set(row, (failures.get(row) ?? 0) + 1);
      console.error(`${row}${tree ? ` (${tree})` : ''}: a sample failed: ${String(error)}`);
    }
    rmSync(coldCaches, { recursive: true, force: true });
  }
}
const replacementRowsOf = (mode: CacheMode) =>
  [
    "pool's first child: spawn to its execution's answer",
    "pool's first child: spawn to healthy",
    'child replacement: spawn to the answer of the execution waiting for it',
    'child replacement: spawn to healthy',
  ].map((row) => withCache(row, mode));
for (let round = 0; round < runs; round++) {
  for (const [{ label, root }, mode] of trees.flatMap((tree) =>
    CACHE_MODES.map((mode) => [tree, mode] as const),
  )) {
    const replacementRows = replacementRowsOf(mode);
    if (!replacementRows.some(selected)) continue;
    const [first, ...replaced] = await replacements(root, 2, mode);
    rmSync(coldCaches, { recursive: true, force: true });
    if (first) {
      keep(replacementRows[0] as string, label, first);
      keep(replacementRows[1] as string, label, {
        wall: first.extra?.healthy ?? Number.NaN,
        cpu: first.extra?.cpuHealthy ?? Number.NaN,
      });
    }
    for (const sample of replaced) {
      keep(replacementRows[2] as string, label, sample);
      keep(replacementRows[3] as string, label, {
        wall: sample.extra?.healthy ?? Number.NaN,
        cpu: sample.extra?.cpuHealthy ?? Number.NaN,
      });
    }
  }
}
// The in-process figure of the engine-ready row, as a row of its own.
for (const mode of CACHE_MODES) {
  for (const [tree, list] of samples.get(withCache(ENGINE_READY, mode)) ?? []) {
    for (const sample of list) {
      keep(withCache('engine ready, in process: construction to the first answer', mode), tree, {
        wall: sample.extra?.inProcess ?? Number.NaN,
      });
    }
  }
}

/** The value at quantile q of the samples (nearest rank). */
function quantile(values: readonly number[], q: number): number {
  const sorted = values.filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}
const median = (values: readonly number[]) => quantile(values, 0.5);
const ms = (value: number) => (Number.isNaN(value) ? '—' : `${value.toFixed(0)} ms`);
const walls = (row: string, tree: string) =>
  samples
    .get(row)
    ?.get(tree)
    ?.map((sample) => sample.wall) ?? [];

const floors = {
  node: median(walls('node -e 1', '')),
  noSnapshot: median(walls('node --no-node-snapshot -e 1', '')),
  child: median(walls('child floor: isolated-vm + one isolate', '')),
  upstream: median(walls('upstream alone: server-memory, spawn to tools/list', '')),
  runPeer: median(walls(RUN_PEER, '')),
  workerd: median(walls(WORKERD_READY, '')),
  workerdFromNode: median(walls(WORKERD_READY_FROM_NODE, '')),
};
const floorLabel: Record<keyof typeof floors, string> = {
  node: 'node -e 1',
  noSnapshot: 'node --no-node-snapshot -e 1',
  child: 'child floor',
  upstream: 'server-memory alone',
  runPeer: 'run (QuickJS)',
  workerd: 'Worker Loader ready',
  workerdFromNode: 'Worker Loader ready from Node',
};
const floorOf = (row: string): keyof typeof floors | undefined =>
  row === 'node -e 1'
    ? undefined
    : row.startsWith('node') || row === RUN_PEER || row.startsWith('workerd') || row.startsWith('import')
      ? 'node'
      : row.startsWith('child floor') || row.startsWith('upstream')
        ? 'noSnapshot'
        : row.startsWith('mcp')
          ? 'upstream'
          : row.startsWith('codemode-executor run')
            ? 'runPeer'
            : 'child';

console.log(
  `\nCold start, whole processes (Node ${process.version}, ${runs} runs a row${baselineRoot ? `, against the baseline tree ${baselineRoot}` : ''}; load average ${loadBefore
    .map((value) => value.toFixed(1))
    .join(' ')} before and ${loadavg()
    .map((value) => value.toFixed(1))
    .join(' ')} after, on ${(await import('node:os')).availableParallelism()} cores)`,
);
const treeColumns = (label: string) => `${label}: median | p90 | CPU`;
console.log(
  `| measurement | ${trees.map(({ label }) => treeColumns(label)).join(' | ')} | against | ratio | difference${baselineRoot ? ' | change from the baseline' : ''} |`,
);
console.log(
  `| --- |${' --- | --- | --- |'.repeat(trees.length)} --- | --- | --- |${baselineRoot ? ' --- |' : ''}`,
);
for (const [row, byTree] of samples) {
  const isFloor = byTree.has('');
  const cells: string[] = [];
  for (const { label } of trees) {
    const list = byTree.get(isFloor ? '' : label) ?? [];
    const cpus = list.map((sample) => sample.cpu ?? Number.NaN);
    const values = list.map((sample) => sample.wall);
    cells.push(ms(median(values)), ms(quantile(values, 0.9)), ms(median(cpus)));
    if (isFloor) break;
  }
  // A floor's row spans the trees: its figures once, the other trees' cells empty.
  while (cells.length < trees.length * 3) cells.push('');
  const value = median(walls(row, isFloor ? '' : 'this tree'));
  const floor = floorOf(row);
  const against =
    floor === undefined
      ? ['—', '—', '—']
      : [
          floorLabel[floor],
          `${(value / floors[floor]).toFixed(2)}x`,
          `${value >= floors[floor] ? '+' : '-'}${ms(Math.abs(value - floors[floor]))}`,
        ];
  const change = isFloor
    ? '—'
    : (() => {
        const before = median(walls(row, 'baseline'));
        return `${ms(value - before)} (${((value / before - 1) * 100).toFixed(0)}%)`;
      })();
  const failed = failures.has(row) ? ` (${failures.get(row)} failed samples left out)` : '';
  console.log(
    `| ${row}${failed} | ${cells.join(' | ')} | ${against.join(' | ')}${baselineRoot ? ` | ${change}` : ''} |`,
  );
  const key = row.split(':')[0]?.replace(/[^a-z0-9]+/gi, '-') ?? row;
  record(`coldStart.${key}`, summarize(row, walls(row, isFloor ? '' : 'this tree')));
}

// The engine-ready targets of issue 28: at most the child floor + 60 ms, and at most twice Worker
// Loader's ready time, each like for like: the whole process against a Node process starting workerd,
// in process (from the construction, the caller's Node already running) against workerd alone.
const target = floors.child + 60;
const verdict = (value: number, bound: number) =>
  Number.isNaN(bound) ? 'not measured' : value <= bound ? 'met' : `missed by ${ms(value - bound)}`;
console.log(
  `\nEngine ready against its targets (medians, this tree): the child floor + 60 ms = ${ms(target)}; twice Worker Loader's ready time = ${ms(floors.workerdFromNode * 2)} from a Node process, ${ms(floors.workerd * 2)} workerd alone`,
);
for (const mode of CACHE_MODES) {
  for (const [row, peer] of [
    [ENGINE_READY, floors.workerdFromNode],
    ['engine ready, in process: construction to the first answer', floors.workerd],
  ] as const) {
    const value = median(walls(withCache(row, mode), 'this tree'));
    if (Number.isNaN(value)) continue;
    console.log(
      `- ${withCache(row, mode)}: ${ms(value)}; floor + 60 ms ${verdict(value, target)}; twice Worker Loader ${verdict(value, peer * 2)}`,
    );
  }
}

// A focused run (BENCH_COLD_ONLY) ends with its rows.
if (only !== undefined) {
  rmSync(scratch, { recursive: true, force: true });
  process.exit(0);
}

// A pool child's start, phase by phase.
const lexer = (await import(
  createRequire(new URL('packages/protocol/package.json', here)).resolve('es-module-lexer')
)) as typeof import('es-module-lexer');
await lexer.init;
/** The modules a file of the child imports statically, as URLs. */
function importsOf(file: URL): string[] {
  const [imports] = lexer.parse(readFileSync(file, 'utf8'));
  return (imports as unknown as { type: string; specifier?: string }[])
    .filter((entry) => entry.type === 'static' && entry.specifier !== undefined)
    .map(({ specifier }) => {
      const name = specifier as string;
      if (name.startsWith('.')) return new URL(name, file).href;
      if (name.startsWith('node:')) return name;
      return pathToFileURL(createRequire(file).resolve(name)).href;
    });
}
/** The child starts phase by phase: each tree's as the first child starts, and this tree's handed on. */
const variants = [
  ...trees.map(({ label, root }) => ({ label, root, handed: false, cached: false })),
  { label: 'this tree, handed on', root: here, handed: true, cached: false },
  { label: 'this tree, from the cache', root: here, handed: false, cached: true },
];
const handOnText = join(scratch, 'hand-on.txt');
// The built column keeps its start here (timed), which the cached column then starts from.
const phasesCache = join(scratch, 'cache-phases', 'start');
mkdirSync(phasesCache, { recursive: true, mode: 0o700 });
const phaseRuns = new Map<string, Record<string, number>[]>();
for (let index = 0; index < runs; index++) {
  for (const { label, root, handed, cached } of variants) {
    const dist = new URL('packages/executor/dist/', root);
    const childDir = new URL('pool/child/', dist);
    const modules = [
      ...importsOf(new URL('child-start.js', childDir)),
      ...importsOf(new URL('child-entry.js', childDir)),
    ];
    if (modules.length === 0) throw new Error('no imports read from child-start.js and child-entry.js');
    const options = {
      modules,
      dist: dist.href,
      ...(handed
        ? { handed: handOnText }
        : label === 'this tree'
          ? { save: handOnText, keep: phasesCache }
          : {}),
      ...(cached ? { cached: phasesCache } : {}),
    };
    const child = spawn(
      process.execPath,
      [...CHILD_FLAGS, new URL('bench/cold-start-phases.mjs', root).pathname, JSON.stringify(options)],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
        cwd: new URL('packages/executor/', root).pathname,
        env: childEnvironment(process.env),
      },
    );
    phaseRuns.set(label, [
      ...(phaseRuns.get(label) ?? []),
      JSON.parse(await firstLine(child)) as Record<string, number>,
    ]);
    await exited(child);
  }
}
const snapshotBytes = phaseRuns.get('this tree')?.[0]?.snapshotBytes ?? Number.NaN;
console.log(
  `\nA pool child's start, phase by phase (bench/cold-start-phases.mjs, ${runs} processes a column, taken in turn; the runtime snapshot is ${(snapshotBytes / 2 ** 20).toFixed(2)} MB)`,
);
console.log(`| phase | ${variants.map(({ label }) => `${label}: median | p90`).join(' | ')} |`);
console.log(`| --- |${' --- | --- |'.repeat(variants.length)}`);
const phaseNames = [
  ...new Set(variants.flatMap(({ label }) => Object.keys(phaseRuns.get(label)?.[0] ?? {}))),
];
const totals = new Map<string, number[]>();
for (const phase of [...phaseNames.filter((name) => name !== 'snapshotBytes'), 'total']) {
  const label = phase === 'node' ? 'Node start to the first line of the script' : phase;
  const cells = variants.flatMap((variant) => {
    const list = phaseRuns.get(variant.label) ?? [];
    const values =
      phase === 'total'
        ? list.map((run) =>
            Object.entries(run)
              .filter(([name]) => name !== 'snapshotBytes')
              .reduce((sum, [, value]) => sum + value, 0),
          )
        : list.map((run) => run[phase] ?? Number.NaN);
    if (phase === 'total') totals.set(variant.label, values);
    return values.every(Number.isNaN) ? ['', ''] : [ms(median(values)), ms(quantile(values, 0.9))];
  });
  console.log(`| ${label} | ${cells.join(' | ')} |`);
  for (const variant of variants.filter(({ root }) => root === here)) {
    const values =
      phase === 'total'
        ? (totals.get(variant.label) ?? [])
        : (phaseRuns.get(variant.label) ?? []).map((run) => run[phase] ?? Number.NaN);
    if (values.every(Number.isNaN)) continue;
    const which = variant.handed ? 'handed' : variant.cached ? 'cached' : 'built';
    record(`coldStart.phase.${which}.${phase.replace(/[^a-z0-9]+/gi, '-')}`, summarize(label, values));
  }
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
const floorRss = median(floorAtRest);
process.env.BENCH_PROBE_DIR = scratch;
console.log('\nA pool child at rest against the child floor at rest (MB, resident)');
console.log(`| process | resident | above the floor |`);
console.log('| --- | --- | --- |');
console.log(`| child floor: isolated-vm + one isolate, idle | ${(floorRss / MB).toFixed(1)} | — |`);
record('coldStart.childFloorRss', summarize('child floor at rest', floorAtRest), 'bytes');
const censuses = new Map<string, string[]>();
for (const { label, root } of trees) {
  const IsolateExecutor = await executorOf(root);
  const atRest = new IsolateExecutor({ poolSize: 1 });
  await atRest.engine();
  await pause(2500);
  const pid = atRest.stats().children[0]?.pid ?? -1;
  const healthy = processRss(pid);
  await atRest.execute({ code: 'async () => 1 + 1' });
  await pause(2500);
  const afterOne = processRss(pid);
  await atRest.dispose();
  for (const [what, rss] of [
    ['healthy, its first isolate prepared', healthy],
    ['after one execution', afterOne],
  ] as const) {
    console.log(
      `| pool child (${label}), ${what} | ${(rss / MB).toFixed(1)} | +${((rss - floorRss) / MB).toFixed(1)} |`,
    );
  }
  if (label === 'this tree')
    record('coldStart.childRss', summarize('pool child at rest', [healthy]), 'bytes');
  const census = new IsolateExecutor({
    poolSize: 1,
    childExecArgv: [...CHILD_FLAGS, '--import', new URL('bench/module-census.mjs', root).pathname],
  });
  await census.engine();
  await census.execute({ code: 'async () => 1 + 1' });
  await pause(1500);
  const censusPid = census.stats().children[0]?.pid ?? -1;
  process.kill(censusPid, 'SIGUSR2');
  const censusFile = join(scratch, `${censusPid}-modules.json`);
  // Written by the child when its signal handler runs: soon, or later on a loaded machine.
  for (let waited = 0; !existsSync(censusFile) && waited < 20_000; waited += 100) await pause(100);
  await pause(100);
  censuses.set(label, JSON.parse(readFileSync(censusFile, 'utf8')) as string[]);
  await census.dispose();
}

/** Which package (or Node's own, or this project's) a loaded module's URL belongs to. */
function packageOf(url: string): string {
  if (url.startsWith('node:')) return 'node: built-ins';
  const inModules = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (inModules?.[1]) return inModules[1];
  const own = /packages\/([^/]+)\//.exec(url);
  return own?.[1] ? `@supolka/codemode-${own[1]}` : url;
}
const counts = new Map<string, Map<string, number>>();
for (const [label, loaded] of censuses) {
  for (const url of loaded) {
    const name = packageOf(url);
    const byTree = counts.get(name) ?? new Map<string, number>();
    counts.set(name, byTree);
    byTree.set(label, (byTree.get(label) ?? 0) + 1);
  }
}
console.log(
  `\nModules a pool child has loaded after one execution, by package (${trees.map(({ label }) => `${label}: ${censuses.get(label)?.length} in all`).join('; ')})`,
);
console.log(`| package | ${trees.map(({ label }) => label).join(' | ')} |`);
console.log(`| --- |${' --- |'.repeat(trees.length)}`);
for (const [name, byTree] of [...counts].sort(
  (a, b) => (b[1].get('this tree') ?? 0) - (a[1].get('this tree') ?? 0),
)) {
  console.log(`| ${name} | ${trees.map(({ label }) => byTree.get(label) ?? 0).join(' | ')} |`);
}

rmSync(scratch, { recursive: true, force: true });
