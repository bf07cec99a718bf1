/**
 * Memory the isolate limit does not meter, through the pool with real children: the child's
 * resident-memory backstop ends the run with MEMORY_LIMIT before the child passes its documented
 * bound, the child is replaced, the culprit reads MEMORY_LIMIT and everything else the child held
 * reads WORKER_LOST or HANDLES_CLOSED; and a program within a large limit is never stopped by it.
 *
 * Each attack ends its own child, never this process. The parent watches the child's resident
 * high-water mark (VmHWM) while the attack runs; the last reading before the child ends is what
 * the parent observed.
 */
import { readFileSync } from 'node:fs';
import { memoryLimitMessage } from '@supolka/codemode-protocol';
import { describe, expect, test } from 'vitest';
import { IsolateExecutor } from '../../src/executor/isolate-executor.ts';
import { backstopBound } from '../../src/pool/child/backstop.ts';
import { EventLog } from './helpers.ts';

const MEMORY = memoryLimitMessage(64);

/** Resident memory of a process and its high-water mark, in bytes; undefined once it is gone. */
function residentOf(pid: number): { rss: number; peak: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1];
    const [rss, peak] = [field('VmRSS'), field('VmHWM')];
    // A process that has exited but is not reaped yet lists no memory.
    return rss === undefined || peak === undefined
      ? undefined
      : { rss: Number(rss) * 1024, peak: Number(peak) * 1024 };
  } catch {
    return undefined;
  }
}

/** The highest resident high-water mark of `pid` read while `work` runs. */
async function watchPeak<T>(pid: number, work: Promise<T>): Promise<{ value: T; peak: number }> {
  let peak = residentOf(pid)?.peak ?? 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, residentOf(pid)?.peak ?? 0);
  }, 1);
  try {
    return { value: await work, peak };
  } finally {
    clearInterval(timer);
  }
}

function useExecutor() {
  const log = new EventLog();
  const executor = new IsolateExecutor({ poolSize: 1, onPoolEvent: log.record });
  return { executor, log, [Symbol.asyncDispose]: () => executor.dispose() };
}

/** Runs a trivial program at `memoryLimit`, so the child's next isolate is prepared at that limit. */
async function warm(executor: IsolateExecutor, memoryLimit: number): Promise<number> {
  expect(await executor.execute({ code: 'async () => 1', memoryLimit })).toStrictEqual({
    result: 1,
    logs: [],
  });
  const [child] = executor.stats().children;
  await expect.poll(() => executor.stats().children[0]?.prepared, { timeout: 10_000 }).toBe(true);
  return (child as { pid: number }).pid;
}

// Each makes V8 allocate in a runtime call the heap limit is not checked inside of.
const ATTACKS = {
  'a maximum-length string forced flat': `async () => {
    const s = 'x'.repeat(2 ** 29 - 24); s.charCodeAt(0); s.indexOf('y'); return s.length }`,
  'a string joined from two million pieces': `async () => {
    const parts = new Array(2 ** 21).fill('x'.repeat(255)); const s = parts.join(''); return s.indexOf('y') }`,
  'a string padded to the maximum length': `async () => {
    const s = 'ab'.padEnd(2 ** 29 - 24, 'cd'); return s.indexOf('z') }`,
  'many flat slices of 128 MiB strings, each kept': `async () => {
    const keep = [];
    for (let i = 0; i < 8; i++) { const s = ('y' + i + 'x'.repeat(2 ** 27)).slice(2); s.indexOf('z'); keep.push(s) }
    return keep.length }`,
  // Builtins that never check for interrupts: the isolate limit's termination waits on them.
  'Array.prototype.fill over 2 ** 27 elements': `async () => { await 0; return new Array(2 ** 27).fill(1.5).length }`,
  'Object.keys of an array of 2 ** 27 elements': `async () => Object.keys(new Array(2 ** 27).fill(0)).length`,
};

