/**
 * `run -` reads the program from standard input, held to what a FILE is held to: the same byte
 * bound (an endless input stops there), the same UTF-8 check, each refusal a sentence naming
 * standard input and exit 2.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { CODE_LIMIT } from '@supolka/codemode-protocol';
import { describe, expect, test } from 'vitest';
import { notUtf8Message, tooLargeMessage } from '../../src/cli/read-text-file.ts';
import { STANDARD_INPUT, unreadableProgramMessage } from '../../src/cli/run.ts';
import { BIN, cli } from './cli-process.ts';

/** The bound a FILE is held to (run.ts): three bytes per CODE_LIMIT character. */
const BYTES_LIMIT = 3 * CODE_LIMIT;

describe('run -', () => {
  test('runs the program standard input holds, statements or an arrow', () => {
    expect(cli(['run', '-'], { input: "console.log('from stdin'); return 6 * 7" })).toStrictEqual({
      status: 0,
      signal: null,
      stdout: "{ result: 42, logs: [ { level: 'log', text: 'from stdin' } ] }\n",
      stderr: '',
    });
    expect(cli(['run', '-', '--json'], { input: 'async () => math.add(1, 2)' }).stdout).toBe(
      '{"result":3,"logs":[]}\n',
    );
  });

  test('names standard input when it holds no program', () => {
    const run = cli(['run', '-'], { input: 'this is not a program (' });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(`codemode-executor: ${unreadableProgramMessage(STANDARD_INPUT)}\n`);
    expect(unreadableProgramMessage(STANDARD_INPUT)).toMatch(/^standard input reads neither as /);
  });

  test.each([
    ['past the bound', 'x'.repeat(BYTES_LIMIT + 1), tooLargeMessage(STANDARD_INPUT, BYTES_LIMIT)],
    ['not UTF-8', Buffer.from([0x72, 0x65, 0xff, 0xfe]), notUtf8Message(STANDARD_INPUT)],
  ])('refuses an input %s with exit 2', (_what, input, message) => {
    const run = cli(['run', '-'], { input });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^codemode-executor: .*\n\nUsage: codemode-executor run FILE/);
    expect(run.stderr.split('\n')[0]).toBe(`codemode-executor: ${message}`);
  });

  test('stops reading an endless input at the bound', () => {
    const zero = openSync('/dev/zero', 'r');
    try {
      const run = spawnSync(process.execPath, [BIN, 'run', '-'], {
        stdio: [zero, 'pipe', 'pipe'],
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect({ status: run.status, signal: run.signal, first: run.stderr.split('\n')[0] }).toStrictEqual({
        status: 2,
        signal: null,
        first: `codemode-executor: ${tooLargeMessage(STANDARD_INPUT, BYTES_LIMIT)}`,
      });
    } finally {
      closeSync(zero);
    }
  });
});
