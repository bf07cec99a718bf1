/**
 * MCP benchmark: `codemode-mcp` (the built bin) with the everything server from npm as its one
 * upstream, driven by clients of both SDK eras, beside the pool it runs programs on and the SDK
 * it serves with, all in one run. Started by `tools/run bench`.
 *
 * The latency table (issue 30's target: a trivial `execute` back to back at most 1.5x the pool's
 * trivial run), each row `async () => 1` run back to back and 20 ms apart (paced, so each request
 * finds the next isolate prepared, as a model's client does). Its rows are measured in rounds,
 * each row a block per round, so a machine whose load drifts disturbs them alike. Beside the
 * times, the CPU the serving process spent per run back to back (this process for the pool, as
 * the parent of its child; the bridge's or the floor server's process for the others), which a
 * shared machine disturbs far less than the wall time:
 *
 *   pool                      IsolateExecutor in this process, its default pool, `execute({ code })`:
 *                             bench/pool.ts's trivial run, the baseline of every ratio
 *   pool of one, Code Mode    the same executor as the bridge makes it (one child), called as the
 *                             bridge calls it: the Code Mode form with a provider of everything's tools
 *   SDK floor                 the same client to a server on the bridge's SDK and serving entry whose
 *                             `execute` answers 1 at once (bench/mcp-floor-server.mjs): what the
 *                             SDKs and the pipe cost before the bridge does anything
 *   bridge                    the bridge's `execute`, from a 1.x SDK client (handshake revisions) and
 *                             a 2.x SDK client (2026-07-28), over stdio and over Streamable HTTP
 *
 * Then the upstream rows:
 *
 *   direct upstream call      one tools/call of everything.echo by a client connected to it
 *   upstream call in program  per call, in a program making 50 sequential echo calls, minus the
 *                             trivial program's time (1.x, stdio, back to back): what one upstream
 *                             call costs from a program
 *   added per upstream call   the two above: what the code tool adds to each call
 *   one call, 2026-07-28      a program making one echo call, from a 2.x SDK client on the current
 *                             revision, to a bridge whose policy allows it
 *   one call, approved        the same program to a bridge whose policy asks about echo: the run
 *                             pauses, the answer is an InputRequiredResult, the client's handler
 *                             accepts at once and retries, and the run resumes (the whole round trip)
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IsolateExecutor } from '../packages/executor/dist/index.js';
import {
  BRIDGE_BIN,
  connectCurrent,
  connectHandshake,
  npmServerEntry,
  startHttpBridge,
  stopProcess,
} from './mcp-clients.mjs';
import { printTable, record, type Summary, sample, samplePaced, summarize } from './stats.ts';

const iterations = Number(process.env.BENCH_ITERATIONS ?? 300);
const rounds = 5;
const block = Math.max(10, Math.floor(iterations / rounds));
const everything = npmServerEntry('server-everything');
const floorServer = new URL('./mcp-floor-server.mjs', import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), 'codemode-bench-mcp-'));
const upstreams = { everything: { command: process.execPath, args: [everything, 'stdio'] } };
const config = join(scratch, 'mcp.json');
writeFileSync(config, JSON.stringify({ mcpServers: upstreams }));
const approvingConfig = join(scratch, 'mcp-approving.json');
writeFileSync(
  approvingConfig,
  JSON.stringify({ mcpServers: upstreams, approvals: { 'everything.echo': 'ask' } }),
);
const stdio = (args: string[]) => ({ command: process.execPath, args });
const bridge = stdio([BRIDGE_BIN, '--config', config]);
const floor = stdio([floorServer]);

/** A client of either era, as far as a bench calls it. */
interface Caller {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
  /** The stdio transport, whose pid is the server's process. */
  readonly transport?: { readonly pid?: number | null };
}
const execute = (client: Caller, code: string) => client.callTool({ name: 'execute', arguments: { code } });
const TRIVIAL = 'async () => 1';

