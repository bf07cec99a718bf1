/**
 * The TypeScript switch: the executor option `typescript` (default true) and the request's own
 * field, which wins, carried on the wire to the child and honoured there, in both forms of execute.
 * The default (on) is exercised by execute.test.ts; this file runs an executor switched off.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { IsolateExecutor } from '../../src/executor/isolate-executor.ts';
import { resolveOptions } from '../../src/executor/options.ts';
import { splitRequest } from '../../src/executor/request.ts';

const off = new IsolateExecutor({ poolSize: 1, timeout: 5000, typescript: false });
afterAll(() => off.dispose());

const TYPED = 'async (): Promise<number> => { const n: number = 20; return n + 1 }';
const TYPED_MODULE = { 'double.ts': 'export const double = (x: number): number => x * 2' };

describe('an executor with typescript: false', () => {
  test('runs code as written: annotations are a syntax error', async () => {
    const envelope = await off.execute({ code: TYPED });
    expect(envelope).toMatchObject({ result: undefined, logs: [] });
    expect(envelope.error).toContain("Unexpected token ':'");
    expect(envelope.code).toBeUndefined();
  });

  test('plain JavaScript runs as before', async () => {
    expect(await off.execute({ code: 'async () => 21 * 2' })).toStrictEqual({ result: 42, logs: [] });
  });

  test("a request's own typescript: true wins, for the code and for .ts modules", async () => {
    const envelope = await off.execute({
      code: `import { double } from 'double.ts';\n${TYPED.replace('n + 1', 'double(n + 1)')}`,
      modules: TYPED_MODULE,
      typescript: true,
    });
    expect(envelope).toStrictEqual({ result: 42, logs: [] });
  });

  test('a .ts module is not erased either', async () => {
    const envelope = await off.execute({
      code: `import { double } from 'double.ts';\nasync () => double(2)`,
      modules: TYPED_MODULE,
    });
    expect(envelope.error).toContain("Unexpected token ':' [double.ts:1:");
  });

  test('the Code Mode form runs code as written too', async () => {
    const outcome = await off.execute('const n: number = 1;\nreturn n', []);
    // Unreadable as JavaScript, the code is not wrapped either: it reaches the entry as written.
    expect(outcome.error).toContain("Unexpected token 'const'");
    expect(await off.execute('const n = 1;\nreturn n', [])).toStrictEqual({ result: 1, logs: [] });
  });
});

describe('the request on the wire', () => {
  test('carries typescript only when it is off, since absent means on', async () => {
    const on = resolveOptions();
    expect(Object.hasOwn((await splitRequest({ code: '' }, on)).wire, 'typescript')).toBe(false);
    expect((await splitRequest({ code: '', typescript: false }, on)).wire.typescript).toBe(false);
    expect((await splitRequest({ code: '' }, resolveOptions({ typescript: false }))).wire.typescript).toBe(
      false,
    );
    expect(
      Object.hasOwn(
        (await splitRequest({ code: '', typescript: true }, resolveOptions({ typescript: false }))).wire,
        'typescript',
      ),
    ).toBe(false);
  });

  test('a request whose typescript is not a boolean is BAD_REQUEST, naming the field', async () => {
    const envelope = await off.execute({ code: 'async () => 1', typescript: 'yes' as never });
    expect(envelope).toStrictEqual({
      result: undefined,
      error: 'Invalid execute request: typescript must be a boolean.',
      code: 'BAD_REQUEST',
      logs: [],
    });
  });

  test('the option must be a boolean, checked at construction', () => {
    expect(() => new IsolateExecutor({ typescript: 1 as never })).toThrow(
      'IsolateExecutor option typescript must be a boolean; got 1.',
    );
  });
});
