/**
 * What the envelope says beside an error user code met, issue 26 items 4 and 5 (docs/protocol.md,
 * "The result envelope"): which tool call failed and where the program made it, a thrown object's
 * JSON, and the hint for code that is not one async arrow. Through real isolates, and programs
 * that try to make their own errors read as a tool's.
 */
import {
  buildDispatch,
  ERROR_JSON_LIMIT,
  NOT_A_FUNCTION_HINT,
  ResultEnvelopeSchema,
  STATEMENTS_HINT,
} from '@supolka/codemode-protocol';
import { describe, expect, test } from 'vitest';
import type { DispatchFunction } from '../../src/sandbox/dispatch.ts';
import { useSandbox } from '../helpers.ts';

const sandbox = useSandbox();

const dispatch = buildDispatch(
  [
    {
      name: 'github',
      fns: {
        getIssue: ({ number }: { number: number }) => {
          if (number === 2) throw new Error('not found');
          return { number };
        },
        listIssues: () => [],
      },
    },
  ],
  undefined,
) as DispatchFunction;
const providers = [{ name: 'github', positionalArgs: false }];

describe('a failed tool call names itself (issue 26 item 4)', () => {
  test("inside Promise.all over three calls, the failing one is named, at its tool name's column", async () => {
    const envelope = await sandbox.execute({
      code: `async () => {
  const [a, b, c] = await Promise.all([github.getIssue({ number: 1 }), github.getIssue({ number: 2 }), github.listIssues()]);
  return [a, b, c];
}`,
      providers,
      dispatch,
    });
    expect(envelope).toStrictEqual({
      result: undefined,
      error: 'not found',
      logs: [],
      errorKind: 'tool-failed',
      errorName: 'Error',
      errorProvider: 'github',
      errorTool: 'getIssue',
      errorAt: 'executor.js:2:79',
    });
    expect(ResultEnvelopeSchema.parse(envelope)).toStrictEqual(envelope);
  });

  test('an unknown tool is named too, and a call from a module names the module by its key', async () => {
    const envelope = await sandbox.execute({
      code: `import { load } from './load.js';\nasync () => load()`,
      modules: { './load.js': 'export function load() {\n  return github.missing({});\n}' },
      providers,
      dispatch,
    });
    // A module has no provider in scope: the program hands it the namespace.
    expect(envelope.errorKind).toBe('thrown');
    const viaModule = await sandbox.execute({
      code: `import { load } from './load.js';\nasync () => load(github)`,
      modules: { './load.js': 'export function load(api) {\n  return api.missing({});\n}' },
      providers,
      dispatch,
    });
    expect(viaModule).toMatchObject({
      errorKind: 'tool-not-found',
      errorProvider: 'github',
      errorTool: 'missing',
      errorAt: './load.js:2:14',
    });
  });

  test('a failure the program caught and threw as its own Error names no tool; one it rethrew as it was still does', async () => {
    const own = await sandbox.execute({
      code: `async () => { try { await github.getIssue({ number: 2 }) } catch (e) { throw new Error(e.message) } }`,
      providers,
      dispatch,
    });
    expect(own).toStrictEqual({
      result: undefined,
      error: 'not found',
      logs: [],
      errorKind: 'thrown',
      errorName: 'Error',
      errorStack: '    at executor.js:1:78',
    });
    const rethrown = await sandbox.execute({
      code: `async () => { try { await github.getIssue({ number: 2 }) } catch (e) { throw e } }`,
      providers,
      dispatch,
    });
    expect(rethrown).toMatchObject({
      errorKind: 'tool-failed',
      errorTool: 'getIssue',
      errorAt: 'executor.js:1:34',
    });
    // A failure with its message changed is the program's own (the kind's rule), and so names no tool.
    const changed = await sandbox.execute({
      code: `async () => { try { await github.getIssue({ number: 2 }) } catch (e) { e.message = 'mine'; throw e } }`,
      providers,
      dispatch,
    });
    expect(changed.errorKind).toBe('thrown');
    expect(changed).not.toHaveProperty('errorTool');
  });

  test('a program that silences stack traces still gets the tool named, without a position', async () => {
    const envelope = await sandbox.execute({
      code: `async () => { Error.stackTraceLimit = 0; return github.getIssue({ number: 2 }) }`,
      providers,
      dispatch,
    });
    expect(envelope).toMatchObject({
      errorKind: 'tool-failed',
      errorProvider: 'github',
      errorTool: 'getIssue',
    });
    expect(envelope).not.toHaveProperty('errorAt');
  });

  test('a success that caught a failure carries none of it', async () => {
    const envelope = await sandbox.execute({
      code: `async () => { try { await github.getIssue({ number: 2 }) } catch { return 'handled' } }`,
      providers,
      dispatch,
    });
    expect(envelope).toStrictEqual({ result: 'handled', logs: [] });
  });
});

