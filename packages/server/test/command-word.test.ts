/**
 * `codemode-executor serve` reaches this package: the executor's bin loads its `./command` entry
 * (the executor's optional-command.ts), so help and flag errors read as the executor's other
 * commands do, and this package's own bin says the same.
 */
import { spawnSync } from 'node:child_process';
import { unknownOptionMessage } from '@supolka/codemode-executor/cli';
import { describe, expect, test } from 'vitest';
import { expectCompileCacheKept } from '../../executor/test/compile-cache-check.ts';
import { SERVE_USAGE } from '../src/command-line.ts';

const EXECUTOR_BIN = new URL('../../executor/bin/codemode-executor.js', import.meta.url).pathname;
const SERVER_BIN = new URL('../bin/codemode-server.js', import.meta.url).pathname;

function run(bin: string, args: readonly string[]) {
  const child = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { status: child.status, signal: child.signal, stdout: child.stdout, stderr: child.stderr };
}

describe.each([
  ['codemode-executor serve', EXECUTOR_BIN, ['serve']],
  ['codemode-server', SERVER_BIN, []],
])('%s', (_, bin, word) => {
  test('-h prints the options of serve', () => {
    expect(run(bin, [...word, '-h'])).toStrictEqual({
      status: 0,
      signal: null,
      stdout: SERVE_USAGE,
      stderr: '',
    });
  });

  test('an option serve does not take names serve, exit 2', () => {
    const child = run(bin, [...word, '--bogus']);
    expect(child.status).toBe(2);
    expect(child.stderr).toBe(
      `codemode-executor serve: ${unknownOptionMessage('serve', '--bogus')}\n\n${SERVE_USAGE}`,
    );
  });
});

test('codemode-executor help serve prints the options of serve', () => {
  expect(run(EXECUTOR_BIN, ['help', 'serve'])).toStrictEqual({
    status: 0,
    signal: null,
    stdout: SERVE_USAGE,
    stderr: '',
  });
});

describe("Node's compile cache (the executor's src/cache/compile-cache.ts)", () => {
  test.each([
    ['codemode-executor serve', EXECUTOR_BIN, ['serve']],
    ['codemode-server', SERVER_BIN, []],
  ])('%s keeps what Node compiled for it, and the next run reads it back', (_name, bin, word) => {
    expectCompileCacheKept(bin, [...word, '-h'], /\/packages\/server\/dist\/bundle\/chunk-\w+\.js /);
  });
});
