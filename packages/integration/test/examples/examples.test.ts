/**
 * The runnable examples under examples/ print exactly their expected output: the sandbox
 * specification's examples and one program per door (the library, the server with its client, the
 * MCP bridge, an agent loop), each imported by the package names from the builds through
 * examples/workspace-resolve.mjs, and the CLI's example programs through the built
 * `codemode-executor` command. It lives here, not in the executor's suite, because the doors' examples
 * need the server and MCP packages.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const examples = new URL('../../../../examples/', import.meta.url);
const hook = fileURLToPath(new URL('workspace-resolve.mjs', examples));
const cli = fileURLToPath(new URL('../../../executor/bin/codemode-executor.js', import.meta.url));
const expected = (name: string) =>
  readFileSync(new URL(name.replace(/\.m?js$/, '.expected.txt'), examples), 'utf8');
/** Each example starts a pool, a server or an MCP bridge with its upstream: seconds on a loaded machine. */
const SPAWNS = 60_000;

/** The sandbox specification's examples, word for word (examples/README.md). */
const SPECIFICATION = ['cjs-facades.mjs', 'completion-accessor.mjs', 'engine-words.mjs'];
/** One program per door, and the agent loop. */
const DOORS = ['library.mjs', 'server-and-client.mjs', 'mcp-client.mjs', 'agent-loop.mjs'];
/** Programs for `codemode-executor run`, with the options each is run with. */
const CLI_RUNS: [program: string, options: string[]][] = [
  ['programs/notes.js', []],
  ['programs/restock.js', ['--tools', fileURLToPath(new URL('programs/shop-tools.mjs', examples))]],
];

describe('each example prints what it is expected to print', () => {
  const files = readdirSync(examples).filter(
    (file) => file.endsWith('.mjs') && file !== 'workspace-resolve.mjs',
  );

  test("the three examples of the sandbox's specification are all here", () => {
    expect(files).toEqual(expect.arrayContaining(SPECIFICATION));
  });

  test('every example program in examples/ is one this test runs', () => {
    expect(files.sort()).toStrictEqual([...SPECIFICATION, ...DOORS].sort());
  });

  test.each([...SPECIFICATION, ...DOORS])(
    '%s',
    (file) => {
      const run = spawnSync(process.execPath, ['--import', hook, fileURLToPath(new URL(file, examples))], {
        encoding: 'utf8',
        timeout: SPAWNS,
      });
      expect(run.stderr).toBe('');
      expect(run.stdout).toBe(expected(file));
      expect(run.status).toBe(0);
    },
    SPAWNS,
  );

  test.each(CLI_RUNS)(
    '%s through the built codemode-executor command',
    (program, options) => {
      const run = spawnSync(
        process.execPath,
        [cli, 'run', fileURLToPath(new URL(program, examples)), ...options],
        { encoding: 'utf8', timeout: SPAWNS },
      );
      expect(run.stdout).toBe(expected(program));
      expect(run.status).toBe(0);
    },
    SPAWNS,
  );
});
