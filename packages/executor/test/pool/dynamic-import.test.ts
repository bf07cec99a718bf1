/**
 * import() in a pool child, on the workspace engine (isolated-vm 7.0.2), which has the import()
 * callback the sandbox does not adopt (adr/0002): the rewrite serves it there, with the answers it
 * gives in process (test/sandbox/modules.test.ts), through a hostile loop that leaves the child
 * serving (the loads in flight are bounded inside the isolate; before, such a loop held the
 * child's event loop for seconds and cost it its heartbeat under Node 26), and for a retained
 * handler that imports between invocations.
 */
import { moduleNotFoundMessage } from '@supolka/codemode-protocol';
import { describe, expect, test } from 'vitest';
import { usePool } from './helpers.ts';

const GET = { method: 'GET', url: 'https://h.test/', headers: [] as [string, string][], body: null };

describe('import() in a pool child', () => {
  test('goes through the loader fallback: the rewrite shows in a function the program writes', async () => {
    const { pool } = usePool({ size: 1 });
    const envelope = await pool.execute({
      modules: { 'lib.js': 'export const answer = 6 * 7' },
      code: `async () => [String(() => import('./lib.js')), (await import('./lib.js')).answer]`,
    });
    expect(envelope).toStrictEqual({
      result: ['() => __sandboxImport("executor.js", \'./lib.js\')', 42],
      logs: [],
    });
  });

  test('a missing module and a module that throws reject with their kinds', async () => {
    const { pool } = usePool({ size: 1 });
    const missing = await pool.execute({ code: `async () => (await import('./missing.js')).x` });
    expect(missing).toMatchObject({
      error: moduleNotFoundMessage('./missing.js', 'executor.js'),
      errorKind: 'module-not-found',
      errorName: 'Error',
    });
    const thrown = await pool.execute({
      modules: { 'bad.js': `throw new TypeError('bad at load')` },
      code: `async () => (await import('./bad.js')).x`,
    });
    expect(thrown).toMatchObject({ error: 'bad at load', errorKind: 'thrown', errorName: 'TypeError' });
  });

  test('a loop of imports that never yields ends at the run bound, and the child serves the next run', async () => {
    const { pool, log } = usePool({ size: 1 });
    const [pid] = log.pids('spawned') as [number];
    const looped = await pool.execute({
      modules: { 'lib.js': 'export default 1' },
      timeout: 300,
      code: `async () => { for (;;) { import('./lib.js'); import('./missing.js').catch(() => {}) } }`,
    });
    expect(looped.code).toBe('TIMEOUT');
    const next = await pool.execute({
      modules: { 'lib.js': 'export default 1' },
      code: `async () => (await import('./lib.js')).default`,
    });
    expect(next).toStrictEqual({ result: 1, logs: [] });
    expect(log.pids('spawned')).toStrictEqual([pid]);
  });

  test('a retained handler imports between invocations: each module loads once, a missing one rejects', async () => {
    const { pool } = usePool({ size: 1 });
    const retained = await pool.execute({
      modules: {
        'count.js': 'globalThis.loads = (globalThis.loads ?? 0) + 1; export const loads = globalThis.loads',
      },
      code: `async () => ({
  fetch: async () => {
    const { loads } = await import('./count.js');
    const missing = await import('./missing.js').then(() => 'loaded', (e) => e.message);
    return new Response(JSON.stringify([loads, missing]));
  },
})`,
      retainHandles: true,
    });
    const executionId = retained.executionId as string;
    expect(executionId).toEqual(expect.any(String));
    for (let invocation = 0; invocation < 2; invocation++) {
      const response = (await pool.invoke(executionId, 'fetch', GET)) as { body: unknown };
      const body =
        response.body instanceof Uint8Array ? new TextDecoder().decode(response.body) : response.body;
      expect(JSON.parse(String(body))).toStrictEqual([
        1,
        moduleNotFoundMessage('./missing.js', 'executor.js'),
      ]);
    }
    await pool.closeHandles(executionId);
  });
});
