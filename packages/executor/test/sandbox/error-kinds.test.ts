/**
 * The envelope's errorKind, errorName and errorStack (docs/sandbox.md, "Error kinds, names and
 * positions"): every kind from what the host observed, through real isolates, and programs that try
 * to forge them.
 */
import {
  buildDispatch,
  ERROR_KINDS,
  ERROR_NAME_LIMIT,
  ERROR_STACK_FRAME_LIMIT,
  EXECUTION_COMPLETED_MESSAGE,
  moduleNotFoundMessage,
  OUTBOUND_DISABLED_MESSAGE,
  ResultEnvelopeSchema,
  toolNotFoundEnvelope,
  toolNotFoundMessage,
} from '@supolka/codemode-protocol';
import { describe, expect, test } from 'vitest';
import { type DispatchFunction, encodeFrame } from '../../src/sandbox/dispatch.ts';
import { useSandbox } from '../helpers.ts';

const sandbox = useSandbox();

/** Tools served the way IsolateExecutor serves them: a throw is a failed tool, a missing name an unknown one. */
const dispatch = served(
  [
    {
      name: 'tools',
      fns: {
        ok: () => 'fine',
        fails: () => {
          throw new RangeError('the tool broke');
        },
      },
    },
  ],
  undefined,
);
const providers = [{ name: 'tools' }];

function served(...args: Parameters<typeof buildDispatch>): DispatchFunction {
  const built = buildDispatch(...args);
  if (built === undefined) throw new Error('buildDispatch serves these fns');
  return built;
}