describe('a thrown object carries its JSON (issue 26 item 4)', () => {
  test('a plain object reads [object Object] and travels as JSON beside it', async () => {
    const envelope = await sandbox.execute({ code: `async () => { throw { status: 404, reason: 'gone' } }` });
    expect(envelope).toStrictEqual({
      result: undefined,
      error: '[object Object]',
      logs: [],
      errorKind: 'thrown',
      errorJson: '{"status":404,"reason":"gone"}',
    });
  });

  test('the JSON is cut at its bound, a large object costs only its start, and what JSON cannot write is left out', async () => {
    const large = await sandbox.execute({
      code: `async () => { throw { items: Array.from({ length: 1e6 }, (_, i) => ({ i })), text: 'x'.repeat(1e6) } }`,
    });
    expect(large.errorJson).toHaveLength(ERROR_JSON_LIMIT);
    expect(large.errorJson?.startsWith('{"items":[{"i":0},{"i":1},')).toBe(true);
    const cyclic = await sandbox.execute({ code: `async () => { const o = {}; o.o = o; throw o }` });
    expect(cyclic).not.toHaveProperty('errorJson');
    // An Error keeps its message as the text, a primitive its String: neither has JSON beside it.
    for (const thrown of [`new TypeError('t')`, `'text'`, `42`, `null`]) {
      const envelope = await sandbox.execute({ code: `async () => { throw ${thrown} }` });
      expect(envelope).not.toHaveProperty('errorJson');
    }
  });
});

describe('the object form says what it expects (issue 26 item 5)', () => {
  test('statements keep the engine text and get the hint', async () => {
    const envelope = await sandbox.execute({ code: 'const x = 1;\nreturn x + 1;' });
    expect(envelope).toStrictEqual({
      result: undefined,
      error: "Unexpected token 'const' [executor.js:1:1]",
      logs: [],
      errorKind: 'syntax',
      errorName: 'SyntaxError',
      hint: STATEMENTS_HINT,
    });
    // With imports and await, as a model writes them for the Code Mode form.
    const imported = await sandbox.execute({
      code: 'import d from "./d.json";\nconst n = await Promise.resolve(d.n);\nreturn n;',
      modules: { './d.json': { json: { n: 1 } } },
    });
    expect(imported.hint).toBe(STATEMENTS_HINT);
  });

  test('an expression whose value is no function keeps the engine text and gets the hint', async () => {
    const envelope = await sandbox.execute({ code: '1 + 1' });
    expect(envelope).toMatchObject({
      error: '2 is not a function',
      errorKind: 'thrown',
      errorName: 'TypeError',
      hint: NOT_A_FUNCTION_HINT,
    });
  });

  test('other mistakes get no hint: an arrow that does not parse, one that throws a TypeError of its own', async () => {
    const broken = await sandbox.execute({ code: 'async () => { let y x }' });
    expect(broken.errorKind).toBe('syntax');
    expect(broken).not.toHaveProperty('hint');
    const neither = await sandbox.execute({ code: 'const = ;' });
    expect(neither).not.toHaveProperty('hint');
    const own = await sandbox.execute({ code: 'async () => { const f = 2; return f() }' });
    expect(own.error).toBe('f is not a function');
    expect(own).not.toHaveProperty('hint');
    // A provider's prelude that does not parse is no mistake of the code's.
    const prelude = await sandbox.execute({
      code: 'async () => 1',
      providers: [{ name: 'p', prelude: 'const = ;' }],
    });
    expect(prelude.errorKind).toBe('syntax');
    expect(prelude).not.toHaveProperty('hint');
  });
});
