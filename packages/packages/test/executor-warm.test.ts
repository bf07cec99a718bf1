/**
 * IsolateExecutor's warmPackages option, through its pool: which packages a child holds ready in
 * the isolate it prepares for its next run. A program sees it as the packages' registry being in
 * its isolate before it imports anything; each probe waits for the child to report its next
 * isolate prepared, so it meets the isolate the setting made.
 */
import { join } from 'node:path';
import { IsolateExecutor } from '@supolka/codemode-executor';
import { afterAll, expect, test, vi } from 'vitest';

const here = join(import.meta.dirname, '..');
const executors: IsolateExecutor[] = [];
afterAll(() => Promise.all(executors.map((executor) => executor.dispose())));

const REGISTRY = `async () => typeof globalThis[Symbol.for('codemode.packages')]`;

/** What two programs that import nothing find, after one that imports zod, under `warmPackages`. */
async function registryAfterImport(warmPackages: boolean | number | undefined): Promise<unknown[]> {
  const executor = new IsolateExecutor({
    poolSize: 1,
    packages: ['zod'],
    packagesBase: here,
    ...(warmPackages !== undefined ? { warmPackages } : {}),
  });
  executors.push(executor);
  expect(await executor.execute({ code: `import { z } from 'zod'\nasync () => typeof z` })).toStrictEqual({
    result: 'object',
    logs: [],
  });
  const found: unknown[] = [];
  for (let probe = 0; probe < 2; probe++) {
    await vi.waitFor(() => expect(executor.stats().children[0]?.prepared).toBe(true), {
      timeout: 30_000,
      interval: 10,
    });
    found.push((await executor.execute({ code: REGISTRY })).result);
  }
  return found;
}

test('by default, the packages recent runs imported are held ready', async () => {
  expect(await registryAfterImport(undefined)).toStrictEqual(['object', 'object']);
});

test('warmPackages 1 holds ready only what the latest run imported', async () => {
  expect(await registryAfterImport(1)).toStrictEqual(['object', 'undefined']);
});

test('warmPackages false holds nothing ready', async () => {
  expect(await registryAfterImport(false)).toStrictEqual(['undefined', 'undefined']);
});

test('warmPackages 0 is false', async () => {
  expect(await registryAfterImport(0)).toStrictEqual(['undefined', 'undefined']);
});
