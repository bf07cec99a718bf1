/**
 * The pause signal (pause-signal.ts) and how a dispatch treats it: recognised by its registered
 * mark, passed through a dispatch that asks for it (the client's), and turned into the tool's
 * error envelope by one that does not (IsolateExecutor's), as any throw is.
 */
import { describe, expect, test } from 'vitest';
import { pause } from './client/durable-call.ts';
import { parseForDispatch } from './codec.ts';
import { buildDispatch } from './host-part.ts';
import { PAUSE_REASON_LIMIT } from './limits.ts';
import { isPauseSignal, NOT_DURABLE_PAUSE_MESSAGE, type PauseSignal } from './pause-signal.ts';

const providers = [{ name: 'api', fns: { approve: () => pause({ step: 1 }, { reason: 'approval' }) } }];

describe('the pause signal', () => {
  test('is recognised by its mark, and carries the reason (cut) and the data', () => {
    let thrown: unknown;
    try {
      pause({ a: 1 }, { reason: 'x'.repeat(PAUSE_REASON_LIMIT + 10) });
    } catch (error) {
      thrown = error;
    }
    expect(isPauseSignal(thrown)).toBe(true);
    expect((thrown as PauseSignal).reason).toHaveLength(PAUSE_REASON_LIMIT);
    expect((thrown as PauseSignal).data).toStrictEqual({ a: 1 });
    expect((thrown as Error).message).toBe(NOT_DURABLE_PAUSE_MESSAGE);
    expect(isPauseSignal(new Error('pause'))).toBe(false);
    expect(isPauseSignal({ name: 'PauseSignal' })).toBe(false);
  });

  test("leaves a dispatch that passes it through as the throw, and another as the tool's error envelope", async () => {
    const passing = buildDispatch(providers, undefined, isPauseSignal);
    await expect(passing?.('api', 'approve', '[]')).rejects.toSatisfy(isPauseSignal);
    const plain = buildDispatch(providers, undefined);
    expect(parseForDispatch((await plain?.('api', 'approve', '[]')) as string)).toStrictEqual({
      error: NOT_DURABLE_PAUSE_MESSAGE,
    });
  });
});
