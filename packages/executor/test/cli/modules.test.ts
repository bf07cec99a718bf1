/**
 * `--modules PATH`: a JSON module map, or a directory whose files are modules by relative path,
 * and every bound of the directory walk, driven as an attacker who controls the directory would.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { MODULE_LIMIT } from '@supolka/codemode-protocol';
import { afterAll, describe, expect, test } from 'vitest';
import { RUN_USAGE } from '../../src/cli/args.ts';
import {
  linkCycleMessage,
  linkLeavesMessage,
  MODULES_DEPTH_LIMIT,
  modulesTooDeepMessage,
  modulesTooLargeMessage,
  notAModuleMapMessage,
  notFileOrDirectoryMessage,
  notJsonMessage,
  tooManyModulesMessage,
} from '../../src/cli/modules-option.ts';
import { notAFileMessage, notUtf8Message } from '../../src/cli/read-text-file.ts';
import { cli, removeScratch, scratch, write } from './cli-process.ts';

const dir = scratch();
afterAll(removeScratch);
const program = (text: string) => write(dir, `program-${Math.random().toString(36).slice(2)}.js`, text);

/** A directory of modules: each [path, text] written under a fresh one. */
function modules(files: readonly (readonly [string, string | Uint8Array])[]): string {
  const root = scratch();
  for (const [path, text] of files) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    write(root, path, text);
  }
  return root;
}

function refused(args: readonly string[], message: string) {
  expect(cli(args)).toStrictEqual({
    status: 2,
    signal: null,
    stdout: '',
    stderr: `codemode-executor: ${message}\n\n${RUN_USAGE}`,
  });
}

describe('a JSON module map', () => {
  test('serves the imports, in every kind the map takes', () => {
    const map = write(
      dir,
      'map.json',
      JSON.stringify({
        'lib/twice.js': 'export const twice = (n) => n * 2',
        'config.json': { json: { base: 20 } },
        'greeting.txt': { text: 'hello' },
      }),
    );
    const code = program(
      "import { twice } from 'lib/twice.js';\nimport config from 'config.json';\nimport greeting from 'greeting.txt';\nasync () => [twice(config.base + 1), greeting]",
    );
    expect(cli(['run', code, '--modules', map]).stdout).toBe("{ result: [ 42, 'hello' ], logs: [] }\n");
  });

  test('that is not JSON, or not an object, is refused naming the file', () => {
    const code = program('async () => 1');
    const broken = write(dir, 'broken.json', '{');
    const parse = (() => {
      try {
        JSON.parse('{');
      } catch (error) {
        return (error as Error).message;
      }
    })() as string;
    refused(['run', code, '--modules', broken], notJsonMessage(`--modules ${broken}`, parse));
    const list = write(dir, 'list.json', '["a.js"]');
    refused(['run', code, '--modules', list], notAModuleMapMessage(list));
    refused(['run', code, '--modules', '/dev/zero'], notAFileMessage('--modules /dev/zero'));
  });

  test('an entry the executor refuses is a BAD_REQUEST envelope naming it, even nested 200,000 deep', () => {
    const code = program("import d from 'd.json';\nasync () => typeof d");
    const wrong = write(dir, 'wrong.json', JSON.stringify({ 'a.js': 42 }));
    const run = cli(['run', code, '--modules', wrong]);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain("code: 'BAD_REQUEST'");
    expect(run.stdout).toContain('a.js');
    const deep = write(dir, 'deep.json', `{"d.json":{"json":${'['.repeat(200_000)}${']'.repeat(200_000)}}}`);
    const nested = cli(['run', code, '--modules', deep]);
    expect(nested).toMatchObject({ status: 1, signal: null });
    expect(nested.stdout).toContain("code: 'BAD_REQUEST'");
  });
});

describe('a directory of modules', () => {
  test('each file is a module named by its path inside it, its kind by its extension', () => {
    const root = modules([
      ['lib/math/twice.ts', 'export const twice = (n: number): number => n * 2'],
      ['lib/legacy.cjs', 'module.exports = { one: 1 }'],
      ['data.json', '{ "base": 20 }'],
      ['notes.md', '# hello'],
      ['__proto__.js', "export default 'a module, not the map prototype'"],
    ]);
    const code = program(
      [
        "import { twice } from 'lib/math/twice.ts';",
        "import legacy from 'lib/legacy.cjs';",
        "import data from 'data.json';",
        "import readme from 'notes.md';",
        "import proto from '__proto__.js';",
        'async () => [twice(data.base + legacy.one), readme, proto]',
      ].join('\n'),
    );
    expect(cli(['run', code, '--modules', root]).stdout).toBe(
      "{\n  result: [ 42, '# hello', 'a module, not the map prototype' ],\n  logs: []\n}\n",
    );
  });

  test('names starting with a dot are skipped, so .git never becomes a module', () => {
    const root = modules([
      ['.git/HEAD', new Uint8Array([0xff, 0xfe])],
      ['.hidden.js', 'export default 1'],
      ['seen.js', 'export default 2'],
    ]);
    const hidden = cli(['run', program("import h from '.hidden.js';\nasync () => h"), '--modules', root]);
    expect(hidden.status).toBe(1);
    expect(hidden.stdout).toContain('.hidden.js');
    expect(cli(['run', program("import s from 'seen.js';\nasync () => s"), '--modules', root]).stdout).toBe(
      '{ result: 2, logs: [] }\n',
    );
  });

  test('a link that stays inside is followed, to a file or to a directory', () => {
    const root = modules([['real/value.js', 'export default 3']]);
    symlinkSync(join(root, 'real'), join(root, 'alias'));
    symlinkSync(join(root, 'real', 'value.js'), join(root, 'file-alias.js'));
    const code = program(
      "import a from 'alias/value.js';\nimport b from 'file-alias.js';\nimport c from 'real/value.js';\nasync () => a + b + c",
    );
    expect(cli(['run', code, '--modules', root]).stdout).toBe('{ result: 9, logs: [] }\n');
  });
});

