/**
 * One process of test/pool/early-child.test.ts: it starts the pool's first child early, as the
 * commands' bins do, then does what argv[2] names and prints one line of JSON. A process of its own
 * per scenario, since a process starts one early child at most and ends it as it exits.
 */
import { startFirstChildEarly } from '../../src/executor/early-child.ts';
import { IsolateExecutor } from '../../src/executor/isolate-executor.ts';
import type { IsolateExecutorOptions } from '../../src/executor/options.ts';

const scenario = process.argv[2];
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
  case 'unused':
    // Nothing takes it: this process ends at once, and the child with it.
    report = {};
    break;
  default:
    throw new Error(`no scenario ${scenario}`);
}
process.stdout.write(`${JSON.stringify({ early, ...report })}\n`);
