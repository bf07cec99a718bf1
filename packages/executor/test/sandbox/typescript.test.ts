/** TypeScript in the code and in .ts modules: types erased in place, constructs that need more refused by name. */
import {
  CODE_LIMIT,
  CODE_LIMIT_RULE,
  executionTimeoutMessage,
  MODULE_SOURCE_LIMIT,
  MODULE_SOURCE_LIMIT_RULE,
  sourceLimitMessage,
} from '@supolka/codemode-protocol';
import { describe, expect, test } from 'vitest';
import { IsolateExecutor } from '../../src/executor/isolate-executor.ts';
import { ENTRY_NAME } from '../../src/sandbox/modules.ts';
import { CODE_NAME, moduleName, nestingMessage } from '../../src/sandbox/sources/nesting-scan.ts';
import { eraserFailedMessage } from '../../src/sandbox/sources/typescript.ts';
import { useSandbox } from '../helpers.ts';

const sandbox = useSandbox();

test('annotations, generics, casts and type-only imports are erased; positions stay', async () => {
  const envelope = await sandbox.execute({
    modules: {
      'lib.ts': 'export interface Shape { w: number }\nexport const area = (s: Shape): number => s.w * 2',
    },
    code: `import type { Shape } from './lib.ts'
import { area } from './lib.ts'
async (): Promise<number[]> => {
  const shape: Shape = { w: 21 } satisfies Shape
  const list = new Array<number>()
  list.push(area(shape as Shape)!)
  const stack = new Error('here').stack as string
  return [...list, Number(stack.match(/executor.js:(\\d+)/)?.[1])]
}`,
  });
  // The entry puts two lines ahead of the user's first; the error's line is the one the user wrote plus them.
  expect(envelope).toStrictEqual({ result: [42, expect.any(Number)], logs: [] });
});

test('enums, namespaces and parameter properties are refused, naming the construct and the line', async () => {
  const cases: [string, string][] = [
    ['enum Color { Red }\nasync () => Color.Red', 'TypeScript enum'],
    ['async () => { class A { constructor(private x: number) {} } }', 'TypeScript parameter property'],
  ];
  for (const [code, construct] of cases) {
    const envelope = await sandbox.execute({ code });
    expect(envelope.error).toMatch(
      new RegExp(`^${construct} \\(executor.js, line \\d+\\) needs more than type erasure`),
    );
  }
  const inModule = await sandbox.execute({
    modules: { 'ns.ts': 'namespace N { export const a = 1 }' },
    code: `import './ns.ts'\nasync () => 1`,
  });
  expect(inModule.error).toMatch(/^TypeScript namespace declaration \(ns\.ts, line 1\)/);
});

test('switched off, TypeScript is JavaScript and the engine reports it', async () => {
  const envelope = await sandbox.execute({
    typescript: false,
    code: 'async () => { const x: number = 1; return x }',
  });
  expect(envelope.error).toMatch(/Unexpected token ':'|Missing initializer/);
});

test('a syntax error is the engine own, not the stripper', async () => {
  const envelope = await sandbox.execute({ code: 'async () => {' });
  expect(envelope.error).toMatch(/^Unexpected token/);
});

describe('JavaScript first: code that parses as JavaScript runs as JavaScript', () => {
  test('comparisons that read as type arguments are comparisons', async () => {
    const envelope = await sandbox.execute({
      code: 'async () => { const a = 1, b = 2, c = 3, d = 4; return [a < b, c > (d)] }',
    });
    expect(envelope).toStrictEqual({ result: [true, false], logs: [] });
  });

  test('a comparison before a template is not a tagged template', async () => {
    const envelope = await sandbox.execute({
      code: 'async () => { const tag = 5, lo = 1, hi = 9; return [tag < lo, hi > `x`] }',
    });
    expect(envelope).toStrictEqual({ result: [false, false], logs: [] });
  });

  test('a .ts module is erased whatever it parses as', async () => {
    const envelope = await sandbox.execute({
      modules: { 'f.ts': 'export const f = <T,>(x: T): T => x' },
      code: "import { f } from 'f.ts'\nasync () => f(7)",
    });
    expect(envelope).toStrictEqual({ result: 7, logs: [] });
  });
});

