/**
 * Where a pooled tool call's time goes, layer by layer, each layer measured round by round beside
 * the others in one process, so the machine's drift (up to 3x between minutes here) falls on all of
 * them alike. Every variant runs a program of `calls` sequential calls in a child, each a message to
 * this process and an answer back, and reports per call: wall time, this process's CPU and the
 * child's CPU (every thread of each, from process.cpuUsage and /proc/<pid>/stat).
 *
 *   stdio JSON lines       the peer: a plain Node child over stdin/stdout (bench/peers-node.ts)
 *   fd 3 JSON lines        the pool's own pipe (a socket pair at the child's fd 3), the pool's
 *                          message shapes as JSON lines, no framing and no validation
 *   the pool's channel     pool/channel.ts on both ends: frames, the codec text, the checks every
 *                          message passes at each boundary; the child answers with no isolate
 *   IsolateExecutor        the whole tool call: the program in an isolate in a pool child, the
 *                          tool served by the caller's function (pool of 1)
 *
 * The difference between two rows is what the lower layer adds. Needs the packages built
 * (`tools/run bench` builds first). `node bench/tool-call-breakdown.ts [rounds]`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { DEFAULT_CHILD_EXEC_ARGV } from '../packages/executor/dist/executor/defaults.js';
import { IsolateExecutor } from '../packages/executor/dist/index.js';
import { Channel } from '../packages/executor/dist/pool/channel.js';
import { CHILD_STDIO } from '../packages/executor/dist/pool/child-spawn.js';
import { validateMessage } from '../packages/protocol/dist/index.js';
import { STDIO_TOOL_CHILD } from './peer-programs.mjs';
import { printTable, record, summarize } from './stats.ts';

const calls = 500;
const rounds = Number(process.argv[2] ?? 15);
/** The pool children's own flags, so every child here starts as a pool child does. */
const FLAGS = DEFAULT_CHILD_EXEC_ARGV;
const channelModule = new URL('../packages/executor/dist/pool/channel.js', import.meta.url).href;
const schemasModule = new URL('../packages/executor/dist/sandbox/crossing/schemas.js', import.meta.url).href;

/** CPU time of a process, every thread, in µs; NaN where /proc cannot say. */
function processCpu(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    // utime and stime, in clock ticks of 10 ms (USER_HZ is 100 on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return Number.NaN;
  }
}

interface Variant {
  readonly name: string;
  /** The child whose CPU is read: known once it started. */
  pid(): number;
  /** One program of `calls` calls, answered by this process. */
  run(): Promise<void>;
  stop(): Promise<void>;
  readonly wall: number[];
  readonly parentCpu: number[];
  readonly childCpu: number[];
}

const measured = (
  name: string,
  rest: Omit<Variant, 'name' | 'wall' | 'parentCpu' | 'childCpu'>,
): Variant => ({
  name,
  ...rest,
  wall: [],
  parentCpu: [],
  childCpu: [],
});

async function ended(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill();
  await exited;
}

function stdioLines(): Variant {
  const child = spawn(process.execPath, [...FLAGS, '-e', STDIO_TOOL_CHILD], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const stdin = child.stdin as Writable;
  let finished: (() => void) | undefined;
  createInterface({ input: child.stdout as Readable }).on('line', (line) => {
    const message = JSON.parse(line) as { call?: number; args?: [number]; done?: number };
    if (message.call !== undefined)
      stdin.write(`${JSON.stringify({ call: message.call, result: message.args?.[0] })}\n`);
    else finished?.();
  });
  return measured('stdio JSON lines (the peer)', {
    pid: () => child.pid ?? -1,
    run: () =>
      new Promise((resolve) => {
        finished = resolve;
        stdin.write(`${JSON.stringify({ run: calls })}\n`);
      }),
    stop: () => ended(child),
  });
}

/** The pool's message shapes as JSON lines on fd 3. */
const FD3_CHILD = `
const { Socket } = require('node:net');
const socket = new Socket({ fd: 3, readable: true, writable: true });
socket.setEncoding('utf8');
let pending, buffered = '';
socket.on('data', (chunk) => {
  buffered += chunk;
  for (let end; (end = buffered.indexOf('\\n')) !== -1; ) {
    const message = JSON.parse(buffered.slice(0, end));
    buffered = buffered.slice(end + 1);
    if (message.type === 'dispatchReply') pending(message.frame);
    else if (message.type === 'execute') (async () => {
      for (let i = 0; i < message.request.calls; i++) await new Promise((resolve) => {
        pending = resolve;
        socket.write(JSON.stringify({ type: 'dispatch', id: message.id, call: i, provider: 'tools', tool: 'echo', args: '[' + i + ']' }) + '\\n');
      });
      socket.write(JSON.stringify({ type: 'result', id: message.id, envelope: { result: 1, logs: [] } }) + '\\n');
    })();
  }
});
socket.on('end', () => process.exit(0));`;

function fd3Lines(): Variant {
  const child = spawn(process.execPath, [...FLAGS, '-e', FD3_CHILD], {
    stdio: ['ignore', 'ignore', 'inherit', 'pipe'],
  });
  const pipe = child.stdio[3] as unknown as NodeJS.ReadWriteStream;
  pipe.setEncoding('utf8');
  let buffered = '';
  let finished: (() => void) | undefined;
  pipe.on('data', (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf('\n'); end !== -1; end = buffered.indexOf('\n')) {
      const message = JSON.parse(buffered.slice(0, end)) as {
        type: string;
        id: string;
        call: number;
        args: string;
      };
      buffered = buffered.slice(end + 1);
      if (message.type === 'dispatch') {
        const frame = ['returned', `{"result":${(JSON.parse(message.args) as number[])[0]}}`];
        pipe.write(
          `${JSON.stringify({ type: 'dispatchReply', id: message.id, call: message.call, frame })}\n`,
        );
      } else finished?.();
    }
  });
  return measured('fd 3 JSON lines (the pool’s pipe, no framing or checks)', {
    pid: () => child.pid ?? -1,
    run: () =>
      new Promise((resolve) => {
        finished = resolve;
        pipe.write(`${JSON.stringify({ type: 'execute', id: 'x1', request: { calls } })}\n`);
      }),
    stop: () => ended(child),
  });
}

