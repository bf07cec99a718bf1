/**
 * import() as a hostile program uses it, through the loader fallback (the path every engine takes
 * today; adr/0002): in a loop that never yields, in thousands of awaited failures, with a
 * specifier of tens of megabytes, past the bound of loads in flight, and after the run returned.
 * Each run ends within its bounds, and the sandbox serves the next run.
 */
import { IN_FLIGHT_CALL_LIMIT, moduleNotFoundMessage } from '@supolka/codemode-protocol';
import { describe, expect, test } from 'vitest';
import { assertEngineServesSandbox } from '../../src/sandbox/isolate.ts';
import { IMPORTS_IN_FLIGHT_MESSAGE, LOAD_FAILURE_MESSAGE_LIMIT } from '../../src/sandbox/modules/loader.ts';
import { useSandbox } from '../helpers.ts';

const sandbox = useSandbox({ engine: await assertEngineServesSandbox() });

describe('import() through the loader fallback', () => {
  const lib = { 'lib.js': 'export const answer = 42' };
  const serves = async () => {
    const next = await sandbox.execute({
      modules: lib,
      code: `async () => (await import('./lib.js')).answer`,
    });
    expect(next).toStrictEqual({ result: 42, logs: [] });
  };

  test('in a loop that never yields, the run bound ends the run and the next run is served', async () => {
    const envelope = await sandbox.execute({
      modules: lib,
      timeout: 300,
      code: `async () => { for (;;) { import('./lib.js'); import('./missing.js').catch(() => {}) } }`,
    });
    expect(envelope.code).toBe('TIMEOUT');
    await serves();
  });

  test('past IN_FLIGHT_CALL_LIMIT loads waiting at once, import() is refused inside the isolate', async () => {
    const envelope = await sandbox.execute({
      modules: lib,
      code: `async () => {
  const settled = await Promise.allSettled(Array.from({ length: ${IN_FLIGHT_CALL_LIMIT + 44} }, () => import('./lib.js')));
  const refused = settled.filter((outcome) => outcome.status === 'rejected');
  return [settled.length - refused.length, refused.length, refused[0].reason.message, (await import('./lib.js')).answer];
}`,
    });
    expect(envelope.result).toStrictEqual([IN_FLIGHT_CALL_LIMIT, 44, IMPORTS_IN_FLIGHT_MESSAGE, 42]);
  });

  test('thousands of awaited failures each reject, with the refusal sentence', async () => {
    const envelope = await sandbox.execute({
      modules: lib,
      timeout: 20_000,
      code: `async () => {
  let failed = 0, last;
  for (let i = 0; i < 2000; i++) await import('./missing' + i + '.js').catch((e) => { failed++; last = e.message });
  return [failed, last]
}`,
    });
    expect(envelope.result).toStrictEqual([2000, moduleNotFoundMessage('./missing1999.js', 'executor.js')]);
    await serves();
  });

  test('a specifier of megabytes rejects with its message cut at the load bound', async () => {
    // Half the payload limit: past it, the isolate refuses the import before it crosses
    // (host-strings-memory.test.ts).
    const envelope = await sandbox.execute({
      modules: lib,
      memoryLimit: 256,
      code: `async () => {
  const huge = './' + 'x'.repeat(16 * 1024 * 1024);
  return import(huge).then(() => 'loaded', (e) => [e.name, e.message.length, e.message.startsWith("Cannot find module './xxx")])
}`,
    });
    const [name, length, named] = envelope.result as [string, number, boolean];
    expect([name, named]).toStrictEqual(['Error', true]);
    expect(length).toBeLessThan(LOAD_FAILURE_MESSAGE_LIMIT + 100);
    await serves();
  });

  test('an import() the run left pending when it returned reaches nothing of the next run', async () => {
    const envelope = await sandbox.execute({
      modules: { 'late.js': 'globalThis.late = "ran"; export default 1' },
      code: `async () => { Promise.resolve().then(() => import('./late.js')); return 'returned' }`,
    });
    expect(envelope).toStrictEqual({ result: 'returned', logs: [] });
    const next = await sandbox.execute({ code: 'async () => typeof globalThis.late' });
    expect(next).toStrictEqual({ result: 'undefined', logs: [] });
  });
});
