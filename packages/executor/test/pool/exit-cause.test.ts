/**
 * What the pool quotes of a child that ended on an uncaught error: the error Node reported, with
 * the lines its message continues on, and neither the throwing source line Node prints before it
 * nor the `Node.js v…` line it prints after every such report. The stderr is a real Node's.
 */
import { spawnSync } from 'node:child_process';
import { expect, test } from 'vitest';
import { describeEnd } from '../../src/pool/exit-cause.ts';

function endOf(source: string) {
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', source], { encoding: 'utf8' });
  return { code: run.status, signal: run.signal, stderr: run.stderr };
}

test('an uncaught error is quoted from its first line to its stack, not by the version line Node ends with', () => {
  const end = endOf(
    `const error = new TypeError('the first line\\nand the second'); error.code = 'E_X'; throw error;`,
  );
  expect(end.stderr.trim().split('\n').at(-1)).toBe(`Node.js ${process.version}`);
  expect(describeEnd(end)).toBe(
    'its process exited with code 1 after writing: TypeError: the first line and the second',
  );
});

test('the first of two errors written is the one quoted', () => {
  const end = endOf(`console.error(new RangeError('written first')); throw new Error('thrown after');`);
  expect(describeEnd(end)).toBe('its process exited with code 1 after writing: RangeError: written first');
});

test('with no error in it, the last line Node did not add is quoted', () => {
  const end = endOf(`console.error('plain words'); process.exit(3);`);
  expect(describeEnd(end)).toBe('its process exited with code 3 after writing: plain words');
});
