/** Timers inside the isolate, as installTimers publishes them over the host TimerRegistry. */
import { timerCallbackMessage } from '@supolka/codemode-protocol';
import { describe, expect, test } from 'vitest';
import { TimerRegistry } from '../../src/sandbox/timers.ts';
import { useSandbox } from '../helpers.ts';

const sandbox = useSandbox();
const run = async (code: string) => (await sandbox.execute({ code })).result;

describe('timers', () => {
  test('callbacks run in the order of their expiry, equal delays in the order they were set', async () => {
    expect(
      await run(`async () => {
  const order = [];
  await new Promise((resolve) => {
    // Each timer reaches the host in a call of its own, so the gaps between delays are wide
    // enough that one set later cannot overtake one set before it on a loaded machine.
    setTimeout(() => order.push('b80'), 80);
    setTimeout(() => order.push('a0'), 0);
    setTimeout(() => order.push('c0'), 0);
    setTimeout(() => order.push('d40'), 40);
    setTimeout(() => { order.push('e120'); resolve(); }, 120);
  });
  return order;
}`),
    ).toStrictEqual(['a0', 'c0', 'd40', 'b80', 'e120']);
  });

  test('one id space: clearInterval cancels a timeout and clearTimeout an interval', async () => {
    expect(
      await run(`async () => {
  const fired = [];
  const timeout = setTimeout(() => fired.push('timeout'), 5);
  // The interval's second run is waited for, not a time in which two should fit.
  let runs = 0;
  let second = () => {};
  const twice = new Promise((resolve) => { second = resolve });
  const interval = setInterval(() => { fired.push('interval'); if (++runs === 2) second() }, 2);
  clearInterval(timeout);
  await Promise.all([twice, new Promise((resolve) => setTimeout(resolve, 12))]);
  clearTimeout(interval);
  const count = fired.length;
  await new Promise((resolve) => setTimeout(resolve, 10));
  return [typeof timeout, interval > timeout, fired.includes('timeout'), count > 1, fired.length === count];
}`),
    ).toStrictEqual(['number', true, false, true, true]);
  });

  test('extra arguments reach the callback', async () => {
    expect(
      await run(`async () => new Promise((resolve) => setTimeout((a, b) => resolve([a, b]), 0, 'A', 'B'))`),
    ).toStrictEqual(['A', 'B']);
  });

  test('a callback that is not a function is refused with workerd text, before anything is scheduled', async () => {
    expect(
      await run(`async () => {
  const texts = [];
  for (const bad of ['1+1', undefined, {}]) {
    try { setTimeout(bad, 0) } catch (e) { texts.push(e.constructor.name + ': ' + e.message) }
  }
  try { setInterval('x', 0) } catch (e) { texts.push(e.message) }
  return texts;
}`),
    ).toStrictEqual([
      `TypeError: ${timerCallbackMessage('setTimeout')}`,
      `TypeError: ${timerCallbackMessage('setTimeout')}`,
      `TypeError: ${timerCallbackMessage('setTimeout')}`,
      timerCallbackMessage('setInterval'),
    ]);
  });

  test('delays: non-numeric collapse to zero, strings and objects coerce, BigInt and Symbol throw', async () => {
    expect(
      await run(`async () => {
  const fired = [];
  await new Promise((resolve) => {
    setTimeout(() => fired.push('nan'), NaN);
    setTimeout(() => fired.push('neg'), -5);
    setTimeout(() => fired.push('str'), '3');
    setTimeout(() => fired.push('obj'), { valueOf: () => 6 });
    setTimeout(resolve, 12);
  });
  const throws = [];
  for (const bad of [5n, Symbol()]) try { setTimeout(() => {}, bad) } catch (e) { throws.push(e.constructor.name) }
  return [fired, throws];
}`),
    ).toStrictEqual([
      ['nan', 'neg', 'str', 'obj'],
      ['TypeError', 'TypeError'],
    ]);
  });

  test('an interval schedules its next run before it calls back, so a throwing callback does not end it', async () => {
    // Waits for the third run itself, not for a time in which three should fit: an interval that
    // stopped at its first throw ends the run at its bound instead.
    const envelope = await sandbox.execute({
      timeout: 5000,
      code: `async () => {
  let runs = 0;
  let third = () => {};
  const reached = new Promise((resolve) => { third = resolve });
  const id = setInterval(() => { runs++; if (runs === 3) third(); throw new Error('tick ' + runs) }, 1);
  await reached;
  clearInterval(id);
  return runs;
}`,
    });
    expect(envelope.result).toBe(3);
    expect(envelope.logs).toStrictEqual(
      [1, 2, 3].map((run) => ({ level: 'error', text: `Uncaught Error: tick ${run}` })),
    );
  });

  test('callbacks behind a throwing callback still run', async () => {
    expect(
      await run(`async () => new Promise((resolve) => {
  const order = [];
  setTimeout(() => { order.push(1); throw new Error('first') }, 0);
  setTimeout(() => order.push(2), 0);
  setTimeout(() => resolve(order), 1);
})`),
    ).toStrictEqual([1, 2]);
  });

  test('clearTimeout with no argument is refused as workerd refuses it; a bogus id is ignored', async () => {
    expect(
      await run(
        `async () => { clearTimeout('bogus'); clearTimeout({}); try { clearTimeout() } catch (e) { return e.message } }`,
      ),
    ).toBe(
      "Failed to execute 'clearTimeout' on 'ServiceWorkerGlobalScope': parameter 1 is not of type 'Number'.",
    );
  });
});

