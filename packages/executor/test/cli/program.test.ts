/**
 * What FILE may hold (what the Code Mode form takes: an arrow, or statements, in JavaScript or
 * TypeScript) and what --json prints. FILE itself is read with a bound: something endless, huge
 * or not text is refused naming it, before more than the bound is read.
 */
import { execFileSync } from 'node:child_process';
import { truncateSync } from 'node:fs';
import { join } from 'node:path';
import { CODE_LIMIT, parseForDispatch } from '@supolka/codemode-protocol';
import { afterAll, describe, expect, test } from 'vitest';
import { RUN_USAGE } from '../../src/cli/args.ts';
import { notAFileMessage, notUtf8Message, tooLargeMessage } from '../../src/cli/read-text-file.ts';
import { unreadableProgramMessage } from '../../src/cli/run.ts';
import { BIN, cli, removeScratch, scratch, write } from './cli-process.ts';

const dir = scratch();
afterAll(removeScratch);

describe('FILE holds what the Code Mode form takes', () => {
  test('statements run as the body of an arrow', () => {
    const program = write(dir, 'statements.js', "console.log('hi'); return 1");
    expect(cli(['run', program])).toStrictEqual({
      status: 0,
      signal: null,
      stdout: "{ result: 1, logs: [ { level: 'log', text: 'hi' } ] }\n",
      stderr: '',
    });
  });

  test('a last expression is the result; imports anywhere at the top go first', () => {
    const program = write(
      dir,
      'expression.js',
      "const sum = await math.add(1, 2);\nimport { x } from 'x.js';\nsum * x",
    );
    const modules = write(dir, 'x-map.json', JSON.stringify({ 'x.js': 'export const x = 10' }));
    expect(cli(['run', program, '--modules', modules]).stdout).toBe('{ result: 30, logs: [] }\n');
  });

  test('TypeScript runs, as an annotated arrow and as annotated statements', () => {
    const arrow = write(dir, 'arrow.ts', 'async (): Promise<number> => (await math.add(2, 3)) as number');
    expect(cli(['run', arrow]).stdout).toBe('{ result: 5, logs: [] }\n');
    const statements = write(
      dir,
      'typed.ts',
      'interface N { n: number }\nconst v: N = { n: 7 };\nreturn v.n',
    );
    expect(cli(['run', statements]).stdout).toBe('{ result: 7, logs: [] }\n');
  });

  // Issue 26 item 6: the shape run --help names, TypeScript statements with an import and a
  // top-level return, failed to read where each neighbour ran.
  test.each([
    [
      'typed statements with an import and a return',
      'import d from "data.json";\nconst x: number = d.n;\nreturn x',
      'ts',
    ],
    [
      'typed statements with an import, ending in an expression',
      'import d from "data.json";\nconst x: number = d.n;\nx',
      'ts',
    ],
    ['typed statements with a return and no import', 'const x: number = 5;\nreturn x', 'ts'],
    [
      'statements with an import and a return in JavaScript',
      'import d from "data.json";\nconst x = d.n;\nreturn x',
      'js',
    ],
    [
      'a typed arrow after an import',
      'import d from "data.json";\nasync (): Promise<number> => d.n as number',
      'ts',
    ],
  ])('%s', (_what, text, extension) => {
    const modules = scratch();
    write(modules, 'data.json', '{ "n": 5 }');
    const program = write(dir, `shape-${Math.random().toString(36).slice(2)}.${extension}`, text);
    expect(cli(['run', program, '--modules', modules])).toStrictEqual({
      status: 0,
      signal: null,
      stdout: '{ result: 5, logs: [] }\n',
      stderr: '',
    });
  });

  test('a file that reads as neither says which shapes it may hold, then prints the syntax error', () => {
    const program = write(dir, 'broken.js', 'async () => {');
    const run = cli(['run', program]);
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(`codemode-executor: ${unreadableProgramMessage(program)}\n`);
    expect(run.stdout).toMatch(/^\{\n {2}result: undefined,\n {2}error: "Unexpected token/);
  });
});

describe('positions', () => {
  test("an error names the file's own line, not the line of the arrow the statements became", () => {
    const program = write(dir, 'throws.js', "const a = 1\n\nthrow new RangeError('on line ' + (a + 2))");
    const run = cli(['run', program, '--json']);
    expect(run.status).toBe(1);
    expect(parseForDispatch(run.stdout)).toStrictEqual({
      error: 'on line 3',
      logs: [],
      errorKind: 'thrown',
      errorName: 'RangeError',
      errorStack: '    at executor.js:3:7',
    });
  });
});

describe('--json', () => {
  test('prints the envelope as one line of JSON, binary values in the codec form', () => {
    const program = write(
      dir,
      'binary.js',
      "async () => { console.warn('w'); return { bytes: new Uint8Array([1, 2, 3]) } }",
    );
    const run = cli(['run', program, '--json']);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(
      '{"result":{"bytes":{"$binary":"Uint8Array","base64":"AQID"}},"logs":[{"level":"warn","text":"w"}]}\n',
    );
    expect(parseForDispatch(run.stdout)).toStrictEqual({
      result: { bytes: new Uint8Array([1, 2, 3]) },
      logs: [{ level: 'warn', text: 'w' }],
    });
  });

  test('an error envelope is JSON too, with its code, and exit 1', () => {
    const program = write(dir, 'spin.js', 'async () => { for (;;) {} }');
    const run = cli(['run', program, '--json', '--timeout', '100']);
    expect(run.status).toBe(1);
    const envelope = JSON.parse(run.stdout);
    expect(envelope.code).toBe('TIMEOUT');
    expect(envelope.error).toMatch(/^Execution timed out at its 100 ms bound/);
  });

  test('nothing is truncated, and the output pipes into another program', () => {
    const program = write(dir, 'many.js', 'async () => Array.from({ length: 5000 }, (_, i) => i)');
    const expected = Array.from({ length: 5000 }, (_, index) => index);
    const json = cli(['run', program, '--json']);
    expect(JSON.parse(json.stdout)).toStrictEqual({ result: expected, logs: [] });
    // Without --json the console.log form is not cut after 100 entries either.
    const printed = cli(['run', program]).stdout;
    expect(printed).toContain('4999');
    expect(printed).not.toContain('more items');
    const piped = execFileSync(
      'sh',
      [
        '-c',
        `"${process.execPath}" "$0" run "$1" --json | "${process.execPath}" -e "let t='';process.stdin.on('data',d=>t+=d).on('end',()=>console.log(JSON.parse(t).result.length))"`,
        BIN,
        program,
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(piped).toBe('5000\n');
  });
});

describe('FILE is read with a bound', () => {
  test.each([
    ['/dev/zero, which never ends', () => '/dev/zero', notAFileMessage],
    ['a directory', () => dir, notAFileMessage],
    [
      'a FIFO nobody writes, which must not wait',
      () => {
        const fifo = join(dir, 'fifo.js');
        execFileSync('mkfifo', [fifo]);
        return fifo;
      },
      notAFileMessage,
    ],
    [
      'bytes that are not UTF-8',
      () => write(dir, 'latin1.js', new Uint8Array([0x61, 0xe9, 0x0a])),
      notUtf8Message,
    ],
  ])('%s is refused naming it, exit 2', (_, make, message) => {
    const path = make();
    expect(cli(['run', path])).toStrictEqual({
      status: 2,
      signal: null,
      stdout: '',
      stderr: `codemode-executor: ${message(path)}\n\n${RUN_USAGE}`,
    });
  });

  test('a file past three bytes per CODE_LIMIT character is refused before it is read', () => {
    // Sparse: the size is there, the bytes are not, so only a read would find them.
    const path = write(dir, 'huge.js', '');
    truncateSync(path, 64 * 1024 * 1024 * 1024);
    const run = cli(['run', path]);
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(`codemode-executor: ${tooLargeMessage(path, 3 * CODE_LIMIT)}\n\n${RUN_USAGE}`);
  });
});
