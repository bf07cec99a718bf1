/**
 * The runnable examples under examples/ print exactly their expected output: the sandbox specification's
 * examples through IsolateExecutor, imported by the package name from the build, and the CLI's
 * example program through the built `codemode-executor` command.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';

const examples = new URL('../../../../examples/', import.meta.url);
const hook = new URL('workspace-resolve.mjs', examples).pathname;
const cli = new URL('../../dist/cli/main.js', import.meta.url).pathname;
const expected = (name: string) =>
  readFileSync(new URL(name.replace(/\.m?js$/, '.expected.txt'), examples), 'utf8');

describe('each example prints what it is expected to print', () => {
  const files = readdirSync(examples).filter(
    (file) => file.endsWith('.mjs') && file !== 'workspace-resolve.mjs',
  );

  test("the three examples of the sandbox's specification are all here", () => {
    expect(files.sort()).toStrictEqual(['cjs-facades.mjs', 'completion-accessor.mjs', 'engine-words.mjs']);
  });

  test.each(files)('%s', (file) => {
    const run = spawnSync(process.execPath, ['--import', hook, new URL(file, examples).pathname], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(expected(file));
    expect(run.status).toBe(0);
  });

  test('programs/notes.js through the built codemode-executor command', () => {
    const run = spawnSync(process.execPath, [cli, 'run', new URL('programs/notes.js', examples).pathname], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.stdout).toBe(expected('programs/notes.js'));
    expect(run.status).toBe(0);
  });
});