describe('queueMicrotask', () => {
  test('is the timer module version: it runs before any timer and reports nothing when it throws', async () => {
    const envelope = await sandbox.execute({
      code: `async () => {
  const order = [];
  setTimeout(() => order.push('timer'), 0);
  queueMicrotask(() => { order.push('micro'); throw new Error('swallowed') });
  queueMicrotask(() => order.push('micro 2'));
  await new Promise((resolve) => setTimeout(resolve, 2));
  let refused;
  try { queueMicrotask(5) } catch (e) { refused = e.message }
  return [order, refused];
}`,
    });
    expect(envelope).toStrictEqual({
      result: [
        ['micro', 'micro 2', 'timer'],
        "Failed to execute 'queueMicrotask' on 'ServiceWorkerGlobalScope': parameter 1 is not of type 'function'.",
      ],
      logs: [],
    });
  });
});

describe('TimerRegistry', () => {
  test('delay resolves with the count of expiries, in the order they were set for equal delays', async () => {
    const registry = new TimerRegistry();
    const counts = await Promise.all([registry.delay(5), registry.delay(5), registry.delay(0)]);
    expect(counts).toStrictEqual([2, 3, 1]);
  });

  test('clamps into [0, MAX_DELAY] and after cancelAll never sets a timer again', async () => {
    const registry = new TimerRegistry();
    const far = registry.delay(Number.POSITIVE_INFINITY);
    const negative = registry.delay(-10);
    expect(await negative).toBe(1);
    expect(registry.pending).toBe(1);
    registry.cancelAll();
    expect(registry.pending).toBe(0);
    const after = registry.delay(0);
    const settled = await Promise.race([
      after.then(() => 'settled'),
      new Promise((resolve) => setTimeout(() => resolve('pending'), 20)),
    ]);
    expect(settled).toBe('pending');
    void far;
  });

  test('a run that ends cancels its timers: no callback runs in a disposed isolate', async () => {
    const envelope = await sandbox.execute({
      code: `async () => { setTimeout(() => console.log('late'), 20); return 'done' }`,
    });
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(envelope).toStrictEqual({ result: 'done', logs: [] });
  });
});

test('timers flood: the pending-timer bound holds and names itself', async () => {
  const envelope = await sandbox.execute({
    code: `async () => { try { for (let i = 0; i < 20000; i++) setTimeout(() => {}, 60000) } catch (e) { return e.message } }`,
  });
  expect(envelope.result).toBe('Too many timers are pending: one execution may have at most 10000 at once.');
});
