/**
 * The first word of the command line: help in its three spellings and per command, --version,
 * and words and options that are no command, each a sentence on stderr and exit 2. `serve` and
 * `mcp` come from their own packages: their help and errors are tested there
 * (packages/server/test/command-word.test.ts, packages/mcp/test/config.test.ts), and the sentence
 * an install without them prints, by the pack test.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { RUN_USAGE, USAGE, unknownCommandMessage, unknownLeadingOptionMessage } from '../../src/cli/args.ts';
import { BIN, cli } from './cli-process.ts';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));

describe('help', () => {
  test.each([[['help']], [['--help']], [['-h']], [['help', 'help']]])('%j prints every command', (args) => {
    expect(cli(args)).toStrictEqual({ status: 0, signal: null, stdout: USAGE, stderr: '' });
  });

  test.each([
    [['help', 'run'], RUN_USAGE],
    [['run', '--help'], RUN_USAGE],
    // The flag before the command reads as help does: it printed the overview before.
    [['-h', 'run'], RUN_USAGE],
    [['--help', 'run'], RUN_USAGE],
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
      '--stream',
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
    [['-h', 'bogus'], unknownCommandMessage('bogus')],
    [['--help', 'run', 'serve'], 'help takes one COMMAND; also got serve.'],
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
});

describe('the bin', () => {
  // pnpm links a workspace package's bins at install, before any build: a bin under dist/ made
  // every fresh install warn twice that it could not create the link.
  test('is a committed file, there before anything is built, and it is the one these tests run', () => {
    const { bin } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(bin).toStrictEqual({ 'codemode-executor': './bin/codemode-executor.js' });
    const listed = execFileSync('git', ['ls-files', '--stage', 'bin/codemode-executor.js'], {
      cwd: new URL('../..', import.meta.url).pathname,
      encoding: 'utf8',
    });
    expect(listed).toMatch(/^100755 [0-9a-f]+ 0\tbin\/codemode-executor\.js\n$/);
    expect(BIN.endsWith('/bin/codemode-executor.js')).toBe(true);
  });
});
