/**
 * Invocations of retained handles reach the functions of the request that granted them, through
 * the pool: tool calls and proxied fetches cross to this process as the granting run's calls, and
 * the caller's functions serve them until the handles close, whatever closes them. Before, the
 * pool found no running execution for such a call and never answered it: the invocation hung.
 */
import { describe, expect, test } from 'vitest';
import { IsolateExecutor } from '../../src/executor/isolate-executor.ts';
import type { IsolateExecutorOptions } from '../../src/executor/options.ts';
import { EventLog } from '../pool/helpers.ts';
import { TOOL_AND_FETCH } from '../tool-and-fetch-handler.ts';

function useExecutor(options: IsolateExecutorOptions = {}) {
  const log = new EventLog();
  const executor = new IsolateExecutor({ poolSize: 1, ...options, onPoolEvent: log.record });
  return { executor, log, [Symbol.asyncDispose]: () => executor.dispose() };
}

function kvProvider(calls: string[]) {
  return {
    name: 'kv',
    fns: {
      get: async (key: string) => {
        calls.push(key);
        return `value-of-${key}`;
      },
    },
  };
}

describe('a retained handler', () => {
  test('calls its request’s tools and proxied fetch over several invocations, until its handles close', async () => {
    await using setup = useExecutor();
    const { executor } = setup;
    const calls: string[] = [];
    const fetched: string[] = [];
    let closed = 0;
    const granted = await executor.execute(
      {
        code: TOOL_AND_FETCH,
        retainHandles: true,
        providers: [kvProvider(calls)],
        outbound: async (request) => {
          fetched.push(request.url);
          return { status: 200, statusText: 'OK', headers: [], body: new TextEncoder().encode('body') };
        },
      },
      { onHandlesClosed: () => closed++ },
    );
    const id = granted.executionId as string;
    expect(id).toEqual(expect.any(String));
    for (const key of ['a', 'b', 'c']) {
      const response = await executor.invoke(id, new Request(`http://x/${key}`));
      expect(await response.text()).toBe(`value-of-${key} body`);
    }
    expect(calls).toStrictEqual(['a', 'b', 'c']);
    expect(fetched).toStrictEqual([
      'https://upstream.test/a',
      'https://upstream.test/b',
      'https://upstream.test/c',
    ]);
    expect(closed).toBe(0);
    await executor.closeHandles(id);
    expect(closed).toBe(1);
    await expect(executor.invoke(id, new Request('http://x/d'))).rejects.toMatchObject({
      code: 'HANDLES_CLOSED',
    });
    expect(calls).toStrictEqual(['a', 'b', 'c']);
  });

  test('does not spend its run clock while its tool waits: a wait past the timeout still answers', async () => {
    await using setup = useExecutor({ timeout: 300, grace: 100 });
    const { executor } = setup;
    const granted = await executor.execute({
      code: `async () => ({ async fetch() { return new Response(await slow.wait()) } })`,
      retainHandles: true,
      providers: [
        { name: 'slow', fns: { wait: () => new Promise((resolve) => setTimeout(resolve, 1200, 'waited')) } },
      ],
    });
    const id = granted.executionId as string;
    // Three times the timeout, twice over: only the isolate's own time counts.
    expect(await (await executor.invoke(id, new Request('http://x/'))).text()).toBe('waited');
    expect(await (await executor.invoke(id, new Request('http://x/'))).text()).toBe('waited');
    await executor.closeHandles(id);
  });

  test('a proxied fetch its timers make between invocations is refused, as their tool calls are', async () => {
    await using setup = useExecutor();
    const { executor } = setup;
    const fetched: string[] = [];
    const granted = await executor.execute({
      code: `async () => {
        let seen = 'none'
        return { async fetch(request) {
          if (new URL(request.url).pathname === '/arm') {
            setTimeout(() => fetch('https://later.test/').then(() => { seen = 'fetched' }, (error) => { seen = error.name + ': ' + error.message }), 10)
            return new Response('armed')
          }
          return new Response(seen)
        } }
      }`,
      retainHandles: true,
      outbound: async (request) => {
        fetched.push(request.url);
        return { status: 200, statusText: 'OK', headers: [], body: null };
      },
    });
    const id = granted.executionId as string;
    expect(await (await executor.invoke(id, new Request('http://x/arm'))).text()).toBe('armed');
    let seen = 'none';
    for (let attempt = 0; attempt < 200 && seen === 'none'; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      seen = await (await executor.invoke(id, new Request('http://x/read'))).text();
    }
    expect({ seen, fetched }).toStrictEqual({
      seen: 'TypeError: Execution has already completed.',
      fetched: [],
    });
    expect(fetched).toStrictEqual([]);
    await executor.closeHandles(id);
  });

  test('whose tool runs an execute while another execution’s tool invoked it, on a pool of one: nothing waits for ever', async () => {
    await using setup = useExecutor();
    const { executor } = setup;
    const granted = await executor.execute({
      code: `async () => ({ async fetch() { return new Response(String(await inner.run())) } })`,
      retainHandles: true,
      providers: [
        {
          name: 'inner',
          fns: { run: async () => (await executor.execute({ code: 'async () => 6 * 7' })).result },
        },
      ],
    });
    const id = granted.executionId as string;
    const outer = await executor.execute({
      code: `async () => 'outer saw ' + await handle.invoke()`,
      providers: [
        {
          name: 'handle',
          fns: { invoke: async () => (await executor.invoke(id, new Request('http://x/'))).text() },
        },
      ],
    });
    expect(outer).toStrictEqual({ result: 'outer saw 42', logs: [] });
    await executor.closeHandles(id);
  });

  test('whose tool throws meets the tool’s error in the invocation, and the handles live on', async () => {
    await using setup = useExecutor();
    const { executor } = setup;
    const granted = await executor.execute({
      code: `async () => ({ async fetch() {
        try { await kv.get('x'); return new Response('no throw') }
        catch (error) { return new Response('caught: ' + error.message) }
      } })`,
      retainHandles: true,
      providers: [{ name: 'kv', fns: { get: () => Promise.reject(new Error('kv is down')) } }],
    });
    const id = granted.executionId as string;
    expect(await (await executor.invoke(id, new Request('http://x/'))).text()).toBe('caught: kv is down');
    expect(await (await executor.invoke(id, new Request('http://x/'))).text()).toBe('caught: kv is down');
    await executor.closeHandles(id);
  });

  test('runs its tools in the async context the granting execute was called in', async () => {
    const { AsyncLocalStorage } = await import('node:async_hooks');
    const store = new AsyncLocalStorage<string>();
    await using setup = useExecutor();
    const { executor } = setup;
    const seen: (string | undefined)[] = [];
    const granted = await store.run('granting caller', () =>
      executor.execute({
        code: `async () => ({ async fetch() { return new Response(String(await who.am())) } })`,
        retainHandles: true,
        providers: [
          {
            name: 'who',
            fns: {
              am: () => {
                seen.push(store.getStore());
                return 'me';
              },
            },
          },
        ],
      }),
    );
    const id = granted.executionId as string;
    expect(
      await (await store.run('another caller', () => executor.invoke(id, new Request('http://x/')))).text(),
    ).toBe('me');
    expect(seen).toStrictEqual(['granting caller']);
    await executor.closeHandles(id);
  });

  test('closed while its invocation calls a tool in a loop: the calls that crossed the close are answered, the child serves on', async () => {
    await using setup = useExecutor();
    const { executor, log } = setup;
    const started = Promise.withResolvers<void>();
    let calls = 0;
    const granted = await executor.execute({
      code: `async () => ({ async fetch() { for (;;) await kv.tick() } })`,
      retainHandles: true,
      providers: [
        {
          name: 'kv',
          fns: {
            tick: () => {
              calls++;
              if (calls === 20) started.resolve();
              return calls;
            },
          },
        },
      ],
    });
    const id = granted.executionId as string;
    const invocation = executor.invoke(id, new Request('http://x/'));
    await started.promise;
    await executor.closeHandles(id);
    await expect(invocation).rejects.toMatchObject({ code: 'HANDLES_CLOSED' });
    const after = calls;
    expect((await executor.execute({ code: 'async () => 3' })).result).toBe(3);
    expect(calls).toBe(after);
    expect(log.pids('spawned')).toHaveLength(1);
  });

  test('lets go of its functions when its idle timeout closes the handles', async () => {
    await using setup = useExecutor({ handlesIdleTimeout: 300 });
    const { executor } = setup;
    const closed = Promise.withResolvers<void>();
    const granted = await executor.execute(
      { code: TOOL_AND_FETCH, retainHandles: true, providers: [kvProvider([])], outbound: null },
      { onHandlesClosed: () => closed.resolve() },
    );
    await closed.promise;
    await expect(
      executor.invoke(granted.executionId as string, new Request('http://x/a')),
    ).rejects.toMatchObject({ code: 'HANDLES_CLOSED' });
  });

  test('lets go of its functions when its child is lost', async () => {
    await using setup = useExecutor();
    const { executor, log } = setup;
    const closed = Promise.withResolvers<void>();
    await executor.execute(
      { code: TOOL_AND_FETCH, retainHandles: true, providers: [kvProvider([])] },
      { onHandlesClosed: () => closed.resolve() },
    );
    const [pid] = log.pids('spawned');
    process.kill(pid as number, 'SIGKILL');
    await closed.promise;
  });

  test('an invocation whose tool answers after the handles closed settles, and nothing more reaches the tool', async () => {
    await using setup = useExecutor();
    const { executor } = setup;
    const started = Promise.withResolvers<void>();
    const release = Promise.withResolvers<string>();
    let calls = 0;
    const granted = await executor.execute({
      code: `async () => ({ async fetch() { return new Response(await slow.wait()) } })`,
      retainHandles: true,
      providers: [
        {
          name: 'slow',
          fns: {
            wait: () => {
              calls++;
              started.resolve();
              return release.promise;
            },
          },
        },
      ],
    });
    const id = granted.executionId as string;
    const invocation = executor.invoke(id, new Request('http://x/'));
    await started.promise;
    await executor.closeHandles(id);
    release.resolve('late');
    await expect(invocation).rejects.toMatchObject({ code: 'HANDLES_CLOSED' });
    expect(calls).toBe(1);
    // The child is still healthy and serving.
    expect((await executor.execute({ code: 'async () => 2' })).result).toBe(2);
  });
});
