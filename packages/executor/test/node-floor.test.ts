import { execFileSync } from 'node:child_process';
import ivm from 'isolated-vm';
import { expect, test } from 'vitest';

const major = (version: string) => Number(version.replace(/^v/, '').split('.')[0]);

test('the tests run under Node 24 or newer', () => {
  console.log(`tests run under node ${process.version} (${process.execPath})`);
  expect(major(process.version)).toBeGreaterThanOrEqual(24);
});

test('a child forked the way the pool forks runs under the same Node', () => {
  const version = execFileSync(process.execPath, ['--no-node-snapshot', '-p', 'process.version'], {
    encoding: 'utf8',
  }).trim();
  expect(version).toBe(process.version);
});

test('isolated-vm loads its shipped binary and runs an isolate in this process', () => {
  const isolate = new ivm.Isolate({ memoryLimit: 8 });
  try {
    expect(isolate.compileScriptSync('6 * 7').runSync(isolate.createContextSync())).toBe(42);
  } finally {
    isolate.dispose();
  }
});
