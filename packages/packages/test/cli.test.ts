/**
 * `codemode-executor run --packages`, as a user runs it: the executor's committed bin in a process
 * of its own, in a folder whose node_modules holds the packages.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { type CollectedRun, spawnCollecting } from '../../executor/test/spawn-collecting.ts';
import { useFolder } from './fixtures.ts';

const BIN = join(import.meta.dirname, '../../executor/bin/codemode-executor.js');
const here = join(import.meta.dirname, '..');
const folder = useFolder();

function run(args: readonly string[], cwd = here): Promise<CollectedRun> {
  return spawnCollecting(process.execPath, [BIN, 'run', ...args], { cwd });
}

function program(name: string, code: string): string {
  const file = join(folder, name);
  writeFileSync(file, code);
  return file;
}

test('a program imports the packages --packages names, found from the working directory', async () => {
  const file = program(
    'dates.js',
    `import { z } from 'zod'
import { addDays, formatISO } from 'date-fns'
import groupBy from 'lodash-es/groupBy.js'
async () => {
  const { stringify } = await import('yaml')
  return [z.string().email().safeParse('a@b.co').success, formatISO(addDays(new Date(Date.UTC(2024, 0, 1)), 1), { representation: 'date' }), stringify({ ok: true })]
}`,
  );
  const ran = await run([file, '--packages', 'zod,date-fns,yaml', '--json']);
  expect(ran.stderr).toBe('');
  expect(JSON.parse(ran.stdout)).toStrictEqual({
    logs: [],
    error:
      "Cannot find module 'lodash-es/groupBy.js' imported from executor.js: the module map has no such key, and it is no package this executor allows (zod, date-fns, yaml).",
    errorKind: 'module-not-found',
    errorName: 'ModuleNotFoundError',
  });
  expect(ran.status).toBe(1);
  const allowed = program(
    'allowed.js',
    readFileSync(file, 'utf8').replace("import groupBy from 'lodash-es/groupBy.js'\n", ''),
  );
  const again = await run([allowed, '--packages', 'zod,date-fns,yaml', '--json']);
  expect(JSON.parse(again.stdout)).toStrictEqual({ result: [true, '2024-01-02', 'ok: true\n'], logs: [] });
  expect(again.status).toBe(0);
});

test('a package that cannot be served stops the command before the program, exit 2', async () => {
  const file = program('one.js', 'async () => 1');
  const ran = await run([file, '--packages', 'graceful-fs']);
  expect(ran.status).toBe(2);
  expect(ran.stdout).toBe('');
  expect(ran.stderr).toMatch(
    /^codemode-executor: IsolateExecutor option packages cannot be served: The package graceful-fs cannot be bundled: The package graceful-fs needs the Node built-in 'fs'/,
  );
});

test('a package the working directory cannot find is refused, naming the folder', async () => {
  const file = program('two.js', 'async () => 2');
  const ran = await run([file, '--packages', 'zod'], folder);
  expect(ran.status).toBe(2);
  expect(ran.stderr).toContain(`The package zod is not installed where ${folder} can find it`);
});

test('an empty name in --packages is a usage error', async () => {
  const file = program('three.js', 'async () => 3');
  const ran = await run([file, '--packages', 'zod,,yaml']);
  expect(ran.status).toBe(2);
  expect(ran.stderr).toMatch(
    /^codemode-executor: --packages takes package names separated by commas; got 'zod,,yaml'\./,
  );
});

test('serve --packages that cannot be served stops the server before it serves, exit 2', async () => {
  const ran = await new Promise<{ status: number | null; stdout: string; stderr: string }>(
    (resolve, reject) => {
      const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--packages', 'graceful-fs'], {
        cwd: here,
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
      });
      child.on('error', reject);
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    },
  );
  expect(ran.status).toBe(2);
  expect(ran.stdout).toBe('');
  expect(ran.stderr).toMatch(
    // After the JSON log lines of a server that listened and stopped.
    /\ncodemode-executor serve: IsolateExecutor option packages cannot be served: The package graceful-fs cannot be bundled/,
  );
});