describe('host-side work is bounded, and one run cannot break the next', () => {
  const typed = 'async (): Promise<number> => { const n: number = 41; return n + 1 }';
  const next = async () =>
    expect(await sandbox.execute({ code: typed })).toStrictEqual({ result: 42, logs: [] });

  test.each([
    ['braces', `async () => { ${'{'.repeat(5000)}${'}'.repeat(5000)} }`],
    ['parentheses, twice', `async (): number => ${'('.repeat(1000)}1${')'.repeat(1000)}`],
    ['template substitutions', `async (): string => ${'`${'.repeat(600)}1${'}`'.repeat(600)}`],
  ])(
    'nesting past the limit (%s) is refused before any parser, and the next run succeeds',
    async (_kind, code) => {
      for (let round = 0; round < 2; round++) {
        expect(await sandbox.execute({ code })).toStrictEqual({
          result: undefined,
          error: nestingMessage(CODE_NAME, 1),
          code: 'BAD_REQUEST',
          logs: [],
        });
      }
      await next();
    },
  );

  test('nesting in a .ts module is refused naming the module', async () => {
    const envelope = await sandbox.execute({
      modules: { 'deep.ts': `export const x: number = ${'['.repeat(300)}${']'.repeat(300)}.length` },
      code: "import { x } from 'deep.ts'\nasync () => x",
    });
    expect(envelope.error).toBe(nestingMessage(moduleName('deep.ts'), 1));
    await next();
  });

  test.each([
    ['prefix operators', `async (): number => ${'!'.repeat(100_000)}1`],
    ['if statements', `async (): Promise<void> => { ${'if (1)'.repeat(3000)}; }`],
    ['generic type arguments', `async () => { let x: ${'A<'.repeat(3000)}B${'>'.repeat(3000)}; }`],
  ])(
    'nesting without brackets (%s) that breaks the eraser discards it; the next run succeeds',
    async (_kind, code) => {
      expect(await sandbox.execute({ code })).toStrictEqual({
        result: undefined,
        error: eraserFailedMessage(ENTRY_NAME),
        code: 'BAD_REQUEST',
        logs: [],
      });
      await next();
    },
  );

  test('megabytes of TypeScript under a short bound time out instead of erasing for seconds', async () => {
    const unit = 'export const f = (x: number): number => { const y: string = "a"; return x * 2 }\n';
    const big = unit.repeat(Math.floor(MODULE_SOURCE_LIMIT / unit.length));
    const envelope = await sandbox.execute({
      timeout: 300,
      modules: { 'a.ts': big, 'b.ts': `${big} `, 'c.ts': `${big}  ` },
      code: "import 'a.ts'\nasync () => 1",
    });
    expect(envelope).toStrictEqual({
      result: undefined,
      error: executionTimeoutMessage(300),
      code: 'TIMEOUT',
      logs: [],
    });
    await next();
  });

  test('trailing whitespace and comments are trimmed in linear time', async () => {
    const comment = await sandbox.execute({ code: `async () => 1 /*${' '.repeat(100_000)}*/` });
    expect(comment).toStrictEqual({ result: 1, logs: [] });
    const spaces = await sandbox.execute({ code: `async () => 1${' ;'.repeat(CODE_LIMIT / 2 - 10)}` });
    expect(spaces).toStrictEqual({ result: 1, logs: [] });
  });

  test('code and module sources past their limits are refused, naming the limit', async () => {
    expect(await sandbox.execute({ code: ' '.repeat(CODE_LIMIT + 1) })).toStrictEqual({
      result: undefined,
      error: sourceLimitMessage(['code'], CODE_LIMIT_RULE),
      code: 'BAD_REQUEST',
      logs: [],
    });
    const modules = { 'big.js': { js: ' '.repeat(MODULE_SOURCE_LIMIT + 1) } };
    expect((await sandbox.execute({ code: 'async () => 1', modules })).error).toBe(
      sourceLimitMessage(['modules', 'big.js', 'js'], MODULE_SOURCE_LIMIT_RULE),
    );
  });
});

describe('through the pool', () => {
  test('a program that breaks the eraser leaves the child serving the next request', async () => {
    const executor = new IsolateExecutor({ poolSize: 1, timeout: 5000 });
    try {
      const hostile = await executor.execute({ code: `async (): number => ${'!'.repeat(100_000)}1` });
      expect(hostile.error).toBe(eraserFailedMessage(ENTRY_NAME));
      const [child] = executor.stats().children;
      const deep = await executor.execute({
        code: `async (): number => ${'('.repeat(1000)}1${')'.repeat(1000)}`,
      });
      expect(deep.error).toBe(nestingMessage(CODE_NAME, 1));
      const other = await executor.execute({
        code: "import { d } from 'd.ts'\nasync (): Promise<number> => d(21)",
        modules: { 'd.ts': 'export const d = (x: number): number => x * 2' },
      });
      expect(other).toStrictEqual({ result: 42, logs: [] });
      // The same child served all three: it was never replaced, and the third run is another request's.
      expect(executor.stats().children.map(({ pid }) => pid)).toStrictEqual([child?.pid]);
    } finally {
      await executor.dispose();
    }
  });
});
