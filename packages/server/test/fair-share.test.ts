/**
 * Connections share the executor's children instead of taking them in arrival order, against a
 * real server with a pool of one: one connection's flood of slow TypeScript reads (each erased in
 * the child, under its run's bound) holds another connection's small program only until the
 * child frees once, not until the whole flood has run.
 */
import { executionTimeoutMessage, faultEnvelope } from '@supolka/codemode-protocol';
import { describe, expect, test, vi } from 'vitest';
import { connect, expectPoolClean, useServer, waitUntil } from './helpers.ts';

vi.setConfig({ testTimeout: 60_000 });

const setup = useServer({ executor: { poolSize: 1 } });

/**
 * amaro reads `a < (b` nested 120 deep for seconds per few lines (test/codemode/normalize-lanes.test.ts);
 * the `let` redeclared on every line makes the engine refuse it, so the child erases it.
 */
const SLOW_TO_ERASE = `async () => {\n${`let x = ${'a < (b'.repeat(120)}${')'.repeat(120)};\n`.repeat(400)}return x;\n}`;

describe('a connection flooding the only child with slow TypeScript reads', () => {
  test("holds another connection's program only until its first read ends", async () => {
    const flooding = await connect(setup.server);
    const other = await connect(setup.server);
    const settled: string[] = [];
    const track = <T>(name: string, execution: Promise<T>) =>
      execution.then((envelope) => {
        settled.push(name);
        return envelope;
      });
    const flood = [1, 2, 3].map((n) =>
      track(`a${n}`, flooding.execute({ code: SLOW_TO_ERASE, typescript: true, timeout: 1500 })),
    );
    // The first read runs in the child and the other two wait, before the other connection asks.
    await waitUntil(() => setup.server.stats().pool.queued === 2, 'two reads wait');
    const small = track('b', other.execute({ code: 'async () => 1' }));
    expect(await small).toStrictEqual({ result: 1, logs: [] });
    for (const envelope of await Promise.all(flood)) {
      expect(envelope).toStrictEqual(faultEnvelope('TIMEOUT', executionTimeoutMessage(1500)));
    }
    // In arrival order b came after a3. Shared, the child went by turns once a1 freed it: to b,
    // which had not been served, then to a again.
    expect(settled).toStrictEqual(['a1', 'b', 'a2', 'a3']);
    await expectPoolClean(setup.server);
  });
});
