/**
 * What pausing and resuming a durable run costs (docs/durable.md, "Cost of a resume"), on the
 * in-process Sandbox with in-process tools, so the figures are the journal's and the replay's and
 * not a pool's crossings. A program makes N tool calls one after another (N = 10, 100, 1000) and
 * then asks for an approval that pauses it. Each row times, by median:
 *
 * - straight: the same program with the approval answering at once, not durable, the baseline;
 * - durable straight: the same, durable (journaled, never paused);
 * - resume: resuming the paused token with the approval answered, which replays N calls from the
 *   journal and finishes the run;
 * - and the token's size.
 *
 * Pause latency is timed apart: a program whose first call pauses, against the same program whose
 * first call returns (the run's end and the seal of a one-call journal). The target: a
 * resume of a 100-call journal costs at most 2x the run straight through. Started by `tools/run
 * bench`; prints its tables and records nothing.
 */
import { randomBytes } from 'node:crypto';
import { DurableKeyRing, MAX_JOURNAL_LENGTH } from '../packages/executor/src/durable/index.ts';
import { pause } from '../packages/executor/src/durable/pause.ts';
import { Sandbox, type SandboxExecuteRequest } from '../packages/executor/src/sandbox/index.ts';
import { printTable, summarize } from './stats.ts';

const iterations = Number(process.env.BENCH_ITERATIONS ?? 60);
const keys = new DurableKeyRing({ keys: [{ id: '2026-12', key: randomBytes(32) }] });
const sandbox = new Sandbox({ durable: { keys, maxJournalLength: MAX_JOURNAL_LENGTH } });

/** In-process tools: `get` answers its argument's issue; `approve` pauses while `closed`. */
function request(calls: number, options: { durable: boolean; closed: boolean }): SandboxExecuteRequest {
  return {
    code: `async () => {
      let open = 0;
      for (let id = 0; id < ${calls}; id++) {
        const issue = await tracker.get(id);
        if (issue.state === 'open') open++;
      }
      const approved = await tracker.approve(open);
      return { open, approved };
    }`,
    providers: [{ name: 'tracker' }],
    dispatch: async (_provider, tool, argsJson) => {
      const [id] = JSON.parse(argsJson) as [number];
      if (tool === 'approve') {
        if (options.closed) pause({ open: id }, { reason: 'approval' });
        return '{"result":true}';
      }
      return JSON.stringify({
        result: { id, title: `Issue ${id}`, labels: ['bug'], state: id % 3 === 0 ? 'closed' : 'open' },
      });
    },
    ...(options.durable ? { durable: true as const } : {}),
  };
}

/**
 * Idle time before each run, so each starts on an isolate prepared ahead (as bench/stats.ts,
 * samplePaced, waits): back to back, every other run would pay for preparing one.
 */
const GAP = 20;

/** Each run of `runs` once per round, in turn, after GAP of idle time; the times of each by name. */
async function alternated<Name extends string>(
  rounds: number,
  runs: Record<Name, () => Promise<unknown>>,
): Promise<Record<Name, number[]>> {
  const names = Object.keys(runs) as Name[];
  const times = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<Name, number[]>;
  for (let round = -3; round < rounds; round++) {
    for (const name of names) {
      await new Promise((resolve) => setTimeout(resolve, GAP));
      const started = performance.now();
      await runs[name]();
      // The first rounds warm up.
      if (round >= 0) times[name].push(performance.now() - started);
    }
  }
  return times;
}

const format = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const sizes: string[] = [];
const rows: Parameters<typeof printTable>[1][number][] = [];
for (const calls of [10, 100, 1000]) {
  const rounds = calls === 1000 ? Math.max(10, Math.floor(iterations / 4)) : iterations;
  const paused = await sandbox.execute(request(calls, { durable: true, closed: true }));
  const token = paused.paused?.token;
  if (token === undefined) throw new Error(`the ${calls}-call run did not pause: ${paused.error}`);
  const answers = { [calls + 1]: { result: true } };
  const resumed = await sandbox.resume(token, answers, request(calls, { durable: true, closed: false }));
  if (resumed.error !== undefined) throw new Error(`the ${calls}-call resume failed: ${resumed.error}`);
  // The three alternated round by round, so a busy moment of a shared machine falls on all three.
  // No claim store: the one token resumes as often as it is presented.
  const runs = {
    straight: () => sandbox.execute(request(calls, { durable: false, closed: false })),
    durable: () => sandbox.execute(request(calls, { durable: true, closed: false })),
    resume: () => sandbox.resume(token, answers, request(calls, { durable: true, closed: false })),
  };
  const times = await alternated(rounds, runs);
  const straight = summarize(`${calls} calls straight`, times.straight);
  const durable = summarize(`${calls} calls durable straight`, times.durable);
  const resume = summarize(`${calls} calls resumed`, times.resume);
  rows.push({ summary: straight }, { summary: durable, baseline: straight });
  rows.push({ summary: resume, baseline: straight, ...(calls === 100 ? { target: '≤ 2x' } : {}) });
  sizes.push(`| ${calls} | ${format(token.length)} | ${Math.round(token.length / calls)} |`);
}
printTable('Durable runs: a resume against the run straight through (in-process tools)', rows);
console.log('\n| calls | token size | bytes per call |\n| --- | --- | --- |');
for (const line of sizes) console.log(line);

const first = (closed: boolean) => ({
  code: 'async () => await tracker.approve(1)',
  providers: [{ name: 'tracker' }],
  dispatch: async () => {
    if (closed) pause({}, { reason: 'approval' });
    return '{"result":true}';
  },
  durable: true as const,
});
const latency = await alternated(iterations, {
  returns: () => sandbox.execute(first(false)),
  pauses: () => sandbox.execute(first(true)),
});
const returns = summarize('one call, returns', latency.returns);
const pauses = summarize('one call, pauses', latency.pauses);
printTable('Durable runs: pause latency', [{ summary: returns }, { summary: pauses, baseline: returns }]);
sandbox.dispose();