const direct = (await connectHandshake(stdio([everything, 'stdio']))) as Caller & {
  listTools(): Promise<{ tools: { name: string }[] }>;
};
const httpBridge = await startHttpBridge(config);
const httpCpu = () => processCpu(httpBridge.process.pid);
const clients = {
  floor1: (await connectHandshake(floor)) as Caller,
  floor2: (await connectCurrent(floor)) as Caller,
  stdio1: (await connectHandshake(bridge)) as Caller,
  stdio2: (await connectCurrent(bridge)) as Caller,
  http1: (await connectHandshake({ url: httpBridge.url })) as Caller,
  http2: (await connectCurrent({ url: httpBridge.url })) as Caller,
  approving: (await connectCurrent(stdio([BRIDGE_BIN, '--config', approvingConfig]))) as Caller,
};
// A client of the current revision is answered before the bridge's upstreams and pool child have
// started, and its first listing waits for them: every bridge has finished starting before any row
// is measured, so no row shares the machine with another bridge's startup (which made the one-call
// row of earlier runs read 18 ms).
for (const client of Object.values(clients))
  await (client as Caller & { listTools(): Promise<unknown> }).listTools();

// The pool as bench/pool.ts measures it, and as the bridge makes and calls it.
const pool = new IsolateExecutor({ heartbeatInterval: 200, heartbeatTimeout: 5000 });
const poolOfOne = new IsolateExecutor({ poolSize: 1, outbound: null });
await Promise.all([pool.engine(), poolOfOne.engine()]);
const bridgeProvider = {
  name: 'everything',
  fns: Object.fromEntries((await direct.listTools()).tools.map((tool) => [tool.name, async () => ({})])),
};

/**
 * CPU a process has used so far, user and system, in ms (/proc/<pid>/stat, in clock ticks of
 * 10 ms): what serving the requests cost it, which a machine shared with other work disturbs far
 * less than their wall time.
 */