describe('the walk of a directory an attacker controls is bounded, each refusal naming the file', () => {
  const code = program('async () => 1');

  test('a link that leaves the directory, by an absolute path or by ..', () => {
    const root = modules([['inside/ok.js', 'export default 1']]);
    symlinkSync('/etc/passwd', join(root, 'inside', 'passwd.txt'));
    refused(['run', code, '--modules', root], linkLeavesMessage(root, 'inside/passwd.txt'));
    const up = modules([['ok.js', 'export default 1']]);
    symlinkSync('..', join(up, 'up'));
    refused(['run', code, '--modules', up], linkLeavesMessage(up, 'up'));
  });

  test('a link back into a directory it is inside of (a cycle that would never end)', () => {
    const root = modules([['a/b/ok.js', 'export default 1']]);
    symlinkSync(join(root, 'a'), join(root, 'a', 'b', 'loop'));
    refused(['run', code, '--modules', root], linkCycleMessage(root, 'a/b/loop'));
    const self = modules([['ok.js', 'export default 1']]);
    symlinkSync('.', join(self, 'self'));
    refused(['run', code, '--modules', self], linkCycleMessage(self, 'self'));
  });

  test('a FIFO (reading it would wait for ever), and a link to nothing', () => {
    const root = modules([['ok.js', 'export default 1']]);
    execFileSync('mkfifo', [join(root, 'pipe.js')]);
    refused(['run', code, '--modules', root], notFileOrDirectoryMessage(root, 'pipe.js'));
    const dangling = modules([['ok.js', 'export default 1']]);
    symlinkSync(join(dangling, 'missing.js'), join(dangling, 'gone.js'));
    refused(['run', code, '--modules', dangling], notFileOrDirectoryMessage(dangling, 'gone.js'));
  });

  test('a file that is not UTF-8 text, and a .json file that is not JSON', () => {
    const binary = modules([['image.png', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xff])]]);
    refused(['run', code, '--modules', binary], notUtf8Message(`--modules ${binary}: image.png`));
    const broken = modules([['conf/bad.json', '{ nope']]);
    const parse = (() => {
      try {
        JSON.parse('{ nope');
      } catch (error) {
        return (error as Error).message;
      }
    })() as string;
    refused(['run', code, '--modules', broken], notJsonMessage(`--modules ${broken}: conf/bad.json`, parse));
  });

  test(`more than MODULES_DEPTH_LIMIT (${MODULES_DEPTH_LIMIT}) directories deep`, () => {
    const deep = Array.from({ length: MODULES_DEPTH_LIMIT + 1 }, (_, index) => `d${index}`).join('/');
    const root = modules([[`${deep}/ok.js`, 'export default 1']]);
    refused(['run', code, '--modules', root], modulesTooDeepMessage(root, deep));
  });

  // Ten thousand files to write and list: slow on a busy machine, so a bound of its own.
  test('more than MODULE_LIMIT files and directories', { timeout: 180_000 }, () => {
    const root = scratch();
    for (let index = 0; index <= MODULE_LIMIT; index++) write(root, `m${index}.js`, '');
    refused(['run', code, '--modules', root], tooManyModulesMessage(root));
  });

  test('more than PAYLOAD_LIMIT bytes in all, refused from the sizes before the files are read', () => {
    // Sparse files: 20 GiB each by their size, nothing on the disk.
    const root = modules([
      ['big/one.txt', ''],
      ['big/two.txt', ''],
    ]);
    truncateSync(join(root, 'big', 'one.txt'), 20 * 1024 ** 3);
    truncateSync(join(root, 'big', 'two.txt'), 20 * 1024 ** 3);
    const run = cli(['run', code, '--modules', root]);
    expect(run.status).toBe(2);
    expect([
      `codemode-executor: ${modulesTooLargeMessage(root, 'big/one.txt')}\n\n${RUN_USAGE}`,
      `codemode-executor: ${modulesTooLargeMessage(root, 'big/two.txt')}\n\n${RUN_USAGE}`,
    ]).toContain(run.stderr);
  });
});
