/**
 * The code of the Code Mode form made into this executor's entry. Code createCodeTool hands over is
 * produced here by the real package's normalizeCode, so the wrapper recognised is the one it makes.
 * What runs is checked end to end in execute.test.ts; this file pins the text.
 */
import { normalizeCode } from '@cloudflare/codemode';
import { BadRequestError, CODE_LIMIT, CODE_LIMIT_RULE, sourceLimitMessage } from '@supolka/codemode-protocol';
import { describe, expect, test } from 'vitest';
import { toEntryCode } from '../../src/codemode/entry-code.ts';
import { CODE_NAME, nestingMessage } from '../../src/sandbox/sources/nesting-scan.ts';

const entry = (code: string) => toEntryCode(code, true);

describe("createCodeTool's wrapper", () => {
  test('imports inside it go back to the top, and its lone returned arrow is the program', () => {
    const wrapped = normalizeCode(`import { twice } from 'lib.js';\nasync () => twice(2)`);
    expect(wrapped).toBe(`async () => {\nimport { twice } from 'lib.js';\nreturn (async () => twice(2))\n}`);
    expect(entry(wrapped)).toBe(`import { twice } from 'lib.js';\nasync () => twice(2)`);
  });

  test('with statements after the imports, the statements stay in an arrow', () => {
    const wrapped = normalizeCode(`import a from 'a';\nimport b from 'b';\nconst sum = a + b;\nsum * 2`);
    expect(entry(wrapped)).toBe(
      `import a from 'a';\nimport b from 'b';\nasync () => {\nconst sum = a + b;\nreturn (sum * 2)\n}`,
    );
  });

  test('with TypeScript in it (which it wraps whole), the types are erased in place', () => {
    const wrapped = normalizeCode(`import a from 'a';\nconst n: number = a;\nn`);
    expect(wrapped).toBe(`async () => {\nimport a from 'a';\nconst n: number = a;\nn\n}`);
    expect(entry(wrapped)).toBe(`import a from 'a';\nasync () => {\nconst n         = a;\n\nreturn (n);\n}`);
  });

  test('a TypeScript-annotated arrow (which it wraps whole, uncalled) is the program, its types erased', () => {
    const wrapped = normalizeCode('async (x: number): Promise<number> => x * 2');
    expect(wrapped).toBe('async () => {\nasync (x: number): Promise<number> => x * 2\n}');
    expect(entry(wrapped)).toBe('async (x        )                  => x * 2');
  });

  test('generics, as and satisfies in the arrow, interfaces and type-only imports before it', () => {
    const generic = normalizeCode('async <T,>(): Promise<T[]> => [] as T[] satisfies T[]');
    expect(entry(generic)).toBe(`async     ()${' '.repeat(15)}=> []`);
    const declared = normalizeCode(
      "import type { A } from 'a';\ninterface B { x: number }\nasync (): Promise<B> => ({ x: 1 })",
    );
    expect(entry(declared)).toBe(`async ()${' '.repeat(13)}=> ({ x: 1 })`);
    const imported = normalizeCode("import { a } from 'a.ts';\nasync (): Promise<number> => a as number");
    expect(entry(imported)).toBe(`import { a } from 'a.ts';\nasync ()${' '.repeat(18)}=> a`);
  });

  test('typed statements in it are the program: the last expression is the result, as without types', () => {
    const wrapped = normalizeCode('const x: number = 1;\nx + 1');
    expect(wrapped).toBe('async () => {\nconst x: number = 1;\nx + 1\n}');
    expect(entry(wrapped)).toBe('async () => {\nconst x         = 1;\n\nreturn (x + 1);\n}');
    expect(entry(normalizeCode('const x = 1;\nx + 1'))).toBe(
      'async () => {\nconst x = 1;\nreturn (x + 1)\n}',
    );
  });

  test('an arrow a caller wrote itself, its body indented, is not taken for it and means what it says', () => {
    const written = 'async () => {\n  const x: number = 1;\n  x\n}';
    expect(entry(written)).toBe('async () => {\n  const x         = 1;\n  x\n}');
  });

  test('without imports it is already an arrow, and stays as it is', () => {
    const wrapped = normalizeCode('const x = 1;\nx + 1');
    expect(entry(wrapped)).toBe(wrapped);
  });
});