function processCpu(pid: number | null | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    // After the command's ')': state is field 3, so utime (14) and stime (15) are at 11 and 12.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}
/** This process's CPU so far in ms: the parent of the in-process pool's child, as the bridge is of its own. */
const ownCpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const serverCpu = (client: Caller) => () => processCpu(client.transport?.pid);

interface LatencyRow {
  readonly name: string;
  readonly run: () => Promise<unknown>;
  /** CPU so far (ms) of the process that serves the row: the pool's parent, the bridge, the floor server. */
  readonly cpu: () => number;
  readonly target?: boolean;
}
const latencyRows: LatencyRow[] = [
  { name: 'pool (IsolateExecutor in process)', run: () => pool.execute({ code: TRIVIAL }), cpu: ownCpu },
  {
    name: 'pool of one, Code Mode form, bridge provider',
    run: () => poolOfOne.execute(TRIVIAL, [bridgeProvider]),
    cpu: ownCpu,
  },
  ...(['floor1', 'floor2', 'stdio1', 'stdio2'] as const).map((key) => ({
    name: `${key.startsWith('floor') ? 'SDK floor' : 'bridge'}, ${key.endsWith('1') ? '1.x' : '2.x'} client, stdio`,
    run: () => execute(clients[key], TRIVIAL),
    cpu: serverCpu(clients[key]),
    target: key.startsWith('stdio'),
  })),
  { name: 'bridge, 1.x client, HTTP', run: () => execute(clients.http1, TRIVIAL), cpu: httpCpu },
  { name: 'bridge, 2.x client, HTTP', run: () => execute(clients.http2, TRIVIAL), cpu: httpCpu },
];
const backToBack = latencyRows.map((): number[] => []);
const pacedSamples = latencyRows.map((): number[] => []);
/** Per row, the serving process's CPU over its back-to-back blocks, and the runs it served in them. */
const cpuSpent = latencyRows.map(() => ({ ms: 0, runs: 0 }));
for (let round = 0; round < rounds; round++) {
  for (const [index, row] of latencyRows.entries()) {
    const warmup = round === 0 ? 20 : 3;
    const before = row.cpu();
    backToBack[index]?.push(...(await sample(block, row.run, warmup)));
    const spent = cpuSpent[index] as { ms: number; runs: number };
    spent.ms += row.cpu() - before;
    spent.runs += block + warmup;
    pacedSamples[index]?.push(...(await samplePaced(block, row.run, 20, 2)));
  }
}

/** The q-quantile of samples (ms). */
function quantile(samples: readonly number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}
const ms = (value: number) => `${value.toFixed(2)} ms`;
const [poolBackToBack = [], poolPaced = []] = [backToBack[0], pacedSamples[0]];
console.log(
  `\nTrivial execute, \`${TRIVIAL}\` (${rounds} rounds of ${block} samples per row and mode; ratios to the pool's median in the same mode)`,
);
console.log(
  '| measurement | back to back median | p90 | ratio | paced 20 ms median | p90 | ratio | serving process CPU per run | target |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const [index, row] of latencyRows.entries()) {
  const cells = (samples: readonly number[], baseline: readonly number[]) =>
    samples.length === 0
      ? ['—', '—', '—']
      : [
          ms(quantile(samples, 0.5)),
          ms(quantile(samples, 0.9)),
          `${(quantile(samples, 0.5) / quantile(baseline, 0.5)).toFixed(2)}x`,
        ];
  const target = row.target ? 'back to back ≤ 1.5x' : '—';
  const spent = cpuSpent[index] as { ms: number; runs: number };
  console.log(
    `| ${[row.name, ...cells(backToBack[index] ?? [], poolBackToBack), ...cells(pacedSamples[index] ?? [], poolPaced), ms(spent.ms / spent.runs), target].join(' | ')} |`,
  );
}
const rowSummary = (index: number, paced = false): Summary =>
  summarize(
    `execute, trivial program, ${latencyRows[index]?.name}${paced ? ', paced 20 ms' : ''}`,
    (paced ? pacedSamples : backToBack)[index] ?? [],
  );
const trivial = rowSummary(4);
const ratio = (index: number): Summary => ({
  name: `${latencyRows[index]?.name}, back to back, over the pool's trivial run`,
  median: quantile(backToBack[index] ?? [], 0.5) / quantile(poolBackToBack, 0.5),
  p99: Number.NaN,
  samples: backToBack[index]?.length ?? 0,
});
record('mcp.trivialExecute', trivial);
record('mcp.trivialExecutePaced', rowSummary(4, true));
record('mcp.trivialExecuteCurrent', rowSummary(5));
record('mcp.trivialOverPool', ratio(4), 'ratio');
record('mcp.trivialOverPoolCurrent', ratio(5), 'ratio');
await Promise.all([pool.dispose(), poolOfOne.dispose()]);

const calls = 50;
const loop = `async () => { for (let i = 0; i < ${calls}; i++) await everything.echo({ message: 'x' }); return 'done' }`;
const loopRuns = Math.max(20, Math.floor(iterations / 10));
const directCall = summarize(
  'direct upstream call (client → everything)',
  await sample(iterations, () => direct.callTool({ name: 'echo', arguments: { message: 'x' } })),
);
const loopSamples = await sample(loopRuns, () => execute(clients.stdio1, loop), 3);
const perCall = summarize(
  'upstream call in program (per call)',
  loopSamples.map((ms) => (ms - trivial.median) / calls),
);
const added = summarize(
  'added per upstream call (program minus direct)',
  loopSamples.map((ms) => (ms - trivial.median) / calls - directCall.median),
);

const oneCall = `async () => everything.echo({ message: 'x' })`;
const roundRuns = Math.max(20, Math.floor(iterations / 5));
const plainCall = summarize(
  'one call, 2026-07-28 client, allowed',
  await sample(roundRuns, () => execute(clients.stdio2, oneCall), 3),
);
const approvedCall = summarize(
  'one call, approved (pause, answer, resume)',
  await sample(roundRuns, () => execute(clients.approving, oneCall), 3),
);

printTable(
  `MCP code tool over stdio, one everything upstream (${iterations} samples, loops of ${calls} calls)`,
  [
    { summary: directCall },
    { summary: perCall, baseline: directCall },
    { summary: added },
    { summary: plainCall },
    { summary: approvedCall, baseline: plainCall },
  ],
);
record('mcp.approvalRoundTrip', approvedCall);
record('mcp.addedPerUpstreamCall', added);

await Promise.all([
  direct.close(),

  ...Object.values(clients).map((client) => client.close()),
]);
await stopProcess(httpBridge.process);
rmSync(scratch, { recursive: true, force: true });
