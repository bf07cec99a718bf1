/**
 * Handing a child's start on, through real pools (docs/pool.md, "Handing the start on"): the first
 * child makes the runtime snapshot and probes the engine, the parent keeps both, and a child that
 * replaces it starts from them, as its healthy event says. A start that fails its checks (damaged
 * bytes, another build's key) is refused without a crash, the child makes its own and hands that on;
 * a child never idle at a heartbeat hands its snapshot on after a few;
 * snapshot bytes a child sends other than the ones its first healthy answer committed to (here,
 * from a program's tool call) are a protocol violation, and are not kept.
 */
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { BUSY_ANSWERS_BEFORE_SENDING } from '../../src/pool/child/own-start.ts';
import { FORGED_SNAPSHOT_MESSAGE, UNASKED_SNAPSHOT_MESSAGE } from '../../src/pool/handed-start.ts';
import type { Pool } from '../../src/pool/pool.ts';
import { FOREIGN_SNAPSHOT_MESSAGE, SNAPSHOT_CHECK_MESSAGE } from '../../src/sandbox/setup/handed-snapshot.ts';
import {
  busyChild,
  type EventLog,
  RUNTIME_ANSWER,
  RUNTIME_PROGRAM,
  TINY_BUNDLE,
  TOOLS_PROVIDER,
  Tools,
  testFolder,
  usePool,
} from './helpers.ts';

/**
 * A marker file for a test hook: the first child to create it is the one the hook acts in. Its
 * folder goes when the test finishes.
 */
function marker(): string {
  return join(testFolder('codemode-hand-on-'), 'claimed');
}

/** How each of the first `count` children started, as its healthy event says, oldest first. */
function starts(log: EventLog, count: number): unknown[] {
  return log.events
    .filter((event) => event.type === 'healthy')
    .slice(0, count)
    .map((event) => event.start);
}

/**
 * Waits until the pool's one child answered two more heartbeats: a child hands its snapshot on
 * right behind a heartbeat answer that finds it idle, so by the next answer the parent has it.
 */
async function heartbeatsPass(pool: Pool): Promise<void> {
  const answered = () =>
    pool.stats().children.find((child) => child.state === 'idle')?.heartbeatsAnswered ?? 0;
  const target = answered() + 2;
  while (answered() < target) await new Promise((resolve) => setTimeout(resolve, 10));
}

/**
 * Runs the program in each of `count` children in turn, twice (maxExecutionsPerChild 2), with the
 * heartbeats that let a child hand its start on in between. Each reported healthy before it answered.
 */
async function runInTurn(pool: Pool, count: number): Promise<void> {
  for (let index = 0; index < count; index++) {
    expect(await pool.execute({ code: RUNTIME_PROGRAM })).toStrictEqual(RUNTIME_ANSWER);
    await heartbeatsPass(pool);
    expect(await pool.execute({ code: RUNTIME_PROGRAM })).toStrictEqual(RUNTIME_ANSWER);
  }
}

/** A pool of one child that serves two executions (runInTurn), heartbeats 20 ms apart, with `testHooks`. */
function poolInTurn(testHooks = {}) {
  return usePool({ size: 1, maxExecutionsPerChild: 2, heartbeatInterval: 20, testHooks });
}

