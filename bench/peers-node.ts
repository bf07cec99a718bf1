/**
 * Peer benchmark: a plain Node child, with no isolate and no pool, as the floor a process boundary
 * allows. Started by `tools/run bench`.
 *
 *   socket round trip        a few raw bytes to a child and echoed back over its stdio (libuv makes
 *                            stdio pipes socket pairs), back to back, so both processes stay busy:
 *                            the engine floor of any hop between processes
 *   tool call over stdio     per call, in a program of 100 sequential calls running in the child,
 *                            each a JSON line to the parent and a JSON line back (parse, serve, answer,
 *                            parse): what the pool's tool call does, without an isolate or validation
 *   RSS of a bare child      a Node child started with the pool children's flags, at rest after 500 ms
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { DEFAULT_CHILD_EXEC_ARGV } from '../packages/executor/dist/executor/defaults.js';
import { STDIO_TOOL_CHILD } from './peer-programs.mjs';
import { printTable, processRss, record, sample, single, summarize } from './stats.ts';

const iterations = Number(process.env.BENCH_ITERATIONS ?? 300);
const calls = 100;
/** The flags the pool gives its children. */
const CHILD_FLAGS = DEFAULT_CHILD_EXEC_ARGV;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Echoes every chunk of stdin to stdout, untouched. */
const ECHO_CHILD = "process.stdin.on('data', (chunk) => process.stdout.write(chunk))";

/** The tool-call program (peer-programs.mjs). */
const TOOL_CHILD = STDIO_TOOL_CHILD;

function child(source: string): ChildProcessByStdio<Writable, Readable, null> {
  return spawn(process.execPath, [...CHILD_FLAGS, '-e', source], { stdio: ['pipe', 'pipe', 'inherit'] });
}

async function stop(process: ChildProcessByStdio<Writable, Readable, null>): Promise<void> {
  if (process.exitCode !== null || process.signalCode !== null) return;
  const exited = new Promise((resolve) => process.once('exit', resolve));
  process.kill();
  await exited;
}

// The socket floor: back to back, neither side ever sleeps long enough to pay a wake-up. Timed as
// the tool call is, over 100 sequential round trips, so both figures carry the same loop overhead.
const echo = child(ECHO_CHILD);
const bytes = Buffer.from('ping\n');
const echoed = () =>
  new Promise<void>((resolve) => {
    echo.stdout.once('data', () => resolve());
    echo.stdin.write(bytes);
  });
const socketRoundTrip = summarize(
  'socket round trip between two busy processes (stdio, raw bytes)',
  (
    await sample(Math.max(30, iterations / 5), async () => {
      for (let index = 0; index < calls; index++) await echoed();
    })
  ).map((ms) => ms / calls),
);
await stop(echo);

// The tool call: the child's program calls, this process serves, both sides parse JSON.
const tools = child(TOOL_CHILD);
const lines = createInterface({ input: tools.stdout });
let finished: (() => void) | undefined;
const serve = (value: number) => value;
lines.on('line', (line) => {
  const message = JSON.parse(line) as { call?: number; args?: [number]; done?: number };
  if (message.call !== undefined && message.args !== undefined)
    tools.stdin.write(`${JSON.stringify({ call: message.call, result: serve(message.args[0]) })}\n`);
  else if (message.done !== undefined) finished?.();
});
const run = (count: number) =>
  new Promise<void>((resolve) => {
    finished = resolve;
    tools.stdin.write(`${JSON.stringify({ run: count })}\n`);
  });
const empty = summarize('plain Node child: a run with no calls', await sample(iterations, () => run(0)));
const toolRuns = await sample(Math.max(30, iterations / 5), () => run(calls), 5);
const toolCall = summarize(
  `plain Node child: tool call over stdio JSON (per call, ${calls} sequential, served by the parent)`,
  toolRuns.map((ms) => (ms - empty.median) / calls),
);
lines.close();
await stop(tools);

// A bare child at rest: what a Node process costs before anything runs in it.
const bare = spawn(process.execPath, [...CHILD_FLAGS, '-e', 'setInterval(() => {}, 1000)'], {
  stdio: 'ignore',
});
await pause(500);
const bareRss = single('RSS of a bare Node child at rest (pool children flags)', processRss(bare.pid ?? -1));
bare.kill();

printTable(`Plain Node child (Node ${process.version})`, [
  { summary: socketRoundTrip },
  { summary: empty },
  { summary: toolCall, baseline: socketRoundTrip },
]);
console.log(`\nRSS of a bare Node child at rest: ${(bareRss.median / 2 ** 20).toFixed(1)} MB`);
record('node.socketRoundTrip', socketRoundTrip);
record('node.toolCall', toolCall);
record('node.bareChildRss', bareRss, 'bytes');
