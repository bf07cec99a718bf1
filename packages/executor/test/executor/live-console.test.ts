/**
 * The live console of an execution (ExecuteOptions.onConsole) through real children: lines reach
 * the caller in batches while the run still goes, every one also in the envelope's logs, within
 * the console capture bound; a callback that throws, rejects or never settles harms nothing.
 */
import { CONSOLE_CAPTURE_LIMIT, type LogLine } from '@supolka/codemode-protocol';
import { afterAll, describe, expect, test } from 'vitest';
import { IsolateExecutor } from '../../src/executor/isolate-executor.ts';
import { CONSOLE_CAPTURE_MESSAGE } from '../../src/sandbox/console.ts';

const executor = new IsolateExecutor({ poolSize: 1, timeout: 10_000 });
afterAll(() => executor.dispose());

describe('onConsole', () => {
  test('hears lines while the run goes, before its result', async () => {
    const heard: LogLine[] = [];
    const firstHeard = Promise.withResolvers<void>();
    const envelope = await executor.execute(
      {
        code: `async () => {
          console.log('started', 1);
          console.warn('careful');
          // The caller answers only once it heard the lines above: they crossed while the run waits.
          await t.afterHeard();
          console.error('done');
          return 'ok';
        }`,
        providers: [{ name: 't', fns: { afterHeard: () => firstHeard.promise } }],
      },
      {
        onConsole: (lines) => {
          heard.push(...lines);
          if (heard.length >= 2) firstHeard.resolve();
        },
      },
    );
    expect(envelope).toStrictEqual({
      result: 'ok',
      logs: [
        { level: 'log', text: 'started 1' },
        { level: 'warn', text: 'careful' },
        { level: 'error', text: 'done' },
      ],
    });
    // Everything was heard, in order, before execute resolved.
    expect(heard).toStrictEqual(envelope.logs);
  });

  test('the capture bound holds: what is heard is what the envelope keeps, its closing warning too', async () => {
    const heard: LogLine[] = [];
    const batches: number[] = [];
    const envelope = await executor.execute(
      {
        code: `async () => { const line = 'x'.repeat(1000); for (let i = 0; i < 5000; i++) console.log(line) }`,
      },
      {
        onConsole: (lines) => {
          batches.push(lines.length);
          heard.push(...lines);
        },
      },
    );
    expect(envelope.logs.at(-1)).toStrictEqual({ level: 'warn', text: CONSOLE_CAPTURE_MESSAGE });
    expect(envelope.logs.length).toBeLessThan(CONSOLE_CAPTURE_LIMIT / 1000);
    expect(heard).toStrictEqual(envelope.logs);
    // Batched in the child: fewer messages than lines.
    expect(batches.length).toBeLessThan(heard.length);
  });

  test.each([
    [
      'throws',
      () => {
        throw new Error('the callback broke');
      },
    ],
    ['rejects', () => Promise.reject(new Error('the callback broke'))],
    ['never settles', () => new Promise(() => {})],
  ])('a callback that %s changes nothing for the run', async (_, onConsole) => {
    const envelope = await executor.execute(
      {
        code: `async () => { console.log('a'); await t.wait(); console.log('b'); return 1 }`,
        providers: [{ name: 't', fns: { wait: () => new Promise((resolve) => setTimeout(resolve, 60)) } }],
      },
      { onConsole },
    );
    expect(envelope).toStrictEqual({
      result: 1,
      logs: [
        { level: 'log', text: 'a' },
        { level: 'log', text: 'b' },
      ],
    });
  });

  test('a callback that is no function is a bad request', async () => {
    const envelope = await executor.execute({ code: 'async () => 1' }, { onConsole: 'yes' as never });
    expect(envelope).toMatchObject({ code: 'BAD_REQUEST', error: 'options.onConsole must be a function.' });
  });
});
