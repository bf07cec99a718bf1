/**
 * V8's fatal out-of-memory in one isolate of a child, reached by real programs: isolated-vm calls
 * that isolate's catastrophic-error callback ("Catastrophic out-of-memory error") and the child
 * ends. The execution whose isolate it was reads MEMORY_LIMIT with the memory text; another
 * caller's retained execution in that child reads HANDLES_CLOSED; the child is replaced and the
 * next execution succeeds.
 *
 * Each program makes V8 grow one backing store it cannot allocate under the limit (a dense
 * element store of 2 ** 26 or 2 ** 27 slots), which V8 treats as fatal instead of as an exception;
 * resident memory stays far below the backstop's ceiling, so this callback is what ends the child.
 * Measured with raw isolated-vm 6.2.0 under memoryLimit 64: each reaches the callback in 1 to 5 s.
 * Each runs in a pool of its own.
 */
import { memoryLimitMessage } from '@supolka/codemode-protocol';
import { expect, test } from 'vitest';
import { usePool } from './helpers.ts';

const FATAL = {
  'an array of 2 ** 26 slots filled with objects': {
    memoryLimit: 128,
    code: `async () => { await 0; const a = new Array(2 ** 26); for (let i = 0; i < a.length; i++) a[i] = { i }; return a.length }`,
  },
  'an array of 2 ** 27 slots filled with numbers': {
    memoryLimit: 64,
    code: `async () => { const a = new Array(2 ** 27); for (let i = 0; i < a.length; i++) a[i] = i; return a.length }`,
  },
  'Array.from with 2 ** 26 objects': {
    memoryLimit: 64,
    code: `async () => Array.from({ length: 2 ** 26 }, (_, i) => ({ i })).length`,
  },
  'an array whose length was set, then filled with strings': {
    memoryLimit: 64,
    code: `async () => { const a = []; a.length = 2 ** 26; for (let i = 0; i < a.length; i++) a[i] = 's' + i; return a.length }`,
  },
};

test.each(Object.entries(FATAL))(
  '%s: MEMORY_LIMIT for its execution, HANDLES_CLOSED for the retained one beside it, the child replaced',
  async (_, { memoryLimit, code }) => {
    const { pool, log } = usePool({ size: 1 });
    const retained = await pool.execute({
      code: `async () => ({ fetch: () => new Response('kept') })`,
      retainHandles: true,
    });
    const executionId = retained.executionId as string;
    expect(executionId).toEqual(expect.any(String));
    const [pid] = log.pids('spawned');

    expect(await pool.execute({ code, memoryLimit })).toStrictEqual({
      result: undefined,
      error: memoryLimitMessage(memoryLimit),
      code: 'MEMORY_LIMIT',
      logs: [],
    });
    const exited = await log.next('exited', (event) => event.pid === pid, true);
    expect(exited.cause).toBe(
      "an isolate in it ran out of memory (V8's fatal out-of-memory error), and the process ended on SIGABRT",
    );
    await expect(
      pool.invoke(executionId, 'fetch', { method: 'GET', url: 'https://h.test/', headers: [], body: null }),
    ).rejects.toMatchObject({ code: 'HANDLES_CLOSED' });
    expect(await pool.execute({ code: 'async () => 4' })).toStrictEqual({ result: 4, logs: [] });
    expect(log.pids('spawned')).toHaveLength(2);
  },
  60_000,
);