describe('code as a model writes it (codeMcpServer passes it on untouched)', () => {
  test.each([
    ['an arrow stays as it is', 'async () => 1', 'async () => 1'],
    [
      'imports then an arrow stay as they are',
      "import a from 'a'\nasync () => a",
      "import a from 'a'\nasync () => a",
    ],
    ['a lone function is called', 'async function main() { return 1 }', 'async function main() { return 1 }'],
    ['a default export of a function is the function', 'export default async () => 2', 'async () => 2'],
    ['statements are wrapped', 'const a = 1;\nreturn a', 'async () => {\nconst a = 1;\nreturn a\n}'],
    [
      'a last expression is returned',
      'const a = await codemode.x(); // one\na',
      'async () => {\nconst a = await codemode.x(); // one\n\nreturn (a);\n}',
    ],
    ['stray semicolons are dropped', ';async () => 1;', 'async () => 1'],
    ['a markdown fence is dropped', '```js\nasync () => 1\n```', 'async () => 1'],
    ['a fence naming TypeScript is dropped', '```ts\nasync () => 1\n```', 'async () => 1'],
    ['empty code is an empty arrow', '  \n', 'async () => {}'],
    ['code acorn cannot read goes on unchanged', 'async () => {', 'async () => {'],
    ['a typed arrow is erased in place', 'async (x: number) => x', 'async (x        ) => x'],
  ])('%s', (_what, code, expected) => {
    expect(entry(code)).toBe(expected);
  });

  test('an import between statements goes first too (a module hoists it anyway)', () => {
    expect(entry("const a = 1;\nimport b from 'b';\na + b")).toBe(
      `import b from 'b';\nasync () => {\nconst a = 1;\n${' '.repeat(18)}\n\nreturn (a + b);\n}`,
    );
  });

  test('typed statements ending in a return are erased, then wrapped', () => {
    expect(entry('const a: string = "x";\nreturn a')).toBe(
      'async () => {\nconst a         = "x";\nreturn a\n}',
    );
  });

  test('typed statements with imports and a return: the imports are erased apart, then go first', () => {
    // Issue 26 item 6: they read neither as a module (the return) nor inside a function (the imports).
    expect(entry("import d from 'd.json';\nconst x: number = d.n;\nreturn x")).toBe(
      "import d from 'd.json';\nasync () => {\nconst x         = d.n;\nreturn x\n}",
    );
    expect(entry("import type { T } from 't';\nimport { type U, v } from 'v';\nreturn v as U")).toBe(
      `import {         v } from 'v';\nasync () => {\nreturn v\n}`,
    );
  });

  test('with TypeScript off, typed statements go on unchanged, to fail as written', () => {
    expect(toEntryCode('const a: string = "x";\nreturn a', false)).toBe('const a: string = "x";\nreturn a');
  });
});

describe('bounds in the caller process', () => {
  test('code that parses as JavaScript is never erased', () => {
    const code = 'const a = 1, b = 2, c = 3, d = 4;\n[a < b, c > (d)]';
    expect(entry(code)).toBe(`async () => {\n${code.split('\n')[0]}\n\nreturn ([a < b, c > (d)]);\n}`);
  });

  test('20,000 imports between statements are hoisted in linear time', () => {
    const imports = Array.from({ length: 20_000 }, (_, index) => `import m${index} from 'm${index}';`);
    const normalized = entry(`const a = 1;\n${imports.join('\n')}\na`);
    expect(normalized.startsWith(`${imports.slice(0, 3).join('\n')}\n`)).toBe(true);
    expect(normalized.split('\n')).toHaveLength(20_000 + 5 + 20_000);
  });

  test('deep nesting is refused before acorn or the eraser reads it, and the next code erases', () => {
    const deep = `const x: number = ${'('.repeat(1000)}1${')'.repeat(1000)};\nx`;
    expect(() => entry(deep)).toThrow(new BadRequestError(nestingMessage(CODE_NAME, 1)));
    expect(entry('const n: number = 1;\nn')).toBe('async () => {\nconst n         = 1;\n\nreturn (n);\n}');
  });

  test('code past CODE_LIMIT is refused', () => {
    expect(() => entry(' '.repeat(CODE_LIMIT + 1))).toThrow(
      new BadRequestError(sourceLimitMessage(['code'], CODE_LIMIT_RULE)),
    );
  });
});
