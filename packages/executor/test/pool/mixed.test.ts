/**
 * 200 executions through a pool of 2, mixing successes, throws, timeouts and memory kills, all
 * submitted at once. Every one must come back with its own envelope (each program returns, throws
 * or logs its own index, and timeouts and memory limits differ per execution, so the texts name
 * their own bounds), and after dispose no child process and no handle of the pool may remain.
 */
import { executionTimeoutMessage, memoryLimitMessage } from '@supolka/codemode-protocol';
import { expect, test } from 'vitest';
import { Pool } from '../../src/pool/pool.ts';
import type { ExecuteResult } from '../../src/sandbox/sandbox.ts';
import { EventLog, poolOptions, processAlive } from './helpers.ts';

const KINDS = ['success', 'throw', 'timeout', 'memory'] as const;
type Kind = (typeof KINDS)[number];

function program(index: number, kind: Kind) {
  switch (kind) {
    case 'success':
      return { code: `async () => { console.log('run ${index}'); return { index: ${index} } }` };
    case 'throw':
      return { code: `async () => { console.log('run ${index}'); throw new Error('failure ${index}') }` };
    case 'timeout':
      // Spins without yielding: the engine's own timeout ends it at timeout + grace.
      return { code: `async () => { console.log('run ${index}'); for (;;) {} }`, timeout: 100 + index };
    case 'memory':
      return {
        code: `async () => { console.log('run ${index}'); const held = []; for (;;) held.push(new Array(1e5).fill(${index})) }`,
        memoryLimit: 16 + (index % 32),
      };
  }
}

function expected(index: number, kind: Kind): ExecuteResult {
  const logs = [{ level: 'log' as const, text: `run ${index}` }];
  switch (kind) {
    case 'success':
      return { result: { index }, logs };
    case 'throw': {
      // The program's own frame, where it wrote `new Error`, on its one line.
      const column = program(index, kind).code.indexOf('new Error') + 1;
      return {
        result: undefined,
        error: `failure ${index}`,
        errorKind: 'thrown',
        errorName: 'Error',
        errorStack: `    at executor.js:1:${column}`,
        logs,
      };
    }
    case 'timeout':
      return { result: undefined, error: executionTimeoutMessage(100 + index), code: 'TIMEOUT', logs };
    case 'memory':
      return { result: undefined, error: memoryLimitMessage(16 + (index % 32)), code: 'MEMORY_LIMIT', logs };
  }
}

test('200 mixed executions through a pool of 2: each gets its own envelope; nothing leaks after dispose', async () => {
  const baseline = resourceCounts();
  const log = new EventLog();
  const pool = new Pool(poolOptions({ size: 2, queueLimit: 200, grace: 100, onEvent: log.record }));
  const kinds = Array.from({ length: 200 }, (_, index) => KINDS[(index * 7) % 4] as Kind);
  const envelopes = await Promise.all(kinds.map((kind, index) => pool.execute(program(index, kind))));
  for (const [index, kind] of kinds.entries()) {
    expect(envelopes[index], `execution ${index} (${kind})`).toStrictEqual(expected(index, kind));
  }
  // No child died on the way: every ending above was an isolate's, inside its child.
  expect(log.events.filter((event) => event.type === 'exited')).toStrictEqual([]);

  await pool.dispose();
  const pids = log.pids('spawned');
  expect(pids).toHaveLength(2);
  for (const pid of pids) expect(processAlive(pid), `child ${pid}`).toBe(false);
  const after = resourceCounts();
  for (const kind of ['ProcessWrap', 'PipeWrap', 'Timeout'] as const) {
    expect(after[kind] ?? 0, kind).toBeLessThanOrEqual(baseline[kind] ?? 0);
  }
}, 120_000);

function resourceCounts(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const resource of process.getActiveResourcesInfo()) counts[resource] = (counts[resource] ?? 0) + 1;
  return counts;
}