describe('the memory backstop', () => {
  test.each(Object.entries(ATTACKS))(
    '%s under memoryLimit 64 ends MEMORY_LIMIT below the bound; the child is replaced',
    async (_, code) => {
      await using setup = useExecutor();
      const { executor, log } = setup;
      const pid = await warm(executor, 64);
      const floor = residentOf(pid)?.rss ?? 0;
      const { value, peak } = await watchPeak(pid, executor.execute({ code, memoryLimit: 64 }));
      expect(value).toStrictEqual({ result: undefined, error: MEMORY, code: 'MEMORY_LIMIT', logs: [] });
      expect(peak).toBeGreaterThan(0);
      expect(peak).toBeLessThan(backstopBound(floor, 64));
      // The isolate limit may have stopped it first (the child then lives); otherwise the backstop did.
      const exited = log.events.find((event) => event.type === 'exited' && event.pid === pid);
      if (exited)
        expect(exited).toMatchObject({ cause: expect.stringMatching(/^its memory backstop ended it: /) });
      expect(await executor.execute({ code: 'async () => 2' })).toStrictEqual({ result: 2, logs: [] });
    },
  );

  test('the flat string is stopped by the backstop itself, which names the ceiling it passed', async () => {
    await using setup = useExecutor();
    const { executor, log } = setup;
    const pid = await warm(executor, 64);
    const envelope = await executor.execute({
      code: ATTACKS['a maximum-length string forced flat'],
      memoryLimit: 64,
    });
    expect(envelope.code).toBe('MEMORY_LIMIT');
    const exited = await log.next('exited', (event) => event.pid === pid, true);
    expect(exited.cause).toMatch(
      /^its memory backstop ended it: resident memory of \d+ MB passed the ceiling of \d+ MB \(\d+ MB when guest code started, 2 times the memory limits of its isolates, and 64 MB\), and the process ended on SIGKILL$/,
    );
  });

  test("another caller's retained execution in that child reads HANDLES_CLOSED afterwards", async () => {
    await using setup = useExecutor();
    const { executor } = setup;
    await warm(executor, 64);
    const retained = await executor.execute({
      code: `async () => ({ fetch: () => new Response('kept') })`,
      retainHandles: true,
      memoryLimit: 64,
    });
    const executionId = retained.executionId as string;
    expect(await (await executor.invoke(executionId, new Request('https://h.test/'))).text()).toBe('kept');
    const attack = await executor.execute({
      code: ATTACKS['a maximum-length string forced flat'],
      memoryLimit: 64,
    });
    expect(attack).toStrictEqual({ result: undefined, error: MEMORY, code: 'MEMORY_LIMIT', logs: [] });
    await expect(executor.invoke(executionId, new Request('https://h.test/'))).rejects.toMatchObject({
      code: 'HANDLES_CLOSED',
    });
  });

  test("a retained execution's invocation that allocates unmetered reads MEMORY_LIMIT; the run beside it WORKER_LOST", async () => {
    await using setup = useExecutor();
    const { executor } = setup;
    const retained = await executor.execute({
      code: `async () => ({ fetch: () => { const s = 'x'.repeat(2 ** 29 - 24); s.indexOf('y'); return new Response(String(s.length)) } })`,
      retainHandles: true,
      memoryLimit: 64,
    });
    const executionId = retained.executionId as string;
    // Another caller's run holds the child, parked in a tool call, while the invocation allocates.
    let arrived: () => void = () => {};
    const parked = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const beside = executor.execute({
      code: 'async () => await hold.wait()',
      providers: [
        {
          name: 'hold',
          fns: {
            wait: () => {
              arrived();
              return new Promise(() => {});
            },
          },
        },
      ],
    });
    await parked;
    await expect(executor.invoke(executionId, new Request('https://h.test/'))).rejects.toMatchObject({
      code: 'MEMORY_LIMIT',
      message: MEMORY,
    });
    expect(await beside).toMatchObject({ code: 'WORKER_LOST' });
    expect(await executor.execute({ code: 'async () => 3' })).toStrictEqual({ result: 3, logs: [] });
  });

  test('a program holding about 80% of a 1024 MB limit is not stopped', async () => {
    await using setup = useExecutor();
    const { executor, log } = setup;
    const pid = await warm(executor, 1024);
    const floor = residentOf(pid)?.rss ?? 0;
    // 400 MiB of typed arrays (metered as the isolate's external memory), 256 MiB of flat strings
    // and 160 MiB of small objects on the heap, all held at once.
    const code = `async () => {
      const buffers = []; for (let i = 0; i < 400; i++) buffers.push(new Uint8Array(2 ** 20).fill(i));
      const strings = []; for (let i = 0; i < 16; i++) { const s = ('y' + i + 'x'.repeat(2 ** 24)).slice(2); s.indexOf('z'); strings.push(s) }
      const objects = []; for (let i = 0; i < 4e6; i++) objects.push({ i, half: i / 2 });
      return buffers.length + strings.length + objects.length }`;
    const { value, peak } = await watchPeak(
      pid,
      executor.execute({ code, memoryLimit: 1024, timeout: 60_000 }),
    );
    expect(value).toStrictEqual({ result: 400 + 16 + 4e6, logs: [] });
    // It really held that much: the child grew by more than 600 MiB.
    expect(peak - floor).toBeGreaterThan(600 * 2 ** 20);
    expect(log.events.filter((event) => event.type === 'exited' && event.pid === pid)).toStrictEqual([]);
  }, 90_000);
});
