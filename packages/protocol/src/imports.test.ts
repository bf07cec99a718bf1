import { parse } from 'es-module-lexer/js';
import { describe, expect, test } from 'vitest';
import { separateImports } from './imports.ts';

describe('separateImports', () => {
  test('splits the seed example', () => {
    expect(
      separateImports("import { greet } from 'greeter'\nasync () => greet(await files.read('notes.txt'))"),
    ).toStrictEqual({
      imports: ["import { greet } from 'greeter'"],
      body: "\nasync () => greet(await files.read('notes.txt'))",
    });
  });

  test('code without imports is all body', () => {
    expect(separateImports('async () => 1')).toStrictEqual({ imports: [], body: 'async () => 1' });
  });

  test('reads every import form, attributes and semicolons included', () => {
    const code = [
      '// a leading comment',
      "import a from 'a';",
      '/* between */ import * as b from "b"',
      "import c, { d as e, 'f g' as h } from './c.js' with { type: 'json' } ;",
      "import 'side-effect'",
      'async () => [a, b, e, h]',
    ].join('\n');
    const { imports, body } = separateImports(code);
    expect(imports).toStrictEqual([
      "import a from 'a'",
      'import * as b from "b"',
      "import c, { d as e, 'f g' as h } from './c.js' with { type: 'json' }",
      "import 'side-effect'",
    ]);
    expect(body).toBe('\nasync () => [a, b, e, h]');
  });

  test('leaves strings that contain the word import in the body', () => {
    const code = `async () => "import x from 'y'" + 'import z'`;
    expect(separateImports(code)).toStrictEqual({ imports: [], body: code });
  });

  test('leaves import.meta and dynamic import() in the body', () => {
    const code = "import a from 'a'\nasync () => [import.meta.url, await import('./b.js')]";
    expect(separateImports(code)).toStrictEqual({
      imports: ["import a from 'a'"],
      body: "\nasync () => [import.meta.url, await import('./b.js')]",
    });
  });

  test('keeps a trailing line comment after the arrow in the body', () => {
    expect(separateImports("import a from 'a'\nasync () => 1 // done")).toStrictEqual({
      imports: ["import a from 'a'"],
      body: '\nasync () => 1 // done',
    });
  });

  test('does not treat an import inside a comment as one', () => {
    const code = "// import a from 'a'\n/* import b from 'b' */ async () => 1";
    expect(separateImports(code)).toStrictEqual({ imports: [], body: code });
  });

  test('stops at the first code that is not an import', () => {
    const code = "import a from 'a'\nasync () => 1\nimport b from 'b'";
    expect(separateImports(code)).toStrictEqual({
      imports: ["import a from 'a'"],
      body: "\nasync () => 1\nimport b from 'b'",
    });
  });

  test('returns code the lexer cannot read whole, for the engine to report', () => {
    const code = "import a from 'a'\nasync () => {";
    expect(separateImports(code)).toStrictEqual({ imports: [], body: code });
  });

  test('keeps templates and regular expressions that mention import whole', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the text is source code that holds a template.
    const code = 'async () => `import ${"x"} from y` + /import a from "b"/.source';
    expect(separateImports(code)).toStrictEqual({ imports: [], body: code });
  });

  // separateImports skips the lexer for code that holds neither word; these are the spellings that
  // come nearest without holding one, which the lexer itself must find nothing in.
  test.each([
    ["async () => \\u0069mport('x')"],
    ["async () => im\\u0070ort('x')"],
    ["\\u0065xport { a } from 'b'\nasync () => 1"],
    ["async () => im/**/port('x')"],
    ["async () => globalThis['imp' + 'ort']"],
    ['async () => { const IMPORT = 1; return IMPORT }'],
    ['async () => { const Export = 1; return Export }'],
  ])('the lexer finds no declaration in %j, which holds neither word', (code) => {
    expect(code.includes('import') || code.includes('export')).toBe(false);
    let records: readonly unknown[] = [];
    try {
      [records] = parse(code);
    } catch {
      // Unreadable is the same answer: no imports, the whole code as the body.
    }
    expect(records).toStrictEqual([]);
    expect(separateImports(code)).toStrictEqual({ imports: [], body: code });
  });

  test('still reads a leading export-from declaration, which the lexer counts as an import', () => {
    const code = "export { a } from 'a'\nasync () => 1";
    expect(separateImports(code).imports).toStrictEqual(["export { a } from 'a'"]);
  });
});
