/** dispose: in-flight and queued executions end with a clear envelope, and every child is gone. */
import { expect, test } from 'vitest';
import { Pool } from '../../src/pool/pool.ts';
import { EventLog, poolOptions, processAlive, TOOLS_PROVIDER, Tools } from './helpers.ts';

test('ends running and queued executions with CANCELLED saying so, kills every child, and refuses later work', async () => {
  const log = new EventLog();
  const pool = new Pool(poolOptions({ size: 2, onEvent: log.record }));
  const tools = new Tools();
  const run = (name: string) =>
    pool.execute(
      { code: `async () => tools.gate('${name}')`, providers: TOOLS_PROVIDER },
      { dispatch: tools.dispatch },
    );
  const running = [run('a'), run('b')];
  await Promise.all([tools.arrived('a'), tools.arrived('b')]);
  const queued = run('c');
  const pids = pool.stats().children.map((child) => child.pid);

  const disposed = pool.dispose();
  expect(pool.dispose()).toBe(disposed);
  for (const envelope of await Promise.all(running)) {
    expect(envelope).toStrictEqual({
      result: undefined,
      error: 'Execution was cancelled: the executor was disposed while it ran',
      code: 'CANCELLED',
      logs: [],
    });
  }
  expect(await queued).toMatchObject({
    error: 'Execution was cancelled: the executor was disposed before it started',
    code: 'CANCELLED',
  });
  await disposed;
  for (const pid of pids) expect(processAlive(pid)).toBe(false);
  expect(log.pids('spawned').sort()).toStrictEqual([...pids].sort());
  expect(await pool.execute({ code: 'async () => 1' })).toMatchObject({ code: 'CANCELLED' });
  await expect(pool.engine()).rejects.toMatchObject({ code: 'CANCELLED' });
  expect(pool.stats().children).toStrictEqual([]);
});

test('a pool disposed while its children still start leaves no process behind', async () => {
  const log = new EventLog();
  const pool = new Pool(poolOptions({ size: 2, onEvent: log.record }));
  await pool.dispose();
  for (const pid of log.pids('spawned')) expect(processAlive(pid)).toBe(false);
});

test('an idle pool does not keep its process alive, and its children leave with it', async () => {
  const { spawnSync } = await import('node:child_process');
  const poolModule = new URL('../../src/pool/pool.ts', import.meta.url).pathname;
  const optionsModule = new URL('../../src/executor/options.ts', import.meta.url).pathname;
  const script = `
    import { Pool } from ${JSON.stringify(poolModule)};
    import { resolveOptions } from ${JSON.stringify(optionsModule)};
    const pids = [];
    const pool = new Pool({ ...resolveOptions().pool, size: 1, onEvent: (event) => event.type === 'spawned' && pids.push(event.pid) });
    const envelope = await pool.execute({ code: 'async () => 6 * 7' });
    console.log(JSON.stringify({ result: envelope.result, pids }));
  `;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(child.status).toBe(0);
  const { result, pids } = JSON.parse(child.stdout) as { result: number; pids: number[] };
  expect(result).toBe(42);
  // The child notices its channel closed and exits; give it the moment that takes.
  for (const pid of pids) await waitUntil(() => !processAlive(pid));
});

async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

test('dispose after cancelling a run whose child is blocked in host work settles once that child has exited', async () => {
  const { spawnSync } = await import('node:child_process');
  const poolModule = new URL('../../src/pool/pool.ts', import.meta.url).pathname;
  const optionsModule = new URL('../../src/executor/options.ts', import.meta.url).pathname;
  // The program reaches the child's hangOnTool hook, a synchronous loop in the child's own host
  // code: no signal handler runs there, so only the SIGKILL after killTimeout ends it. The script
  // waits until the child stops answering heartbeats, so the cancel surely meets a blocked child.
  const script = `
    import { Pool } from ${JSON.stringify(poolModule)};
    import { resolveOptions } from ${JSON.stringify(optionsModule)};
    const exits = [];
    const pool = new Pool({
      ...resolveOptions().pool,
      size: 1, heartbeatInterval: 20, heartbeatTimeout: 600_000, killTimeout: 200,
      testHooks: { hangOnTool: 'hang' },
      onEvent: (event) => event.type === 'exited' && exits.push(event.cause),
    });
    const controller = new AbortController();
    let arrived;
    const ready = new Promise((resolve) => { arrived = resolve; });
    const run = pool.execute(
      { code: 'async () => { await tools.ready(); return tools.hang(); }', providers: [{ name: 'tools' }] },
      { dispatch: async () => { arrived(); return '{"result":1}'; }, signal: controller.signal },
    );
    await ready;
    const pause = () => new Promise((resolve) => setTimeout(resolve, 20));
    for (let last = -1, still = 0; still < 10; ) {
      await pause();
      const answered = pool.stats().children[0].heartbeatsAnswered;
      still = answered === last ? still + 1 : 0;
      last = answered;
    }
    controller.abort();
    const envelope = await run;
    await pool.dispose();
    console.log(JSON.stringify({ code: envelope.code, exits, children: pool.stats().children.length }));
  `;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(child.stderr).toBe('');
  expect(child.status).toBe(0);
  expect(JSON.parse(child.stdout)).toStrictEqual({
    code: 'CANCELLED',
    exits: [expect.stringMatching(/the pool sent SIGTERM, and SIGKILL when that went unanswered$/)],
    children: 0,
  });
});
