/**
 * A run ended at its bound or by its caller waits for the wedge check before the child answers,
 * and the child's next isolate is often ready before that answer leaves. The parent drops a
 * `prepared` that arrives while the run is still its current one (that isolate would be in use),
 * so the child says it again after the answer; without it the child read unprepared for the rest
 * of its idle time, in stats() and to scheduling.
 */
import { describe, expect, test } from 'vitest';
import { usePool } from './helpers.ts';

describe('after a run that ended at its bound or was cancelled, the child reads prepared again', () => {
  test('TIMEOUT', async () => {
    const { pool } = usePool({ size: 1 });
    await pool.engine();
    const envelope = await pool.execute({ code: 'async () => { for (;;) {} }', timeout: 20 });
    expect(envelope.code).toBe('TIMEOUT');
    await expect.poll(() => pool.stats().children[0]?.prepared, { timeout: 10_000 }).toBe(true);
  });

  test('CANCELLED', async () => {
    const { pool } = usePool({ size: 1 });
    await pool.engine();
    const controller = new AbortController();
    const running = pool.execute(
      { code: 'async () => { await new Promise(() => {}) }' },
      { signal: controller.signal },
    );
    await expect.poll(() => pool.stats().children[0]?.state).toBe('busy');
    controller.abort();
    expect((await running).code).toBe('CANCELLED');
    await expect.poll(() => pool.stats().children[0]?.prepared, { timeout: 10_000 }).toBe(true);
  });
});