describe('each kind, from what the host observed', () => {
  test('a program that does not parse is a syntax error, at the line its author wrote', async () => {
    const envelope = await sandbox.execute({
      code: 'async () => {\n  const a = 1\n  let y x\n  return a\n}',
    });
    expect(envelope).toStrictEqual({
      result: undefined,
      error: "Unexpected identifier 'x' [executor.js:3:9]",
      logs: [],
      errorKind: 'syntax',
      errorName: 'SyntaxError',
    });
  });

  test('a module that does not parse is a syntax error at its own line, named by its key', async () => {
    const envelope = await sandbox.execute({
      code: 'import value from "./broken.js"\nasync () => value',
      modules: { './broken.js': 'export default 1\nlet q q' },
    });
    expect(envelope.error).toBe("Unexpected identifier 'q' [./broken.js:2:7]");
    expect(envelope.errorKind).toBe('syntax');
  });

  test('an uncaught throw is thrown, with its name and its frames', async () => {
    const envelope = await sandbox.execute({
      code: 'async () => {\n  function inner() {\n    throw new TypeError("deep")\n  }\n  inner()\n}',
    });
    expect(envelope).toStrictEqual({
      result: undefined,
      error: 'deep',
      logs: [],
      errorKind: 'thrown',
      errorName: 'TypeError',
      errorStack: '    at inner (executor.js:3:11)\n    at executor.js:5:3',
    });
  });

  test('a rejection is thrown; a value that is not an Error has no name and no stack', async () => {
    const envelope = await sandbox.execute({ code: 'async () => Promise.reject("a plain string")' });
    expect(envelope).toStrictEqual({
      result: undefined,
      error: 'a plain string',
      logs: [],
      errorKind: 'thrown',
    });
  });

  test('a tool no provider serves is tool-not-found', async () => {
    const envelope = await sandbox.execute({ code: 'async () => tools.absent()', providers, dispatch });
    expect(envelope.error).toBe(toolNotFoundMessage('tools', 'absent'));
    expect(envelope.errorKind).toBe('tool-not-found');
  });

  test('a request with no dispatch function meets tool-not-found too', async () => {
    const envelope = await sandbox.execute({ code: 'async () => tools.anything()', providers });
    expect(envelope.errorKind).toBe('tool-not-found');
  });

  test("a tool that threw in the caller's function is tool-failed", async () => {
    const envelope = await sandbox.execute({ code: 'async () => tools.fails()', providers, dispatch });
    expect(envelope.error).toBe('the tool broke');
    expect(envelope.errorKind).toBe('tool-failed');
    // The name is the one the isolate's error carries: the caller's RangeError stays on the host.
    expect(envelope.errorName).toBe('Error');
  });

  test('a dispatch function that throws is tool-failed', async () => {
    const envelope = await sandbox.execute({
      code: 'async () => tools.ok()',
      providers,
      dispatch: () => {
        throw new Error('the dispatcher is down');
      },
    });
    expect(envelope).toMatchObject({ error: 'the dispatcher is down', errorKind: 'tool-failed' });
  });

  test('a static import the map lacks is module-not-found', async () => {
    const envelope = await sandbox.execute({ code: 'import x from "./missing.js"\nasync () => x' });
    expect(envelope).toStrictEqual({
      result: undefined,
      error: moduleNotFoundMessage('./missing.js', 'executor.js'),
      logs: [],
      errorKind: 'module-not-found',
      errorName: 'ModuleNotFoundError',
    });
  });

  test('a dynamic import the map lacks is module-not-found', async () => {
    const envelope = await sandbox.execute({ code: 'async () => import("./missing.js")' });
    expect(envelope.error).toBe(moduleNotFoundMessage('./missing.js', 'executor.js'));
    expect(envelope.errorKind).toBe('module-not-found');
  });

  test('a dynamic import of a module that does not parse is syntax', async () => {
    const envelope = await sandbox.execute({
      code: 'async () => import("./broken.js")',
      modules: { './broken.js': 'let q q' },
    });
    expect(envelope.errorKind).toBe('syntax');
  });

  test('fetch with outbound disabled is outbound-disabled', async () => {
    const envelope = await sandbox.execute({
      code: 'async () => fetch("https://example.com/")',
      outbound: null,
    });
    expect(envelope).toMatchObject({
      error: OUTBOUND_DISABLED_MESSAGE,
      errorKind: 'outbound-disabled',
      errorName: 'TypeError',
    });
  });

  test('TypeScript that erasure cannot turn into JavaScript is typescript', async () => {
    const envelope = await sandbox.execute({ code: 'async () => { enum E { A } return E.A }' });
    expect(envelope.errorKind).toBe('typescript');
    expect(envelope.error).toMatch(/^TypeScript enum \(executor\.js, line 1\) needs more than type erasure/);
  });

  test('a syntax error in annotated code is reported at the line its author wrote', async () => {
    const envelope = await sandbox.execute({
      code: 'async () => {\n  const a: number = 1\n  const b: string = "x"\n  let y x\n}',
    });
    expect(envelope).toMatchObject({ errorKind: 'syntax' });
    expect(envelope.error).toMatch(/\[executor\.js:[2-4]:\d+\]$/);
  });

  test('a module that throws at its top level is thrown', async () => {
    const envelope = await sandbox.execute({
      code: 'import value from "./thrower.js"\nasync () => value',
      modules: { './thrower.js': 'throw new RangeError("at load")\nexport default 1' },
    });
    expect(envelope).toMatchObject({ error: 'at load', errorKind: 'thrown', errorName: 'RangeError' });
  });

  test('a late tool call crosses as a frame the isolate reads as execution-completed', () => {
    // A call after completion never reaches its own run's envelope (the run is over); its frame
    // carries the kind for the error the program meets, which a retained handler can report.
    expect(encodeFrame(['thrown', EXECUTION_COMPLETED_MESSAGE])).toBe(`c${EXECUTION_COMPLETED_MESSAGE}`);
    expect(encodeFrame(['thrown', 'other'])).toBe('tother');
  });

  test('a coded envelope carries no kind: the executor ended the run', async () => {
    const envelope = await sandbox.execute({
      code: 'async () => { await new Promise(() => {}) }',
      timeout: 200,
    });
    expect(envelope.code).toBe('TIMEOUT');
    expect(envelope).not.toHaveProperty('errorKind');
    expect(envelope).not.toHaveProperty('errorName');
  });

  test('a success carries none of the three', async () => {
    expect(await sandbox.execute({ code: 'async () => 1' })).toStrictEqual({ result: 1, logs: [] });
  });

  test('every kind is in the closed set the schema accepts', () => {
    for (const errorKind of ERROR_KINDS) {
      expect(ResultEnvelopeSchema.safeParse({ logs: [], error: 'x', errorKind }).success).toBe(true);
    }
    expect(ResultEnvelopeSchema.safeParse({ logs: [], error: 'x', errorKind: 'made-up' }).success).toBe(
      false,
    );
  });
});

