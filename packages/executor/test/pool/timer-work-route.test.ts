/**
 * A retained execution the child ends on its own, because its timer work between invocations ran
 * past its bound (sandbox/handles.ts): the child says so at once (`handlesClosed`), so the pool
 * drops its route and frees its slot under maxRetainedPerChild without waiting for the next invoke
 * or handlesIdleTimeout, and that invoke still reads HANDLES_CLOSED saying why.
 */
import { expect, test } from 'vitest';
import { timerWorkClosedMessage } from '../../src/sandbox/handles.ts';
import { usePool } from './helpers.ts';

const GET = { method: 'GET', url: 'https://h.test/', headers: [] as [string, string][], body: null };
const KEPT = `async () => ({ fetch: () => new Response('kept') })`;

test.each([
  ['a spin', 'for (;;) {}'],
  [
    'a chain of timers, each a little work',
    'const step = () => { const end = Date.now() + 20; while (Date.now() < end) {} setTimeout(step, 0) }; step()',
  ],
  ['an interval', 'setInterval(() => { const end = Date.now() + 30; while (Date.now() < end) {} }, 1)'],
])(
  'timer work past its bound (%s): the route goes at once and the slot is free again',
  async (_, work) => {
    const { pool, log } = usePool({ size: 1, maxRetainedPerChild: 1, grace: 0, handlesIdleTimeout: 600_000 });
    const first = await pool.execute({
      // The work starts well after the grant is captured, and the grant has room to be made on a
      // loaded machine: the bound counts the isolate's own time between invocations, not waiting.
      code: `async () => { setTimeout(() => { ${work} }, 200); return { fetch: () => new Response('x') } }`,
      retainHandles: true,
      timeout: 300,
    });
    const executionId = first.executionId as string;
    expect(executionId).toEqual(expect.any(String));
    const [pid] = log.pids('spawned');
    expect(pool.stats().children[0]?.retained).toBe(1);

    // Nobody invokes it: the child's message alone drops the route.
    await expect.poll(() => pool.stats().children[0]?.retained, { timeout: 10_000 }).toBe(0);
    const second = await pool.execute({ code: KEPT, retainHandles: true });
    expect(second.executionId).toEqual(expect.any(String));
    // The same child took it: the slot was free, no replacement was needed.
    expect(pool.stats().children.map((child) => child.pid)).toStrictEqual([pid]);
    expect(log.pids('spawned')).toStrictEqual([pid]);

    await expect(pool.invoke(executionId, 'fetch', GET)).rejects.toMatchObject({
      code: 'HANDLES_CLOSED',
      message: timerWorkClosedMessage(executionId, 300),
    });
    const kept = await pool.invoke(second.executionId as string, 'fetch', GET);
    expect(new TextDecoder().decode(kept.body ?? new Uint8Array())).toBe('kept');
  },
  30_000,
);