describe("a child's start handed on", () => {
  test('a replacement starts from the snapshot and the engine report its predecessor made', async () => {
    const { pool, log } = poolInTurn();
    await runInTurn(pool, 3);
    expect(starts(log, 3)).toStrictEqual([
      { snapshot: 'built' },
      { snapshot: 'handedOn' },
      { snapshot: 'handedOn' },
    ]);
    const engines = log.events
      .flatMap((event) => (event.type === 'healthy' ? [event.engine] : []))
      .slice(0, 3);
    expect(engines[1]).toStrictEqual(engines[0]);
    expect(engines[2]).toStrictEqual(engines[0]);
  });

  test('with packages delivered, a replacement still starts from the start handed on, and imports them', async () => {
    const { pool, log } = poolInTurn();
    pool.usePackages(TINY_BUNDLE);
    const program = `async () => { const { one } = await import('tiny'); return one; }`;
    for (let index = 0; index < 3; index++) {
      expect(await pool.execute({ code: program })).toStrictEqual({ result: 1, logs: [] });
      await heartbeatsPass(pool);
      expect(await pool.execute({ code: program })).toStrictEqual({ result: 1, logs: [] });
    }
    // The packages are sent to a spawned child after the start, not before it: sent first, the
    // child read them as the start not coming and made its own.
    expect(starts(log, 3)).toStrictEqual([
      { snapshot: 'built' },
      { snapshot: 'handedOn' },
      { snapshot: 'handedOn' },
    ]);
  });

  test('damaged on the way, it is refused before V8 sees it: the child makes its own and serves', async () => {
    const { pool, log } = poolInTurn({ corruptHandOn: marker() });
    await runInTurn(pool, 3);
    // The second child was handed the first one's start and damaged it; had V8 restored those
    // bytes the child would have ended in a fatal error (test/sandbox/handed-snapshot.test.ts).
    expect(starts(log, 3)).toStrictEqual([
      { snapshot: 'built' },
      { snapshot: 'built', refused: SNAPSHOT_CHECK_MESSAGE },
      { snapshot: 'handedOn' },
    ]);
    expect(log.events.filter((event) => event.type === 'unhealthy')).toStrictEqual([]);
  });

  test("made under another build's key, it is refused, and the start the refusing child made replaces it", async () => {
    const { pool, log } = poolInTurn({ foreignHandOn: marker() });
    await runInTurn(pool, 3);
    expect(starts(log, 3)).toStrictEqual([
      { snapshot: 'built' },
      { snapshot: 'built', refused: FOREIGN_SNAPSHOT_MESSAGE },
      { snapshot: 'handedOn' },
    ]);
  });

  test('a child kept busy past a few heartbeats hands its snapshot on all the same', async () => {
    const { pool, log } = usePool({ size: 1, heartbeatInterval: 20 });
    const tools = new Tools();
    const held = pool.execute(
      { code: `async () => tools.gate('held')`, providers: TOOLS_PROVIDER },
      { dispatch: tools.dispatch },
    );
    await tools.arrived('held');
    const pid = busyChild(pool);
    // Busy at every answer: the snapshot goes behind the one past BUSY_ANSWERS_BEFORE_SENDING, and
    // the parent has read it before the answer after (the frames arrive in order).
    const answered = () => pool.stats().children.find((child) => child.pid === pid)?.heartbeatsAnswered ?? 0;
    const target = answered() + BUSY_ANSWERS_BEFORE_SENDING + 2;
    while (answered() < target) await new Promise((resolve) => setTimeout(resolve, 10));
    // Ended before it was ever idle: a snapshot it had not sent yet would end with it.
    process.kill(pid, 'SIGKILL');
    expect(await held).toMatchObject({ code: 'WORKER_LOST' });
    expect(await pool.execute({ code: RUNTIME_PROGRAM })).toStrictEqual(RUNTIME_ANSWER);
    expect(starts(log, 2)).toStrictEqual([{ snapshot: 'built' }, { snapshot: 'handedOn' }]);
  });

  test('snapshot bytes that do not hash to what the first healthy answer committed to end the child, and are not kept', async () => {
    const { pool, log } = usePool({ size: 1, testHooks: { channelAttackOnTool: 'attack' } });
    const tools = new Tools();
    // The first execution of the child the parent asked: its own snapshot has not left yet.
    const attacked = await pool.execute(
      { code: `async () => tools.attack('stray-snapshot')`, providers: TOOLS_PROVIDER },
      { dispatch: tools.dispatch },
    );
    expect(attacked).toMatchObject({ code: 'WORKER_LOST' });
    expect(attacked.error).toContain(FORGED_SNAPSHOT_MESSAGE);
    // Nothing was kept: the replacement makes its own start.
    expect(await pool.execute({ code: RUNTIME_PROGRAM })).toStrictEqual(RUNTIME_ANSWER);
    expect(starts(log, 2)).toStrictEqual([{ snapshot: 'built' }, { snapshot: 'built' }]);
  });

  test('snapshot bytes sent when none was committed to end the child, and the start kept stays', async () => {
    const { pool, log } = usePool({
      size: 1,
      heartbeatInterval: 20,
      testHooks: { channelAttackOnTool: 'attack' },
    });
    const tools = new Tools();
    // Its own snapshot leaves behind a heartbeat answer once it is idle, and the parent keeps it.
    expect(await pool.execute({ code: RUNTIME_PROGRAM })).toStrictEqual(RUNTIME_ANSWER);
    await heartbeatsPass(pool);
    const attacked = await pool.execute(
      { code: `async () => tools.attack('stray-snapshot')`, providers: TOOLS_PROVIDER },
      { dispatch: tools.dispatch },
    );
    expect(attacked).toMatchObject({ code: 'WORKER_LOST' });
    expect(attacked.error).toContain(UNASKED_SNAPSHOT_MESSAGE);
    // The replacement was handed the start the first child committed to, not the stray bytes.
    expect(await pool.execute({ code: RUNTIME_PROGRAM })).toStrictEqual(RUNTIME_ANSWER);
    expect(starts(log, 2)).toStrictEqual([{ snapshot: 'built' }, { snapshot: 'handedOn' }]);
  });
});
