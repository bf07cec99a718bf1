/**
 * Handing a child's start on, through real pools (docs/pool.md, "Handing the start on"): the first
 * child makes the runtime snapshot and probes the engine, the parent keeps both, and a child that
 * replaces it starts from them, as its healthy event says. A start that fails its checks (damaged
 * bytes, another build's key) is refused without a crash, the child makes its own and hands that on;
 * a start handed on after a child's own start is a protocol violation, and is not kept.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { LATE_HAND_ON_MESSAGE } from '../../src/pool/handed-start.ts';
import {
  FOREIGN_SNAPSHOT_MESSAGE,
  SNAPSHOT_DIGEST_MESSAGE,
} from '../../src/sandbox/setup/handed-snapshot.ts';
import { type EventLog, TOOLS_PROVIDER, Tools, usePool } from './helpers.ts';

/** A program that reads the runtime the snapshot holds: URL, TextEncoder, crypto, structuredClone. */
const RUNTIME_PROGRAM = `async () => [
  new URL('https://a.test/b?c=d').searchParams.get('c'),
  new TextEncoder().encode('é').length,
  crypto.randomUUID().length,
  structuredClone({ kept: [1] }),
]`;
const RUNTIME_ANSWER = { result: ['d', 2, 36, { kept: [1] }], logs: [] };

/** A marker file for a test hook: the first child to create it is the one the hook acts in. */
function marker(): string {
  return join(mkdtempSync(join(tmpdir(), 'codemode-hand-on-')), 'claimed');
}

/** How each of the first `count` children started, as its healthy event says, oldest first. */
function starts(log: EventLog, count: number): unknown[] {
  return log.events
    .filter((event) => event.type === 'healthy')
    .slice(0, count)
    .map((event) => event.start);
}

/**
 * Runs the program in each of `count` children in turn: each retires after it (maxExecutionsPerChild
 * 1), and each reported healthy before it answered.
 */
async function runInTurn(pool: ReturnType<typeof usePool>['pool'], count: number): Promise<void> {
  for (let index = 0; index < count; index++) {
    expect(await pool.execute({ code: RUNTIME_PROGRAM })).toStrictEqual(RUNTIME_ANSWER);
  }
}

describe("a child's start handed on", () => {
  test('a replacement starts from the snapshot and the engine report its predecessor made', async () => {
    const { pool, log } = usePool({ size: 1, maxExecutionsPerChild: 1 });
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

  test('damaged on the way, it is refused before V8 sees it: the child makes its own and serves', async () => {
    const { pool, log } = usePool({
      size: 1,
      maxExecutionsPerChild: 1,
      testHooks: { corruptHandOn: marker() },
    });
    await runInTurn(pool, 3);
    // The second child was handed the first one's start and damaged it; had V8 restored those
    // bytes the child would have ended in a fatal error (test/sandbox/handed-snapshot.test.ts).
    expect(starts(log, 3)).toStrictEqual([
      { snapshot: 'built' },
      { snapshot: 'built', refused: SNAPSHOT_DIGEST_MESSAGE },
      { snapshot: 'handedOn' },
    ]);
    expect(log.events.filter((event) => event.type === 'unhealthy')).toStrictEqual([]);
  });

  test("made under another build's key, it is refused, and the start the refusing child made replaces it", async () => {
    const { pool, log } = usePool({
      size: 1,
      maxExecutionsPerChild: 1,
      testHooks: { foreignHandOn: marker() },
    });
    await runInTurn(pool, 3);
    expect(starts(log, 3)).toStrictEqual([
      { snapshot: 'built' },
      { snapshot: 'built', refused: FOREIGN_SNAPSHOT_MESSAGE },
      { snapshot: 'handedOn' },
    ]);
  });

  test('handed on by a child after its own start, it ends that child and is not kept', async () => {
    const { pool, log } = usePool({ size: 1, testHooks: { channelAttackOnTool: 'attack' } });
    const tools = new Tools();
    const attacked = await pool.execute(
      { code: `async () => tools.attack('late-hand-on')`, providers: TOOLS_PROVIDER },
      { dispatch: tools.dispatch },
    );
    expect(attacked).toMatchObject({ code: 'WORKER_LOST' });
    expect(attacked.error).toContain(LATE_HAND_ON_MESSAGE);
    // The replacement was handed the first child's start: the one sent late, under a key no child
    // has, would have been refused.
    expect(await pool.execute({ code: RUNTIME_PROGRAM })).toStrictEqual(RUNTIME_ANSWER);
    expect(starts(log, 2)).toStrictEqual([{ snapshot: 'built' }, { snapshot: 'handedOn' }]);
  });
});