/** pool/channel.ts at the child's end, answering an execute with `calls` dispatches and a result. */
const CHANNEL_CHILD = `
const { openParentChannel } = await import(${JSON.stringify(channelModule)});
const { protocolSchemas } = await import(${JSON.stringify(schemasModule)});
let pending;
const parent = openParentChannel({
  received: (decoded) => {
    if (!decoded.ok) process.exit(2);
    const message = decoded.message;
    if (message.type === 'dispatchReply') return pending(message.frame);
    if (message.type !== 'execute') return;
    (async () => {
      const count = Number(message.request.code);
      for (let i = 0; i < count; i++) await new Promise((resolve) => {
        pending = resolve;
        parent.send({ type: 'dispatch', id: message.id, call: i, provider: 'tools', tool: 'echo', args: '[' + i + ']' });
      });
      parent.send({ type: 'result', id: message.id, envelope: { result: 1, logs: [] } });
    })();
  },
  violation: () => process.exit(3),
  closed: () => process.exit(0),
// What the hot checks do not decide goes to the schemas, loaded then, as in a pool child.
}, (value) => protocolSchemas().then((protocol) => protocol.validateMessage(value)));`;

function poolChannel(): Variant {
  const child = spawn(process.execPath, [...FLAGS, '--input-type=module', '-e', CHANNEL_CHILD], {
    stdio: [...CHILD_STDIO],
  });
  child.stderr?.pipe(process.stderr);
  let finished: (() => void) | undefined;
  const channel = new Channel(
    child.stdio[3] as unknown as import('node:stream').Duplex,
    {
      received: (decoded) => {
        if (!decoded.ok)
          throw new Error(`the channel child sent a message that failed its check: ${decoded.fault.message}`);
        const message = decoded.message;
        if (message.type === 'dispatch') {
          const value = (JSON.parse(message.args) as number[])[0];
          channel.send({
            type: 'dispatchReply',
            id: message.id,
            call: message.call,
            frame: ['returned', `{"result":${value}}`],
          });
        } else if (message.type === 'result') finished?.();
      },
      violation: (reason) => {
        throw new Error(reason);
      },
      closed: () => {},
    },
    { holdReadingOnBacklog: true, schemaPath: validateMessage },
  );
  return measured('the pool’s channel (frames, codec text, checks; no isolate)', {
    pid: () => child.pid ?? -1,
    run: () =>
      new Promise((resolve) => {
        finished = resolve;
        channel.send({ type: 'execute', id: 'x1', request: { code: String(calls) } });
      }),
    stop: () => ended(child),
  });
}

function pool(): Variant {
  let childPid = -1;
  const executor = new IsolateExecutor({
    poolSize: 1,
    onPoolEvent: (event) => {
      if (event.type === 'spawned') childPid = event.pid;
    },
  });
  const tools = { echo: async (value: unknown) => value };
  const code = `async () => { for (let i = 0; i < ${calls}; i++) await tools.echo(i); return 1 }`;
  return measured('IsolateExecutor (the whole tool call, pool of 1)', {
    pid: () => childPid,
    run: async () => {
      const outcome = await executor.execute({ code, providers: [{ name: 'tools', fns: tools }] });
      if (outcome.result !== 1) throw new Error(`the pooled program failed: ${JSON.stringify(outcome)}`);
    },
    stop: () => executor.dispose(),
  });
}

const variants = [stdioLines(), fd3Lines(), poolChannel(), pool()];
for (const variant of variants) for (let index = 0; index < 3; index++) await variant.run();
for (let round = 0; round < rounds; round++) {
  for (const variant of variants) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    const parentBefore = process.cpuUsage();
    const childBefore = processCpu(variant.pid());
    const started = performance.now();
    await variant.run();
    const wall = performance.now() - started;
    const parent = process.cpuUsage(parentBefore);
    variant.wall.push(wall / calls);
    variant.parentCpu.push((parent.user + parent.system) / 1000 / calls);
    variant.childCpu.push((processCpu(variant.pid()) - childBefore) / 1000 / calls);
  }
}
for (const variant of variants) await variant.stop();

const [peer] = variants;
const wall = variants.map((variant) => summarize(`${variant.name}: wall, per call`, variant.wall));
printTable(`Tool call, layer by layer, alternated round by round (${rounds} rounds of ${calls} calls)`, [
  ...wall.map((summary) => ({ summary, baseline: wall[0] })),
  ...variants.flatMap((variant) => [
    { summary: summarize(`${variant.name}: this process's CPU, per call`, variant.parentCpu) },
    { summary: summarize(`${variant.name}: the child's CPU, per call`, variant.childCpu) },
  ]),
]);
if (peer !== undefined) {
  record('breakdown.stdioToolCall', wall[0] as ReturnType<typeof summarize>);
  record('breakdown.poolToolCall', wall[3] as ReturnType<typeof summarize>);
}
