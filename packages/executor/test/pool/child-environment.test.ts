/**
 * A pool child runs with MALLOC_ARENA_MAX capped and glibc's mmap threshold fixed (pool/child-handle.ts,
 * docs/pool.md "Memory") unless the caller set the variable itself, and inherits the rest of the caller's environment. Read from the
 * real child's /proc/<pid>/environ.
 */
import { readFileSync } from 'node:fs';
import { afterEach, expect, test } from 'vitest';
import { IsolateExecutor } from '../../src/executor/isolate-executor.ts';
import { CHILD_MALLOC_ARENA_MAX, CHILD_MALLOC_MMAP_THRESHOLD } from '../../src/pool/child-spawn.ts';

const MALLOC_VARIABLES = ['MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_'] as const;
const saved = MALLOC_VARIABLES.map((name) => process.env[name]);
afterEach(() => {
  MALLOC_VARIABLES.forEach((name, index) => {
    if (saved[index] === undefined) delete process.env[name];
    else process.env[name] = saved[index];
  });
  delete process.env.CHILD_ENVIRONMENT_PROBE;
});

async function childEnvironment(): Promise<Map<string, string>> {
  const executor = new IsolateExecutor({ poolSize: 1 });
  try {
    expect(await executor.execute({ code: 'async () => 1' })).toStrictEqual({ result: 1, logs: [] });
    const pid = executor.stats().children[0]?.pid;
    const entries = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
    return new Map(
      entries.map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
    );
  } finally {
    await executor.dispose();
  }
}

test('a child caps its malloc arenas, fixes the mmap threshold and inherits the caller environment', async () => {
  for (const name of MALLOC_VARIABLES) delete process.env[name];
  process.env.CHILD_ENVIRONMENT_PROBE = 'inherited';
  const env = await childEnvironment();
  expect(env.get('MALLOC_ARENA_MAX')).toBe(CHILD_MALLOC_ARENA_MAX);
  expect(env.get('MALLOC_MMAP_THRESHOLD_')).toBe(CHILD_MALLOC_MMAP_THRESHOLD);
  expect(env.get('CHILD_ENVIRONMENT_PROBE')).toBe('inherited');
});

test("the caller's own MALLOC_ARENA_MAX wins", async () => {
  process.env.MALLOC_ARENA_MAX = '7';
  expect((await childEnvironment()).get('MALLOC_ARENA_MAX')).toBe('7');
});

test("the caller's own MALLOC_MMAP_THRESHOLD_ wins", async () => {
  process.env.MALLOC_MMAP_THRESHOLD_ = '65536';
  expect((await childEnvironment()).get('MALLOC_MMAP_THRESHOLD_')).toBe('65536');
});
