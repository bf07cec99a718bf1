/**
 * A child's one explicit state (pool/child-state.ts), read through stats() of a real pool with a
 * real child: its life from starting to gone, a host wait, retained timer work, and the table
 * refusing a move it does not list.
 */
import { describe, expect, test } from 'vitest';
import { ChildLifecycle, illegalTransitionMessage } from '../../src/pool/child-state.ts';
import type { ChildStats } from '../../src/pool/events.ts';
import type { Pool } from '../../src/pool/pool.ts';
import { TOOLS_PROVIDER, Tools, usePool } from './helpers.ts';

/** The phase and coarse state of the child `pid`, or undefined once stats() no longer lists it. */
function seen(pool: Pool, pid: number): Pick<ChildStats, 'phase' | 'state'> | undefined {
  const child = pool.stats().children.find((candidate) => candidate.pid === pid);
  return child && { phase: child.phase, state: child.state };
}

const POLL = { timeout: 10_000, interval: 10 };

describe('a child through its life, as stats() shows it', () => {
  test('starting, idle, busy, a host wait, busy, idle, retained work, idle, retiring, terminating, gone', async () => {
    const { pool, log } = usePool({ size: 1, heartbeatInterval: 50, maxExecutionsPerChild: 3 });
    const [pid] = log.pids('spawned') as [number];
    expect(seen(pool, pid)).toStrictEqual({ phase: 'starting', state: 'starting' });

    await pool.engine();
    expect(seen(pool, pid)).toStrictEqual({ phase: 'idle', state: 'idle' });

    // A run held in a tool call, then waiting on a guest timer, then cancelled.
    const tools = new Tools();
    const controller = new AbortController();
    const held = pool.execute(
      {
        code: `async () => { await tools.gate('a'); return new Promise((resolve) => setTimeout(resolve, 600_000)) }`,
        providers: TOOLS_PROVIDER,
        timeout: 600_000,
      },
      { dispatch: tools.dispatch, signal: controller.signal },
    );
    expect(seen(pool, pid)).toStrictEqual({ phase: 'busy', state: 'busy' });
    await tools.arrived('a');
    expect(seen(pool, pid)).toStrictEqual({ phase: 'hostWait', state: 'busy' });
    tools.open('a');
    await expect.poll(() => seen(pool, pid)?.phase, POLL).toBe('busy');
    expect(seen(pool, pid)?.state).toBe('busy');
    controller.abort();
    expect((await held).code).toBe('CANCELLED');
    // The pool answered at once; the child stays busy until its own answer arrives.
    await expect.poll(() => seen(pool, pid)?.phase, POLL).toBe('idle');

    // A retained execution whose interval keeps working between invocations.
    const working = await pool.execute({
      code: `async () => {
        setInterval(() => { const end = Date.now() + 3; while (Date.now() < end) {} }, 5)
        return { fetch: () => new Response('kept') }
      }`,
      retainHandles: true,
      timeout: 600_000,
    });
    const workingId = working.executionId as string;
    expect(workingId).toEqual(expect.any(String));
    await expect.poll(() => seen(pool, pid)?.phase, POLL).toBe('retainedWork');
    expect(seen(pool, pid)?.state).toBe('busy');
    await pool.closeHandles(workingId);
    await expect.poll(() => seen(pool, pid)?.phase, POLL).toBe('idle');

    // The third execution ends its service life; the retained execution it holds keeps it retiring.
    const last = await pool.execute({
      code: `async () => ({ fetch: () => new Response('x') })`,
      retainHandles: true,
    });
    expect(seen(pool, pid)).toStrictEqual({ phase: 'retiring', state: 'retiring' });
    const [, replacement] = log.pids('spawned');
    expect(replacement).toEqual(expect.any(Number));
    expect(seen(pool, replacement as number)?.phase).toBe('starting');

    await pool.closeHandles(last.executionId as string);
    expect(seen(pool, pid)).toStrictEqual({ phase: 'terminating', state: 'retiring' });
    await log.next('exited', (event) => event.pid === pid, true);
    expect(seen(pool, pid)).toBeUndefined();
    expect(log.events.filter((event) => event.pid === pid).map((event) => event.type)).toStrictEqual([
      'spawned',
      'healthy',
      'retiring',
      'terminating',
      'exited',
    ]);
  });

  test('a child whose engine check fails goes from starting to terminating, and never takes work', async () => {
    const { pool, log } = usePool({ size: 1, testHooks: { failEngineCheck: 'no engine here' } });
    const [pid] = log.pids('spawned') as [number];
    expect(seen(pool, pid)?.phase).toBe('starting');
    await log.next('unhealthy', (event) => event.pid === pid, true);
    expect(seen(pool, pid)).toStrictEqual({ phase: 'terminating', state: 'starting' });
  });
});

describe('the state table', () => {
  test('lets a child move only as the table lists, and says which move it refused', () => {
    const lifecycle = new ChildLifecycle();
    expect(lifecycle.phase).toBe('starting');
    expect(() => lifecycle.move('busy')).toThrow(illegalTransitionMessage('starting', 'busy'));
    lifecycle.move('idle');
    lifecycle.move('busy');
    lifecycle.move('hostWait');
    expect(() => lifecycle.move('retainedWork')).not.toThrow();
    expect(() => lifecycle.move('busy')).toThrow(illegalTransitionMessage('retainedWork', 'busy'));
    lifecycle.move('retiring');
    expect(() => lifecycle.move('idle')).toThrow(illegalTransitionMessage('retiring', 'idle'));
    lifecycle.move('terminating');
    lifecycle.move('gone');
    expect(lifecycle.alive).toBe(false);
    expect(() => lifecycle.move('gone')).toThrow(illegalTransitionMessage('gone', 'gone'));
  });
});
