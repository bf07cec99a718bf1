/** A full queue answers OVERLOADED at once, never a hang; what was queued still runs. */
import { OVERLOADED_MESSAGE } from '@supolka/codemode-protocol';
import { expect, test } from 'vitest';
import { TOOLS_PROVIDER, Tools, usePool } from './helpers.ts';

test('past the queue bound execute answers OVERLOADED at once, and the queued executions still run', async () => {
  const { pool } = usePool({ size: 1, queueLimit: 2 });
  const tools = new Tools();
  const run = (name: string) =>
    pool.execute(
      { code: `async () => tools.gate('${name}')`, providers: TOOLS_PROVIDER },
      { dispatch: tools.dispatch },
    );
  const running = run('running');
  await tools.arrived('running');
  const queued = [run('queued 1'), run('queued 2')];
  expect(pool.stats().queued).toBe(2);

  // The child is held inside a tool call; the answer must not wait for it.
  const overloaded = await run('overflow');
  expect(overloaded).toStrictEqual({
    result: undefined,
    error: OVERLOADED_MESSAGE,
    code: 'OVERLOADED',
    logs: [],
  });
  expect(tools.calls.some((call) => (call.args as unknown[])[0] === 'overflow')).toBe(false);

  for (const name of ['running', 'queued 1', 'queued 2']) tools.open(name);
  expect((await running).result).toBe('running');
  expect((await Promise.all(queued)).map((envelope) => envelope.result)).toStrictEqual([
    'queued 1',
    'queued 2',
  ]);
  tools.open('room again');
  expect(await run('room again')).toStrictEqual({ result: 'room again', logs: [] });
});

test('a queue bound of zero answers OVERLOADED whenever every child is busy, and not while one starts', async () => {
  const { pool } = usePool({ size: 1, queueLimit: 0 });
  const tools = new Tools();
  const running = pool.execute(
    { code: `async () => tools.gate('only')`, providers: TOOLS_PROVIDER },
    { dispatch: tools.dispatch },
  );
  await tools.arrived('only');
  expect((await pool.execute({ code: 'async () => 1' })).code).toBe('OVERLOADED');
  tools.open('only');
  expect((await running).result).toBe('only');
});
