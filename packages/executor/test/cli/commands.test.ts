/**
 * The first word of the command line: help in its three spellings and per command, --version,
 * and words and options that are no command, each a sentence on stderr and exit 2.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import {
  RUN_USAGE,
  SERVE_USAGE,
  USAGE,
  unknownCommandMessage,
  unknownLeadingOptionMessage,
  unknownOptionMessage,
} from '../../src/cli/args.ts';
import { cli } from './cli-process.ts';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));

describe('help', () => {
  test.each([[['help']], [['--help']], [['-h']], [['help', 'help']]])('%j prints every command', (args) => {
    expect(cli(args)).toStrictEqual({ status: 0, signal: null, stdout: USAGE, stderr: '' });
  });

  test.each([
    [['help', 'run'], RUN_USAGE],
    [['run', '--help'], RUN_USAGE],
    [['help', 'serve'], SERVE_USAGE],
    [['serve', '-h'], SERVE_USAGE],
  ])('%j prints the options of that command', (args, usage) => {
    expect(cli(args)).toStrictEqual({ status: 0, signal: null, stdout: usage, stderr: '' });
  });

  test('the overview names every command, and the run usage every option run takes', () => {
    for (const command of ['run FILE', 'serve', 'help [COMMAND]', '--version']) {
      expect(USAGE).toContain(`codemode-executor ${command}`);
    }
    for (const option of [
      '--tools',
      '--modules',
      '--json',
      '--timeout',
      '--memory',
      '--outbound',
      '--help',
    ]) {
      expect(RUN_USAGE).toMatch(new RegExp(`^  (-\\w, )?${option} `, 'm'));
    }
  });
});

describe('--version', () => {
  test.each([[['--version']], [['-v']]])('%j prints the version of the package', (args) => {
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    expect(cli(args)).toStrictEqual({ status: 0, signal: null, stdout: `${version}\n`, stderr: '' });
  });
});

describe('what is no command is exit 2 and a sentence, then the overview', () => {
  test.each([
    [['bogus'], unknownCommandMessage('bogus')],
    [['help', 'bogus'], unknownCommandMessage('bogus')],
    [['help', '__proto__'], unknownCommandMessage('__proto__')],
    [['--frob'], unknownLeadingOptionMessage('--frob')],
    [['--version', 'run'], '--version takes no arguments; got run.'],
  ])('%j', (args, message) => {
    expect(cli(args)).toStrictEqual({
      status: 2,
      signal: null,
      stdout: '',
      stderr: `codemode-executor: ${message}\n\n${USAGE}`,
    });
  });

  test('an option serve does not take names serve', () => {
    const run = cli(['serve', '--bogus']);
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(
      `codemode-executor serve: ${unknownOptionMessage('serve', '--bogus')}\n\n${SERVE_USAGE}`,
    );
  });
});
