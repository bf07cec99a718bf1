/**
 * The Code Mode form's errors (docs/codemode.md, "Errors"): the result carries the envelope's
 * errorKind, errorName and errorStack, with positions in the code as the model wrote it, through
 * the form's normalization (statements wrapped, imports moved, a fence dropped) and through the
 * wrapper the real `@cloudflare/codemode` normalizeCode puts around annotated code.
 */
import { normalizeCode } from '@cloudflare/codemode';
import { afterAll, describe, expect, test } from 'vitest';
import { normalizedEntry } from '../../src/codemode/entry-code.ts';
import { IsolateExecutor } from '../../src/executor/isolate-executor.ts';

const executor = new IsolateExecutor({
  poolSize: 1,
  timeout: 2000,
  modules: { 'units.js': 'export default "EUR"' },
});
afterAll(() => executor.dispose());

const fns = {
  fail: () => {
    throw new Error('the database is down');
  },
};

describe('kinds reach the Code Mode result', () => {
  test('a failing tool, an unknown tool and a throw', async () => {
    expect(await executor.execute('await codemode.fail()', fns)).toStrictEqual({
      result: undefined,
      error: 'the database is down',
      logs: [],
      errorKind: 'tool-failed',
      errorName: 'Error',
      errorProvider: 'codemode',
      errorTool: 'fail',
      errorAt: 'executor.js:1:16',
    });
    expect(await executor.execute('await codemode.absent()', fns)).toMatchObject({
      errorKind: 'tool-not-found',
    });
    expect(await executor.execute('throw new RangeError("mine")', fns)).toStrictEqual({
      result: undefined,
      error: 'mine',
      logs: [],
      errorKind: 'thrown',
      errorName: 'RangeError',
      errorStack: '    at executor.js:1:7',
    });
  });

  test('a success and a coded failure carry no kind', async () => {
    expect(await executor.execute('1 + 1', fns)).toStrictEqual({ result: 2, logs: [] });
    const timedOut = await executor.execute('await new Promise(() => {})', fns);
    expect(timedOut.code).toBe('TIMEOUT');
    expect(timedOut).not.toHaveProperty('errorKind');
  });
});

describe('positions are the model’s', () => {
  test('statements the form wrapped: the frames name the lines written, not the wrapper’s', async () => {
    const code = 'const a = 1\nfunction f() {\n  throw new TypeError("inside")\n}\nf()\na';
    expect(await executor.execute(code, fns)).toMatchObject({
      errorKind: 'thrown',
      errorStack: '    at f (executor.js:3:9)\n    at executor.js:5:1',
    });
  });

  test('imports the form moved first keep their own lines', async () => {
    const code = 'const a = 1\nimport unit from "units.js"\nthrow new Error(unit + a)';
    expect(await executor.execute(code, fns)).toMatchObject({
      error: 'EUR1',
      errorStack: '    at executor.js:3:7',
    });
  });

  test('a fenced program counts its lines from the fence', async () => {
    expect(await executor.execute('```js\nconst a = 1\n\nthrow new Error("fenced")\n```', fns)).toMatchObject(
      {
        errorStack: '    at executor.js:4:7',
      },
    );
  });

  test("a syntax error in an arrow reads at the model's line", async () => {
    expect(await executor.execute('async () => {\n  const a = 1\n  let y x\n}', fns)).toMatchObject({
      error: "Unexpected identifier 'x' [executor.js:3:9]",
      errorKind: 'syntax',
    });
  });

  test("annotated statements through the real normalizeCode: lines of the model's code, not of its wrapper", async () => {
    const model = 'const r: number = 2\nif (r > 1) throw new Error("typed " + r)\nr';
    const wrapped = normalizeCode(model);
    expect(wrapped.startsWith('async () => {\n')).toBe(true);
    expect(await executor.execute(wrapped, fns)).toMatchObject({
      error: 'typed 2',
      errorKind: 'thrown',
      errorStack: '    at executor.js:2:18',
    });
  });

  test('TypeScript the sandbox cannot erase is typescript', async () => {
    expect(await executor.execute('enum E { A }\nE.A', fns)).toMatchObject({ errorKind: 'typescript' });
  });

  test('positions past the model’s code map to nothing, and the map is linear in the code', () => {
    const { code, positions } = normalizedEntry(`let a = 0\n${'a += 1\n'.repeat(20_000)}a`, true);
    expect(code.startsWith('async () => {\n')).toBe(true);
    // The arrow's head is the form's own text.
    expect(positions.toAuthor({ line: 1, column: 1 })).toBeUndefined();
    expect(positions.toAuthor({ line: 2, column: 5 })).toStrictEqual({ line: 1, column: 5 });
    expect(positions.toAuthor({ line: 20_002, column: 1 })).toStrictEqual({ line: 20_001, column: 1 });
    expect(positions.toAuthor({ line: 99_999, column: 1 })).toBeUndefined();
  });
});
