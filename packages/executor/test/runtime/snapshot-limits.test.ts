/**
 * Restoring an isolate from the startup snapshot must never take the host down. isolated-vm
 * checks an allocation made while a snapshot is deserialized against the heap of whichever
 * isolate is current, which during construction is the host's own: with a host heap larger than
 * the new isolate's limit, a backing store the snapshot holds (any typed array over 64 bytes,
 * V8 keeps smaller ones on its heap) is refused, and V8 aborts the process. So the runtime builds
 * no such buffer while its bundle loads. The check runs in a child process, because the failure
 * it guards against is an abort.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const probe = `
import ivm from 'isolated-vm';
import { readRuntimeSnapshot } from ${JSON.stringify(fileURLToPath(new URL('../../src/sandbox/runtime.ts', import.meta.url)))};
const snapshot = readRuntimeSnapshot();
const ballast = [];
for (let i = 0; i < 400; i++) ballast.push(new Array(100000).fill(i));
for (let i = 0; i < 3; i++) {
  const isolate = new ivm.Isolate({ memoryLimit: 8, snapshot });
  isolate.createContextSync();
  isolate.dispose();
}
console.log('restored under host heap pressure, limit 8 MB');
`;

test('an 8 MB isolate restores from the snapshot while the host heap holds hundreds of MB', () => {
  const output = execFileSync(process.execPath, ['--no-node-snapshot', '--input-type=module', '-e', probe], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  expect(output.trim()).toBe('restored under host heap pressure, limit 8 MB');
});