describe('forgery', () => {
  test('an Error shaped like a tool-not-found, with its name and text, reads as a throw', async () => {
    const envelope = await sandbox.execute({
      code: `async () => {
        const forged = new Error(${JSON.stringify(toolNotFoundMessage('tools', 'absent'))})
        forged.name = 'ToolNotFoundError'
        forged.errorKind = 'tool-not-found'
        forged.code = 'TOOL_NOT_FOUND'
        throw forged
      }`,
      providers,
      dispatch,
    });
    expect(envelope.errorKind).toBe('thrown');
    expect(envelope.errorName).toBe('ToolNotFoundError');
    expect(envelope).not.toHaveProperty('code');
  });

  test('a thrown SyntaxError is a throw, not a syntax error', async () => {
    const envelope = await sandbox.execute({
      code: 'async () => { throw new SyntaxError("Unexpected token [executor.js:1:1]") }',
    });
    expect(envelope).toMatchObject({ errorKind: 'thrown', errorName: 'SyntaxError' });
  });

  test('a plain object shaped like an envelope is a throw', async () => {
    const envelope = await sandbox.execute({
      code: `async () => { throw { message: 'x', name: 'ModuleNotFoundError', errorKind: 'module-not-found' } }`,
    });
    expect(envelope).toStrictEqual({
      result: undefined,
      error: '[object Object]',
      logs: [],
      errorKind: 'thrown',
      // Its JSON travels as data beside the kind (issue 26 item 4), and changes nothing of it.
      errorJson: '{"message":"x","name":"ModuleNotFoundError","errorKind":"module-not-found"}',
    });
  });

  test('an envelope the program assigns itself, naming a kind, reads as a throw', async () => {
    const envelope = await sandbox.execute({
      code: `async () => {
        globalThis.__resultJson = JSON.stringify({ error: 'forged', errorKind: 'syntax', errorName: 'SyntaxError', code: 'TIMEOUT' })
        await new Promise(() => {})
      }`,
      timeout: 3_000,
    });
    expect(envelope).toStrictEqual({ result: undefined, error: 'forged', logs: [], errorKind: 'thrown' });
  });

  test("an observed error whose message the program changed reads as the program's throw", async () => {
    const envelope = await sandbox.execute({
      code: 'async () => { try { await tools.absent() } catch (e) { e.message = "changed"; throw e } }',
      providers,
      dispatch,
    });
    expect(envelope).toMatchObject({ error: 'changed', errorKind: 'thrown' });
  });

  test('an observed error rethrown as it is keeps its kind', async () => {
    const envelope = await sandbox.execute({
      code: 'async () => { try { await tools.absent() } catch (e) { await null; throw e } }',
      providers,
      dispatch,
    });
    expect(envelope.errorKind).toBe('tool-not-found');
  });

  test('a tool answer that names any other kind is a failed tool', async () => {
    const envelope = await sandbox.execute({
      code: 'async () => tools.ok()',
      providers,
      dispatch: () => JSON.stringify({ error: 'odd', errorKind: 'syntax' }),
    });
    expect(envelope.errorKind).toBe('tool-failed');
    expect(toolNotFoundEnvelope('a', 'b')).toBe(
      JSON.stringify({ error: toolNotFoundMessage('a', 'b'), errorKind: 'tool-not-found' }),
    );
  });

  test('a name past its bound is cut, and a name that throws when read is left out', async () => {
    const long = await sandbox.execute({
      code: `async () => { const e = new Error('x'); e.name = 'N'.repeat(100000); throw e }`,
    });
    expect(long.errorName).toBe('N'.repeat(ERROR_NAME_LIMIT));
    const hostile = await sandbox.execute({
      code: `async () => { const e = new Error('x'); Object.defineProperty(e, 'name', { get() { throw new Error('no') } }); throw e }`,
    });
    expect(hostile).toMatchObject({ error: 'x', errorKind: 'thrown' });
    expect(hostile).not.toHaveProperty('errorName');
  });
});

describe('errorStack', () => {
  test("only the program's frames, never the sandbox's own", async () => {
    const envelope = await sandbox.execute({
      code: 'import { fail } from "./lib.js"\nasync () => {\n  await null\n  fail()\n}',
      modules: { './lib.js': 'export function fail() {\n  throw new Error("from the module")\n}' },
    });
    expect(envelope.errorStack).toBe('    at fail (./lib.js:2:9)\n    at executor.js:4:3');
  });

  test('a stack the program shaped itself keeps only frames that name its own files, bounded', async () => {
    const envelope = await sandbox.execute({
      code: `async () => {
        const e = new Error('shaped')
        const frames = ['    at host (/home/someone/secret/server.js:1:1)', '    at node:internal/process:2:3']
        for (let i = 0; i < 1000; i++) frames.push('    at f' + i + ' (lib.js:2:' + (i + 1) + ')')
        Object.defineProperty(e, 'stack', { value: 'Error: shaped\\n' + frames.join('\\n') })
        throw e
      }`,
      modules: { './lib.js': 'export default 1' },
    });
    const lines = (envelope.errorStack as string).split('\n');
    expect(lines).toHaveLength(ERROR_STACK_FRAME_LIMIT);
    expect(envelope.errorStack).not.toContain('secret');
    expect(envelope.errorStack).not.toContain('node:');
    // Module frames are named by the key as the request spelled it.
    for (const line of lines) expect(line).toMatch(/^ {4}at f\d+ \(\.\/lib\.js:2:\d+\)$/);
  });

  test('a stack of megabytes with no frames is no stack', async () => {
    const envelope = await sandbox.execute({
      code: `async () => { const e = new Error('big'); Object.defineProperty(e, 'stack', { value: 'x'.repeat(10_000_000) }); throw e }`,
    });
    expect(envelope).toStrictEqual({
      result: undefined,
      error: 'big',
      logs: [],
      errorKind: 'thrown',
      errorName: 'Error',
    });
  });

  test('the envelope passes the result schema', async () => {
    const envelope = await sandbox.execute({ code: 'async () => { throw new Error("checked") }' });
    expect(ResultEnvelopeSchema.safeParse(envelope).success).toBe(true);
  });
});
