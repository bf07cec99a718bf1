/**
 * Issue 26 items 4, 5 and 9 through IsolateExecutor, in both its forms and through the pool's
 * children: which tool call failed and where, a thrown object's JSON, the object form's hint, and
 * the notes of values that lost information on the way out. The Code Mode form tells positions in
 * the model's own code and gives no hint (it takes statements as they are).
 */
import { NOT_A_FUNCTION_HINT, STATEMENTS_HINT } from '@supolka/codemode-protocol';
import { afterAll, describe, expect, test } from 'vitest';
import { IsolateExecutor } from '../../src/executor/isolate-executor.ts';
import { LOST_VALUE_TEXTS } from '../../src/sandbox/lost-values.ts';

const executor = new IsolateExecutor({ poolSize: 1, timeout: 5000 });
afterAll(() => executor.dispose());

const fns = {
  getIssue: ({ number }: { number: number }) => {
    if (number === 2) throw new Error('not found');
    return { number };
  },
  search: (..._args: unknown[]) => [],
};

describe('the object form', () => {
  test('the failing call of three in Promise.all is named, at the column of its tool name', async () => {
    const envelope = await executor.execute({
      code: `async () => Promise.all([github.getIssue({ number: 1 }), github.getIssue({ number: 2 }), github.search()])`,
      providers: [{ name: 'github', positionalArgs: false, fns }],
    });
    expect(envelope).toStrictEqual({
      result: undefined,
      error: 'not found',
      logs: [],
      errorKind: 'tool-failed',
      errorName: 'Error',
      errorProvider: 'github',
      errorTool: 'getIssue',
      errorAt: 'executor.js:1:65',
    });
  });

  test('statements and a value that is no function keep the engine text, with the hint', async () => {
    expect(await executor.execute({ code: 'const x = 1;\nreturn x' })).toMatchObject({
      error: "Unexpected token 'const' [executor.js:1:1]",
      errorKind: 'syntax',
      hint: STATEMENTS_HINT,
    });
    expect(await executor.execute({ code: '1 + 1' })).toMatchObject({
      error: '2 is not a function',
      hint: NOT_A_FUNCTION_HINT,
    });
  });

  test('a thrown object, and a result and arguments that lost information', async () => {
    expect(await executor.execute({ code: 'async () => { throw { status: 404 } }' })).toMatchObject({
      error: '[object Object]',
      errorJson: '{"status":404}',
    });
    const envelope = await executor.execute({
      code: `async () => { await github.search((x) => x); return { byId: new Map([[1, 'a']]), pending: github.search() } }`,
      providers: [{ name: 'github', fns }],
    });
    expect(envelope).toStrictEqual({
      result: { byId: {}, pending: {} },
      logs: [],
      notes: [
        `github.search args[0]: ${LOST_VALUE_TEXTS.functionNull}`,
        `result.byId: ${LOST_VALUE_TEXTS.map}`,
        `result.pending: ${LOST_VALUE_TEXTS.promise}`,
      ],
    });
  });
});

describe('the Code Mode form', () => {
  test("the failed call's position is told in the model's code, and no hint is given", async () => {
    const outcome = await executor.execute(
      `const ok = await github.getIssue({ number: 1 });\nconst missing = await github.getIssue({ number: 2 });\nreturn [ok, missing];`,
      [{ name: 'github', fns }],
    );
    expect(outcome).toStrictEqual({
      result: undefined,
      error: 'not found',
      logs: [],
      errorKind: 'tool-failed',
      errorName: 'Error',
      // The failure was raised where the answer arrived: the program's frame is the call's position only.
      errorProvider: 'github',
      errorTool: 'getIssue',
      errorAt: 'executor.js:2:30',
    });
  });

  test('statements run as they are; an expression too; notes and a thrown object reach the contract result', async () => {
    expect(await executor.execute('const x = 1;\nreturn x + 1;', [])).toStrictEqual({ result: 2, logs: [] });
    expect(await executor.execute('1 + 1', [])).toStrictEqual({ result: 2, logs: [] });
    expect(await executor.execute('return { s: new Set([1]) }', [])).toStrictEqual({
      result: { s: {} },
      logs: [],
      notes: [`result.s: ${LOST_VALUE_TEXTS.set}`],
    });
    expect(await executor.execute('throw { status: 404 }', [])).toMatchObject({
      error: '[object Object]',
      errorJson: '{"status":404}',
    });
  });
});

describe('consoleFormat (issue 26 item 9)', () => {
  test("a request's field, and the executor's option as the default a request's own field overrides", async () => {
    const code = `async () => { console.log('m', new Map([[1, 2]])) }`;
    expect((await executor.execute({ code })).logs).toStrictEqual([{ level: 'log', text: 'm [object Map]' }]);
    expect((await executor.execute({ code, consoleFormat: 'inspect' })).logs).toStrictEqual([
      { level: 'log', text: 'm Map(1) { 1 => 2 }' },
    ]);
    const inspecting = new IsolateExecutor({ poolSize: 1, consoleFormat: 'inspect' });
    try {
      expect((await inspecting.execute({ code })).logs).toStrictEqual([
        { level: 'log', text: 'm Map(1) { 1 => 2 }' },
      ]);
      expect((await inspecting.execute({ code, consoleFormat: 'string' })).logs).toStrictEqual([
        { level: 'log', text: 'm [object Map]' },
      ]);
      // The Code Mode form takes the executor's default as well.
      expect((await inspecting.execute(`console.log({ a: 1 })`, [])).logs).toStrictEqual(['{ a: 1 }']);
    } finally {
      await inspecting.dispose();
    }
    expect(() => new IsolateExecutor({ consoleFormat: 'pretty' as never })).toThrow(/consoleFormat/);
  });
});
