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
 *
 * An engine difference (adr/0002, "Engines supported and tested"): Node 26's V8 meets the same
 * growth as an ordinary heap-limit stop, which isolated-vm 7.0.1 answers by disposing that one
 * isolate, so there the execution reads the same MEMORY_LIMIT and the child serves on, the
 * retained execution beside it included. Node 24's V8 treats it as fatal, with 6.2.0 and 7.0.1.
 */
import { memoryLimitMessage } from '@supolka/codemode-protocol';
import { expect, test } from 'vitest';
import { usePool } from './helpers.ts';

/** Whether this Node's V8 treats an element store it cannot grow under the limit as fatal. */
const FATAL_ON_THIS_ENGINE = Number(process.versions.node.split('.')[0]) < 26;

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
  '%s: MEMORY_LIMIT for its execution; where fatal, HANDLES_CLOSED for the retained one beside it and the child replaced',
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
    const invoked = pool.invoke(executionId, 'fetch', {
      method: 'GET',
      url: 'https://h.test/',
      headers: [],
      body: null,
    });
    if (FATAL_ON_THIS_ENGINE) {
      const exited = await log.next('exited', (event) => event.pid === pid, true);
      expect(exited.cause).toBe(
        "an isolate in it ran out of memory (V8's fatal out-of-memory error), and the process ended on SIGABRT",
      );
      await expect(invoked).rejects.toMatchObject({ code: 'HANDLES_CLOSED' });
    } else {
      const kept = await invoked;
      expect(new TextDecoder().decode(kept.body ?? new Uint8Array())).toBe('kept');
    }
    expect(await pool.execute({ code: 'async () => 4' })).toStrictEqual({ result: 4, logs: [] });
    expect(log.pids('spawned')).toHaveLength(FATAL_ON_THIS_ENGINE ? 2 : 1);
  },
  60_000,
);
