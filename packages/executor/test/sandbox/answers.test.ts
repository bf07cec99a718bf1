/**
 * Which asynchronous answers cross inline and which the host holds for a synchronous take
 * (src/sandbox/crossing/answers.ts), and that either way a program reads exactly what the host answered.
 */
import { describe, expect, test } from 'vitest';
import {
  HeldAnswers,
  INLINE_ANY_TEXT,
  INLINE_LATIN1_TEXT,
  inlineOrHeld,
} from '../../src/sandbox/crossing/answers.ts';
import { LOAD_FAILURE_MESSAGE_LIMIT, loadFailureMessage } from '../../src/sandbox/modules/loader.ts';
import { useSandbox } from '../helpers.ts';

const sandbox = useSandbox();

describe('inlineOrHeld', () => {
  test('texts short in any representation cross as they are; longer ones are held under a number', () => {
    const held = new HeldAnswers<string>();
    const short = '\u4e00'.repeat(INLINE_ANY_TEXT);
    expect(inlineOrHeld(short, held)).toBe(short);
    const latin1 = '\u00e9'.repeat(INLINE_LATIN1_TEXT);
    expect(inlineOrHeld(latin1, held)).toBe(latin1);
    const twoByte = '\u4e00'.repeat(INLINE_ANY_TEXT + 1);
    const id = inlineOrHeld(twoByte, held);
    expect(typeof id).toBe('number');
    expect(inlineOrHeld('x'.repeat(INLINE_LATIN1_TEXT + 1), held)).toBeTypeOf('number');
    expect(held.size).toBe(2);
    expect(held.take(id)).toBe(twoByte);
    // Taken once: the host keeps nothing after the take.
    expect(held.take(id)).toBeUndefined();
    expect(held.take(String(id))).toBeUndefined();
    expect(held.size).toBe(1);
  });
});

describe('tool results on either side of the thresholds', () => {
  // A result's frame is its text and 13 characters ('r{"result":"' and '"}'), a failure's its
  // message and one ('t'): these lengths put each kind of frame on both sides of each threshold.
  const lengths = [0, 1, 70_000].concat(
    [INLINE_ANY_TEXT, INLINE_LATIN1_TEXT].flatMap((limit) => [limit - 13, limit - 12, limit - 1, limit]),
  );
  for (const [kind, unit] of [
    ['ASCII', 'a'],
    ['Latin-1', '\u00fe'],
    ['two-byte', '\u4e00'],
    ['astral', '\u{1f600}'],
  ] as const) {
    test(`${kind} results and failures arrive exactly as answered`, async () => {
      const text = (length: number) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
      const envelope = await sandbox.execute({
        code: `async () => {
          const lengths = ${JSON.stringify(lengths)};
          const read = [];
          for (const length of lengths) {
            read.push(await t.echo(length));
            read.push(await t.fail(length).catch((error) => error.message));
          }
          return read;
        }`,
        providers: [{ name: 't' }],
        dispatch: async (_provider, tool, argsJson) => {
          const [length] = JSON.parse(argsJson) as [number];
          if (tool === 'fail') throw new Error(text(length));
          return JSON.stringify({ result: text(length) });
        },
      });
      expect(envelope.error).toBeUndefined();
      expect(envelope.result).toStrictEqual(lengths.flatMap((length) => [text(length), text(length)]));
    });
  }
});

describe('import() failures', () => {
  test('a failure message crosses whole up to the limit, in frames held or inline, and is cut past it', async () => {
    const lengths = [10, 600, LOAD_FAILURE_MESSAGE_LIMIT, LOAD_FAILURE_MESSAGE_LIMIT + 1, 3 * 2 ** 20];
    const envelope = await sandbox.execute({
      code: `async () => {
        const read = [];
        for (let i = 0; i < ${lengths.length}; i++) read.push(await import('./m' + i + '.js').catch((error) => [error.name, error.message]));
        // The outcome is cached per module: a second import reads the same failure.
        read.push(await import('./m4.js').catch((error) => error.message.length));
        return read;
      }`,
      modules: Object.fromEntries(
        lengths.map((length, i) => [`m${i}.js`, `throw new RangeError('\\u4e00'.repeat(${length}));`]),
      ),
    });
    const cut = loadFailureMessage('\u4e00'.repeat(3 * 2 ** 20));
    expect(cut).toBe(
      `${'\u4e00'.repeat(LOAD_FAILURE_MESSAGE_LIMIT)}… (${3 * 2 ** 20 - LOAD_FAILURE_MESSAGE_LIMIT} more characters cut)`,
    );
    expect(envelope.result).toStrictEqual([
      ...lengths.map((length) => ['RangeError', loadFailureMessage('\u4e00'.repeat(length))]),
      cut.length,
    ]);
  });
});
