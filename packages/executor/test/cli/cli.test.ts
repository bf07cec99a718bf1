/**
 * `codemode-executor` as a user runs it: the committed bin, loading the build, in a process of its
 * own: the envelope printed, the exit code following it, the flags reaching the request, a tools
 * module, and usage errors.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryLimitMessage } from '@supolka/codemode-protocol';
import { afterAll, describe, expect, test } from 'vitest';
import {
  missingValueMessage,
  NO_COMMAND_MESSAGE,
  noValueMessage,
  unknownCommandMessage,
  unknownOptionMessage,
} from '../../src/cli/args.ts';
import { executionPastWallClockMessage } from '../../src/executor/wall-clock.ts';

const main = new URL('../../bin/codemode-executor.js', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'codemode-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function cli(...args: string[]) {
  const run = spawnSync(process.execPath, [main, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('codemode-executor run', () => {
  test('prints the envelope and exits 0 for a result, with the built-in example tools', () => {
    const program = file(
      'ok.js',
      `async () => ({ sum: await math.add(1, 2, 3), first: (await notes.list())[0] })\n`,
    );
    expect(cli('run', program)).toStrictEqual({
      status: 0,
      stdout: "{ result: { sum: 6, first: 'groceries' }, logs: [] }\n",
      stderr: '',
    });
  });

  test('exits 1 for an error envelope, still printing it', () => {
    const program = file(
      'throws.js',
      `async () => { console.error('about to fail'); await notes.read('missing') }`,
    );
    const run = cli('run', program);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe(
      "{\n  result: undefined,\n  error: 'No note is named missing.',\n  logs: [ { level: 'error', text: 'about to fail' } ],\n  errorKind: 'tool-failed',\n  errorName: 'Error',\n  errorProvider: 'notes',\n  errorTool: 'read',\n  errorAt: 'executor.js:1:59'\n}\n",
    );
  });

  test('--timeout and --memory reach the request', () => {
    const spin = file('spin.js', 'async () => new Promise(() => {})');
    const timedOut = cli('run', spin, '--timeout', '150');
    expect(timedOut.status).toBe(1);
    expect(timedOut.stdout).toContain("error: 'Execution timed out at its 150 ms bound.");
    expect(timedOut.stdout).toContain("code: 'TIMEOUT'");
    const hog = file('hog.js', 'async () => { const held = []; for (;;) held.push(new Array(1e5).fill(1)) }');
    const killed = cli('run', hog, '--memory', '16');
    expect(killed.status).toBe(1);
    expect(killed.stdout).toContain(`error: '${memoryLimitMessage(16)}'`);
    expect(killed.stdout).toContain("code: 'MEMORY_LIMIT'");
  });

  test('--outbound disabled is the default; native has the child perform fetch, never toward link-local', () => {
    const program = file(
      'fetch.js',
      `async () => fetch('http://169.254.169.254/').then(() => 'reached', (error) => error.message)`,
    );
    const disabled =
      "{\n  result: 'Outbound network access is disabled for this execution, so fetch cannot reach the network.',\n  logs: []\n}\n";
    expect(cli('run', program).stdout).toBe(disabled);
    expect(cli('run', program, '--outbound', 'disabled').stdout).toBe(disabled);
    expect(cli('run', program, '--outbound', 'native').stdout).toBe(
      '{\n  result: "Outbound requests to link-local addresses are refused (169.254.169.254); the executor\'s allowLinkLocal option permits them.",\n  logs: []\n}\n',
    );
  });

  test("--console-format inspect writes console lines as workerd's console does; string is the default", () => {
    const program = file('console.js', `console.log('m', new Map([[1, 2]]), { a: [1] }); return 1;`);
    const lines = (...flags: string[]) => JSON.parse(cli('run', program, '--json', ...flags).stdout).logs;
    const asStrings = [{ level: 'log', text: 'm [object Map] [object Object]' }];
    expect(lines()).toStrictEqual(asStrings);
    expect(lines('--console-format', 'string')).toStrictEqual(asStrings);
    expect(lines('--console-format', 'inspect')).toStrictEqual([
      { level: 'log', text: 'm Map(1) { 1 => 2 } { a: [ 1 ] }' },
    ]);
  });

  test('--tools names a module of providers, as a list or as an object of namespaces', () => {
    const listed = file(
      'listed.mjs',
      `export default [{ name: 'kv', fns: { get: (key) => 'value of ' + key } }]`,
    );
    const program = file('kv.js', `async () => kv.get('a')`);
    expect(cli('run', program, '--tools', listed).stdout).toBe("{ result: 'value of a', logs: [] }\n");
    const object = file('object.mjs', `export default { kv: { get: (key) => key.toUpperCase() } }`);
    expect(cli('run', program, '--tools', object).stdout).toBe("{ result: 'A', logs: [] }\n");
  });

  test('--wall-clock-limit ends a run parked on a tool that never answers, with TIMEOUT, and the process exits', () => {
    const tools = file('hang.mjs', `export default { kv: { hang: () => new Promise(() => {}) } }`);
    const program = file('hang.js', `async () => kv.hang()`);
    const run = cli(
      'run',
      program,
      '--tools',
      tools,
      '--timeout',
      '1000',
      '--wall-clock-limit',
      '3000',
      '--json',
    );
    expect(run.status).toBe(1);
    const envelope = JSON.parse(run.stdout);
    expect(envelope).toMatchObject({ code: 'TIMEOUT', logs: [] });
    // The bound counts the child's start too, so on a slow machine the tool may not yet be called.
    expect([
      executionPastWallClockMessage(3000, 'tool call kv.hang', 0),
      executionPastWallClockMessage(3000, undefined, 0),
    ]).toContain(envelope.error);
    expect(cli('run', program, '--wall-clock-limit', '0').stderr).toContain(
      `--wall-clock-limit must be from 1 to 2147483647 ms; got '0'.`,
    );
  });

  test.each([
    [[], NO_COMMAND_MESSAGE],
    [['go', 'x.js'], unknownCommandMessage('go')],
    [['run'], 'run needs the FILE of the program to run.'],
    [['run', '/nonexistent/program.js'], 'Cannot read /nonexistent/program.js: ENOENT.'],
    [
      ['run', main, '--tools', '/nonexistent/tools.mjs'],
      '--tools /nonexistent/tools.mjs could not be loaded: ',
    ],
    [['run', 'x.js', '--timeout', '5s'], "--timeout must be a whole number; got '5s'."],
    // Whole numbers outside what the executor takes: before, an error envelope and exit 1.
    [['run', 'x.js', '--timeout', '0'], "--timeout must be from 1 to 2147483647 ms; got '0'."],
    [
      ['run', 'x.js', '--timeout', '2147483648'],
      "--timeout must be from 1 to 2147483647 ms; got '2147483648'.",
    ],
    [['run', 'x.js', '--memory', '0'], "--memory must be from 8 to 4096 MB; got '0'."],
    [['run', 'x.js', '--memory', '4097'], "--memory must be from 8 to 4096 MB; got '4097'."],
    [['run', 'x.js', '--outbound', 'proxied'], "--outbound must be disabled or native; got 'proxied'."],
    [
      ['run', 'x.js', '--console-format', 'pretty'],
      "--console-format must be string or inspect; got 'pretty'.",
    ],
    [['run', 'x.js', '--bogus'], unknownOptionMessage('run', '--bogus')],
    [['run', 'x.js', '--tools'], missingValueMessage('--tools')],
    [['run', 'x.js', '--json=yes'], noValueMessage('--json')],
  ])('%j is a usage error: exit 2 naming what is wrong', (args, message) => {
    const run = cli(...args);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`codemode-executor: ${message}`);
    expect(run.stderr).toContain('Usage: codemode-executor run FILE [options]');
  });

  test('--help prints the usage and exits 0', () => {
    const run = cli('--help');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^Usage: codemode-executor run FILE/);
  });
});
