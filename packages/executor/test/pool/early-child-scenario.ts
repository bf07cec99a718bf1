/**
 * One process of test/pool/early-child.test.ts: it starts the pool's first child early, as the
 * commands' bins do, then does what argv[2] names and prints one line of JSON. A process of its own
 * per scenario, since a process starts one early child at most and ends it as it exits.
 */

import { closeSync, mkdtempSync, openSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFirstChildEarly } from '../../src/executor/early-child.ts';
import { IsolateExecutor } from '../../src/executor/isolate-executor.ts';
import type { IsolateExecutorOptions } from '../../src/executor/options.ts';

const scenario = process.argv[2];
/** Every file descriptor this process may still open, held (the 'no pipes' scenario). */
const held: number[] = [];
if (scenario === 'no pipes') {
  try {
    for (;;) held.push(openSync('/dev/null', 'r'));
  } catch {
    // EMFILE: none is left for a child's pipes.
  }
}
/** The folder the 'folder removed' scenario works in, and removes once its child started early. */
let folder: string | undefined;
if (scenario === 'folder removed') {
  folder = mkdtempSync(join(tmpdir(), 'codemode-early-folder-'));
  process.chdir(folder);
}
const early = startFirstChildEarly();

/** Whether `pid` is gone (reaped: this process's own children are reaped as they exit). */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

async function until(done: () => boolean): Promise<boolean> {
  for (let waited = 0; waited < 10_000; waited += 20) {
    if (done()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return done();
}

/** One execution on a pool of one child: the pids it spawned, how its child started, and the answer. */
async function runOne(options: IsolateExecutorOptions = {}) {
  const spawned: number[] = [];
  const starts: (string | undefined)[] = [];
  const executor = new IsolateExecutor({
    poolSize: 1,
    ...options,
    onPoolEvent: (event) => {
      if (event.type === 'spawned') spawned.push(event.pid);
      if (event.type === 'healthy') starts.push(event.start?.snapshot);
    },
  });
  try {
    const answer = await executor.execute({ code: 'async () => 6 * 7' });
    return { spawned, starts, answer };
  } finally {
    await executor.dispose();
  }
}

let report: Record<string, unknown>;
switch (scenario) {
  case 'adopted':
    report = await runOne();
    break;
  case 'twice':
    report = { second: startFirstChildEarly() ?? null };
    break;
  case 'options differ': {
    // An option that reaches the children: the pool spawns its own and ends the early one.
    const ran = await runOne({ allowLoopback: true });
    report = { ...ran, earlyGone: await until(() => gone(early as number)) };
    break;
  }
  case 'environment differs': {
    process.env.CODEMODE_EARLY_CHILD_TEST = 'set after the early child started';
    const ran = await runOne();
    report = { ...ran, earlyGone: await until(() => gone(early as number)) };
    break;
  }
  case 'ended before': {
    process.kill(early as number, 'SIGKILL');
    const ended = await until(() => gone(early as number));
    report = { ended, ...(await runOne()) };
    break;
  }
  case 'another copy': {
    // Another copy of the module (a bridge installed with its own copy of the package) asks for
    // the child with a command of its own: it finds the early child all the same, and ends it.
    const other = (await import(
      `${new URL('../../src/pool/early-child.ts', import.meta.url).href}?another-copy`
    )) as typeof import('../../src/pool/early-child.ts');
    const taken = other.adoptEarlyChild({ args: ['another entry'], env: process.env, folder: process.cwd() });
    report = { taken: taken !== undefined, earlyGone: await until(() => gone(early as number)) };
    break;
  }
  case 'unused':
    // Nothing takes it: this process ends at once, and the child with it.
    report = {};
    break;
  case 'killed at exit':
    // The exit listener alone, while this process and the child's channel stay: it kills the child.
    process.emit('exit', 0);
    report = { earlyGone: await until(() => gone(early as number)) };
    break;
  case 'spawn throws': {
    // A variable past the kernel's bound on one string (128 KiB): Node throws E2BIG from spawn()
    // itself. The early child, started before it, differs by it and is ended; the pool's own spawns
    // throw until the variable goes, and each is a start that failed, never a throw out of the pool.
    process.env.CODEMODE_EARLY_CHILD_TEST = 'x'.repeat(200_000);
    const executor = new IsolateExecutor({ poolSize: 1 });
    try {
      const refused = await executor.execute({ code: 'async () => 6 * 7' });
      delete process.env.CODEMODE_EARLY_CHILD_TEST;
      let answer: unknown;
      for (let tries = 0; tries < 100; tries++) {
        answer = await executor.execute({ code: 'async () => 6 * 7' });
        if ((answer as { result?: unknown }).result === 42) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      report = { refused, answer, earlyGone: await until(() => gone(early as number)) };
    } finally {
      await executor.dispose();
    }
    break;
  }
  case 'folder removed': {
    // Removed under the process: a child the pool spawns itself (here for an option that reaches
    // the children) inherits the folder gone, and starts; one told to start in the folder by name
    // could not (ENOENT).
    rmdirSync(folder as string);
    const ran = await runOne({ allowLoopback: true });
    report = { ...ran, earlyGone: await until(() => gone(early as number)) };
    break;
  }
  case 'no pipes': {
    // No descriptor left: the child is started neither early nor by the pool, and neither throws;
    // the execution is answered with why, and once descriptors are free again the pool starts one.
    const spawned: number[] = [];
    const executor = new IsolateExecutor({
      poolSize: 1,
      onPoolEvent: (event) => {
        if (event.type === 'spawned') spawned.push(event.pid);
      },
    });
    try {
      const refused = await executor.execute({ code: 'async () => 6 * 7' });
      for (const fd of held.splice(0)) closeSync(fd);
      let answer: unknown;
      for (let tries = 0; tries < 100; tries++) {
        answer = await executor.execute({ code: 'async () => 6 * 7' });
        if ((answer as { result?: unknown }).result === 42) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      report = { refused, answer, spawned };
    } finally {
      await executor.dispose();
    }
    break;
  }
  default:
    throw new Error(`no scenario ${scenario}`);
}
process.stdout.write(`${JSON.stringify({ early: early ?? null, ...report })}\n`);
