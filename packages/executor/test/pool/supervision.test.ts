/**
 * Supervision against real processes: a child killed mid-execution, a child whose host side hangs
 * (a test hook blocks its event loop), a child that dies of memory, service life by count and by
 * age, recycling past the resident-memory bound, and an engine that cannot serve. Each test waits
 * on the pool's own events, never on time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { echo, REASON_ECHO_LIMIT } from '@supolka/codemode-protocol';
import { describe, expect, onTestFinished, test } from 'vitest';
import { DEFAULT_CHILD_EXEC_ARGV } from '../../src/executor/defaults.ts';
import type { Pool } from '../../src/pool/pool.ts';
import { busyChild, processAlive, TOOLS_PROVIDER, Tools, usePool } from './helpers.ts';

const gateProgram = (name: string) => ({
  code: `async () => tools.gate('${name}')`,
  providers: TOOLS_PROVIDER,
});

describe('a child killed with SIGKILL mid-execution', () => {
  test('takes exactly its own execution: WORKER_LOST naming the signal; the other finishes; a replacement serves', async () => {
    const { pool, log } = usePool({ size: 2 });
    const tools = new Tools();
    const doomed = pool.execute(gateProgram('doomed'), { dispatch: tools.dispatch });
    await tools.arrived('doomed');
    const victim = busyChild(pool);
    const survivor = pool.execute(gateProgram('survivor'), { dispatch: tools.dispatch });
    await tools.arrived('survivor');

    const replaced = log.next('spawned', (event) => event.pid !== victim);
    process.kill(victim, 'SIGKILL');
    const lost = await doomed;
    expect(lost).toMatchObject({ result: undefined, code: 'WORKER_LOST', logs: [] });
    expect(lost.error).toMatch(
      /^The worker running this execution was lost: its process was killed with SIGKILL from outside the pool \(the system's out-of-memory killer sends this signal too; its resident memory was \d+ MB at the last heartbeat\)\.$/,
    );

    tools.open('survivor');
    expect(await survivor).toStrictEqual({ result: 'survivor', logs: [] });
    const replacement = await replaced;
    await log.next('healthy', (event) => event.pid === replacement.pid, true);
    expect(processAlive(victim)).toBe(false);
    const after = await Promise.all([1, 2, 3, 4].map((n) => pool.execute({ code: `async () => ${n}` })));
    expect(after.map((envelope) => envelope.result)).toStrictEqual([1, 2, 3, 4]);
  });
});

describe('a child whose host side hangs', () => {
  test('stops answering its heartbeat, is ended with SIGTERM then SIGKILL, and is replaced', async () => {
    const { pool, log } = usePool({
      size: 1,
      heartbeatInterval: 50,
      heartbeatTimeout: 400,
      killTimeout: 300,
      testHooks: { hangOnTool: 'hang' },
    });
    const envelope = await pool.execute(
      { code: 'async () => tools.hang()', providers: TOOLS_PROVIDER },
      { dispatch: async () => '{"result":"never reached"}' },
    );
    expect(envelope).toMatchObject({ result: undefined, code: 'WORKER_LOST', logs: [] });
    expect(envelope.error).toMatch(
      /^The worker running this execution was lost: it stopped answering its heartbeat for \d+ ms; the pool sent SIGTERM, and SIGKILL when that went unanswered\.$/,
    );
    const [hung] = log.pids('spawned');
    expect(log.events.find((event) => event.type === 'terminating')).toMatchObject({
      pid: hung,
      reason: expect.stringMatching(/^it stopped answering its heartbeat for \d+ ms$/),
    });
    const replacement = await log.next('healthy', (event) => event.pid !== hung, true);
    expect(processAlive(hung as number)).toBe(false);
    expect(await pool.execute({ code: 'async () => "served by the replacement"' })).toStrictEqual({
      result: 'served by the replacement',
      logs: [],
    });
    expect(pool.stats().children.map((child) => child.pid)).toStrictEqual([replacement.pid]);
  });
});

describe('a child that dies of memory', () => {
  test('says so: the WORKER_LOST message names the memory death', async () => {
    const { pool } = usePool({
      size: 1,
      childExecArgv: [...DEFAULT_CHILD_EXEC_ARGV, '--max-old-space-size=64'],
      testHooks: { exhaustMemoryOnTool: 'allocate' },
    });
    const envelope = await pool.execute(
      { code: 'async () => tools.allocate()', providers: TOOLS_PROVIDER },
      { dispatch: async () => '{"result":null}' },
    );
    expect(envelope).toMatchObject({ result: undefined, code: 'WORKER_LOST' });
    expect(envelope.error).toMatch(
      /^The worker running this execution was lost: its process ran out of memory \(.*JavaScript heap out of memory\) and ended on SIGABRT\.$/,
    );
    expect(await pool.execute({ code: 'async () => "after"' })).toStrictEqual({ result: 'after', logs: [] });
  });
});

describe('service life', () => {
  test('a child retires once idle after its count of executions, and a replacement takes over', async () => {
    const { pool, log } = usePool({ size: 1, maxExecutionsPerChild: 3 });
    const results: unknown[] = [];
    for (let n = 0; n < 7; n++) results.push((await pool.execute({ code: `async () => ${n}` })).result);
    expect(results).toStrictEqual([0, 1, 2, 3, 4, 5, 6]);
    const retirements = log.events.filter((event) => event.type === 'retiring');
    expect(retirements).toHaveLength(2);
    expect(retirements[0]).toMatchObject({ reason: 'it retired after 3 executions, its service life' });
    const spawned = log.pids('spawned');
    expect(spawned).toHaveLength(3);
    expect(retirements.map((event) => event.pid)).toStrictEqual(spawned.slice(0, 2));
  });

  test('a child retires once idle after its service age', async () => {
    const { pool, log } = usePool({
      size: 1,
      maxChildAge: 300,
      heartbeatInterval: 50,
      heartbeatTimeout: 5000,
    });
    expect((await pool.execute({ code: 'async () => "young"' })).result).toBe('young');
    const [first] = log.pids('spawned');
    const retiring = await log.next('retiring', (event) => event.pid === first, true);
    expect(retiring.reason).toBe('it retired at its service age of 300 ms');
    await log.next('exited', (event) => event.pid === first, true);
    expect((await pool.execute({ code: 'async () => "replacement"' })).result).toBe('replacement');
  });

  test('a busy child is not retired in the middle of its execution', async () => {
    const { pool, log } = usePool({
      size: 1,
      maxChildAge: 100,
      heartbeatInterval: 20,
      heartbeatTimeout: 5000,
    });
    const tools = new Tools();
    const running = pool.execute(gateProgram('slow'), { dispatch: tools.dispatch });
    await tools.arrived('slow');
    const [pid] = log.pids('spawned');
    // Several heartbeats past its age pass while it runs; it must still be running.
    await heartbeatsPass(pool, pid as number, 5);
    expect(log.events.some((event) => event.type === 'retiring')).toBe(false);
    expect(busyChild(pool)).toBe(pid);
    tools.open('slow');
    expect(await running).toStrictEqual({ result: 'slow', logs: [] });
    await log.next('retiring', (event) => event.pid === pid, true);
  });
});

describe('resident memory', () => {
  test('an idle child past the bound is recycled, once it has served', async () => {
    const { pool, log } = usePool({ size: 1, rssLimit: 1, heartbeatInterval: 50, heartbeatTimeout: 5000 });
    expect((await pool.execute({ code: 'async () => "served"' })).result).toBe('served');
    const [first] = log.pids('spawned');
    const recycled = await log.next('retiring', (event) => event.pid === first, true);
    expect(recycled.reason).toMatch(/^it was recycled with \d+ MB resident, past the 1 MB bound$/);
    // A fresh child over the bound is left alone: it has served nothing, so recycling would only churn.
    const replacement = await log.next('healthy', (event) => event.pid !== first, true);
    await heartbeatsPass(pool, replacement.pid, 5);
    expect(log.events.filter((event) => event.type === 'retiring').map((event) => event.pid)).toStrictEqual([
      first,
    ]);
    expect(pool.stats().children.map((child) => child.pid)).toStrictEqual([replacement.pid]);
  });
});

describe('an engine that cannot serve the sandbox', () => {
  test('never reports healthy: executions and engine() get the reason instead of waiting', async () => {
    const { pool, log } = usePool({
      size: 1,
      testHooks: { failEngineCheck: 'the probes found no isolates' },
    });
    const envelope = await pool.execute({ code: 'async () => 1' });
    expect(envelope).toStrictEqual({
      result: undefined,
      error:
        'No pool child can serve executions: The engine cannot serve the sandbox: the probes found no isolates.',
      code: 'INTERNAL',
      logs: [],
    });
    await expect(pool.engine()).rejects.toThrow(
      'The engine cannot serve the sandbox: the probes found no isolates',
    );
    expect(log.events.some((event) => event.type === 'healthy')).toBe(false);
    expect(log.events.find((event) => event.type === 'unhealthy')).toMatchObject({
      reason: 'The engine cannot serve the sandbox: the probes found no isolates',
    });
  });

  test('a reason of many kilobytes is kept and repeated only to REASON_ECHO_LIMIT characters', async () => {
    // What a child whose host code was taken over could answer a heartbeat with; argv bounds the hook's text.
    const reason = 'q'.repeat(100_000);
    const { pool, log } = usePool({ size: 1, testHooks: { failEngineCheck: reason } });
    const kept = echo(`The engine cannot serve the sandbox: ${reason}`, REASON_ECHO_LIMIT);
    expect(kept.length).toBeLessThan(REASON_ECHO_LIMIT + 30);
    const envelope = await pool.execute({ code: 'async () => 1' });
    expect(envelope.error).toBe(`No pool child can serve executions: ${kept}.`);
    expect(log.events.find((event) => event.type === 'unhealthy')).toMatchObject({ reason: kept });
  });

  test('one child that cannot start fails nothing while another can still serve', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'codemode-pool-'));
    onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
    const marker = join(folder, 'claimed');
    const { pool, log } = usePool({ size: 2, testHooks: { failFirstEngineCheck: marker } });
    // Asked at once, before either child reported: it waits for the one that comes up.
    const envelopes = await Promise.all([1, 2, 3].map((n) => pool.execute({ code: `async () => ${n}` })));
    expect(envelopes.map((envelope) => envelope.result)).toStrictEqual([1, 2, 3]);
    expect(log.events.filter((event) => event.type === 'unhealthy')).toHaveLength(1);
    expect(await pool.engine()).toMatchObject({ fallbacks: expect.any(Array) });
  });
});

/** Waits until the child answered `count` more heartbeats: each is a point where the pool could act. */
async function heartbeatsPass(pool: Pool, pid: number, count: number): Promise<void> {
  const answered = () => pool.stats().children.find((child) => child.pid === pid)?.heartbeatsAnswered ?? 0;
  const target = answered() + count;
  while (answered() < target) await new Promise((resolve) => setTimeout(resolve, 10));
}
