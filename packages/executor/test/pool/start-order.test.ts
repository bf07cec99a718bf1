/**
 * The order a pool's first children start in (docs/pool.md, "Cold start"): where the cores are few
 * the first child starts alone and the others once it reported healthy, so it does not share the
 * cores with them; where there is a core for each they start together. The order is read from the
 * pool's own events, never from time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { startOneChildFirst } from '../../src/pool/supervision.ts';
import { type EventLog, usePool } from './helpers.ts';

/** The spawned and healthy events, in order, with the children named by the order they spawned in. */
function startOrder(log: EventLog): string[] {
  const names = new Map(log.pids('spawned').map((pid, index) => [pid, `child ${index + 1}`]));
  return log.events
    .filter((event) => event.type === 'spawned' || event.type === 'healthy')
    .map((event) => `${names.get(event.pid)} ${event.type}`);
}

describe("a pool's first children", () => {
  test('start one first when told: the second is spawned once the first reported healthy', async () => {
    const { pool, log } = usePool({ size: 2, startOneFirst: true });
    // The first execution is answered by the child that started alone.
    expect(await pool.execute({ code: 'async () => 1' })).toStrictEqual({ result: 1, logs: [] });
    await log.next('healthy', (event) => event.pid === log.pids('spawned')[1], true);
    expect(startOrder(log)).toStrictEqual([
      'child 1 spawned',
      'child 1 healthy',
      'child 2 spawned',
      'child 2 healthy',
    ]);
  });

  test('start together otherwise: both are spawned before either reported healthy', async () => {
    const { pool, log } = usePool({ size: 2, startOneFirst: false });
    expect(await pool.execute({ code: 'async () => 1' })).toStrictEqual({ result: 1, logs: [] });
    await log.next('healthy', (event) => event.pid === log.pids('spawned')[1], true);
    expect(startOrder(log).slice(0, 2)).toStrictEqual(['child 1 spawned', 'child 2 spawned']);
  });

  test('start one first, and a first child that cannot start lets the others start at once: what waits is served', async () => {
    const marker = join(mkdtempSync(join(tmpdir(), 'codemode-start-order-')), 'claimed');
    onTestFinished(() => rmSync(dirname(marker), { recursive: true, force: true }));
    const { pool, log } = usePool({
      size: 2,
      startOneFirst: true,
      testHooks: { failFirstEngineCheck: marker },
    });
    const envelopes = await Promise.all([1, 2].map((n) => pool.execute({ code: `async () => ${n}` })));
    expect(envelopes.map((envelope) => envelope.result)).toStrictEqual([1, 2]);
    // The second child was spawned as the first failed, before the pool ended it.
    const [first] = log.pids('spawned');
    const order = log.events.map((event) => `${event.type}${event.pid === first ? ' first' : ''}`);
    expect(order.slice(0, 4)).toStrictEqual([
      'spawned first',
      'spawned',
      'unhealthy first',
      'terminating first',
    ]);
  });

  test('start one first exactly when the machine has no core for each child beside the caller', () => {
    expect(startOneChildFirst(2, 2)).toBe(true);
    expect(startOneChildFirst(4, 3)).toBe(true);
    expect(startOneChildFirst(2, 3)).toBe(false);
    expect(startOneChildFirst(1, 1)).toBe(false);
  });
});
