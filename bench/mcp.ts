/**
 * MCP benchmark: `codemode-executor mcp` (the built CLI) over stdio with the everything server
 * from npm as its one upstream, driven by the MCP SDK's Client, beside a Client connected to the
 * same server directly, all in one run. Started by `tools/run bench`.
 *
 *   direct upstream call      one tools/call of everything.echo by a client connected to it
 *   upstream call in program  per call, in a program making 50 sequential echo calls, minus the
 *                             trivial program's time: what one upstream call costs from a program
 *   added per upstream call   the two above: what the code tool adds to each call
 *   execute, trivial program  from the client's execute request to its answer, `async () => 1`,
 *                             back to back (the figure the per-call rows subtract) and 20 ms apart
 *                             (each request finds the next isolate prepared, as a paced client does)
 *   one call, 2026-07-28      a program making one echo call, from a 2.x SDK client on the current
 *                             revision, to a bridge whose policy allows it
 *   one call, approved        the same program to a bridge whose policy asks about echo: the run
 *                             pauses, the answer is an InputRequiredResult, the client's handler
 *                             accepts at once and retries, and the run resumes (the whole round trip)
 */
import { createRequire } from 'node:module';
import { printTable, record, sample, samplePaced, summarize } from './stats.ts';

// The SDK and the upstream server are the MCP package's dependencies, not the root's.
const mcpRequire = createRequire(new URL('../packages/mcp/package.json', import.meta.url));
const { Client } = (await import(
  mcpRequire.resolve('@modelcontextprotocol/sdk/client/index.js')
)) as typeof import('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = (await import(
  mcpRequire.resolve('@modelcontextprotocol/sdk/client/stdio.js')
)) as typeof import('@modelcontextprotocol/sdk/client/stdio.js');
const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
const { tmpdir } = await import('node:os');
const { join } = await import('node:path');

const iterations = Number(process.env.BENCH_ITERATIONS ?? 300);
const everything = mcpRequire
  .resolve('@modelcontextprotocol/server-everything/package.json')
  .replace(/package\.json$/, 'dist/index.js');
const bin = new URL('../packages/mcp/bin/codemode-mcp.js', import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), 'codemode-bench-mcp-'));
const config = join(scratch, 'mcp.json');
writeFileSync(
  config,
  JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } } }),
);

async function connect(command: string, args: string[]) {
  const client = new Client({ name: 'codemode-bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
  return client;
}

const approvingConfig = join(scratch, 'mcp-approving.json');
writeFileSync(
  approvingConfig,
  JSON.stringify({
    mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } },
    approvals: { 'everything.echo': 'ask' },
  }),
);

/** A 2.x SDK client on the current revision, whose user accepts every question at once. */
async function connectCurrent(configFile: string) {
  const { Client: CurrentClient } = (await import(
    mcpRequire.resolve('@modelcontextprotocol/client')
  )) as typeof import('@modelcontextprotocol/client');
  const { StdioClientTransport: CurrentStdio } = (await import(
    mcpRequire.resolve('@modelcontextprotocol/client/stdio')
  )) as typeof import('@modelcontextprotocol/client/stdio');
  const client = new CurrentClient(
    { name: 'codemode-bench-current', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: {} }));
  await client.connect(
    new CurrentStdio({ command: process.execPath, args: [bin, '--config', configFile], stderr: 'ignore' }),
  );
  if (client.getNegotiatedProtocolVersion() !== '2026-07-28') throw new Error('not on 2026-07-28');
  return client;
}

const direct = await connect(process.execPath, [everything, 'stdio']);
const served = await connect(process.execPath, [bin, '--config', config]);

const execute = (code: string) => served.callTool({ name: 'execute', arguments: { code } });
const calls = 50;
const loop = `async () => { for (let i = 0; i < ${calls}; i++) await everything.echo({ message: 'x' }); return 'done' }`;
const loopRuns = Math.max(20, Math.floor(iterations / 10));

const directCall = summarize(
  'direct upstream call (client → everything)',
  await sample(iterations, () => direct.callTool({ name: 'echo', arguments: { message: 'x' } })),
);
const trivialSamples = await sample(iterations, () => execute('async () => 1'));
const trivial = summarize('execute, trivial program (request to answer)', trivialSamples);
const trivialPaced = summarize(
  'execute, trivial program, paced 20 ms',
  await samplePaced(iterations, () => execute('async () => 1'), 20),
);
const loopSamples = await sample(loopRuns, () => execute(loop), 3);
const perCall = summarize(
  'upstream call in program (per call)',
  loopSamples.map((ms) => (ms - trivial.median) / calls),
);
const added = summarize(
  'added per upstream call (program minus direct)',
  loopSamples.map((ms) => (ms - trivial.median) / calls - directCall.median),
);

const current = await connectCurrent(config);
const approving = await connectCurrent(approvingConfig);
const oneCall = `async () => everything.echo({ message: 'x' })`;
const roundRuns = Math.max(20, Math.floor(iterations / 5));
const plainCall = summarize(
  'one call, 2026-07-28 client, allowed',
  await sample(roundRuns, () => current.callTool({ name: 'execute', arguments: { code: oneCall } }), 3),
);
const approvedCall = summarize(
  'one call, approved (pause, answer, resume)',
  await sample(roundRuns, () => approving.callTool({ name: 'execute', arguments: { code: oneCall } }), 3),
);

printTable(
  `MCP code tool over stdio, one everything upstream (${iterations} samples, loops of ${calls} calls)`,
  [
    { summary: directCall },
    { summary: perCall, baseline: directCall },
    { summary: added },
    { summary: trivial },
    { summary: trivialPaced },
    { summary: plainCall },
    { summary: approvedCall, baseline: plainCall },
  ],
);
record('mcp.approvalRoundTrip', approvedCall);
record('mcp.addedPerUpstreamCall', added);
record('mcp.trivialExecutePaced', trivialPaced);

await Promise.all([direct.close(), served.close(), current.close(), approving.close()]);
rmSync(scratch, { recursive: true, force: true });
