/**
 * The normalizer's acorn with linear scope bookkeeping (src/codemode/linear-parser.ts). acorn's own
 * scopes scan every earlier declaration for each new one; the inputs below are sized so that the
 * quadratic version would run for minutes (40,000 destructured names took 21 s), which the test
 * timeout would end. What is asserted is the outcome, and that the trees equal acorn's own.
 */
import { type Options, parse } from 'acorn';
import { describe, expect, test } from 'vitest';
import { toEntryCode } from '../../src/codemode/entry-code.ts';
import { LinearParser } from '../../src/codemode/linear-parser.ts';

const OPTIONS: Options = { ecmaVersion: 'latest', sourceType: 'module', allowReturnOutsideFunction: true };

const names = (count: number, prefix = 'n') =>
  Array.from({ length: count }, (_, index) => `${prefix}${index}`);

/** acorn's verdict on `source`, as a tree or the error text. */
function verdict(parser: { parse(source: string, options: Options): unknown }, source: string): unknown {
  try {
    return JSON.parse(JSON.stringify(parser.parse(source, OPTIONS)));
  } catch (error) {
    return (error as Error).message;
  }
}

describe('LinearParser', () => {
  test.each([
    ['lexical declarations', 'let a = 1; const b = 2; class C {} a + b'],
    ['a redeclared let', 'let a; let a;'],
    ['var after let', 'let a; { var a; }'],
    ['let after a function', 'function f() {} let f;'],
    ['a catch parameter redeclared by var (allowed)', 'try {} catch (e) { var e; }'],
    ['a catch pattern redeclared by var (refused)', 'try {} catch ([e]) { var e; }'],
    ['an export of a declared name', 'const x = 1; export { x };'],
    ['an export of an undeclared name', 'export { missing };'],
    ['an export declared later', 'export { y }; var y;'],
    ['functions in blocks', '{ function g() {} function g() {} }'],
    ['nested scopes', 'const k = 1; function f(k) { let j = k; { let k = j; } return k }'],
    ['destructuring', 'let { a, b: [c, ...d], ...e } = {}; export { a, c, d, e }'],
  ])('%s: the same tree or the same error as acorn', (_, source) => {
    expect(verdict(LinearParser, source)).toEqual(verdict({ parse }, source));
  });

  test('a destructuring of 100,000 names parses', () => {
    const source = `let { ${names(100_000).join(', ')} } = {};`;
    const program = LinearParser.parse(source, OPTIONS);
    expect(program.body).toHaveLength(1);
  });

  test('80,000 let statements and an export of every one of them parse', () => {
    const list = names(80_000);
    const source = `${list.map((name) => `let ${name};`).join('\n')}\nexport { ${list.join(', ')} };`;
    expect(LinearParser.parse(source, OPTIONS).body).toHaveLength(80_001);
  });

  test('80,000 function declarations parse, and a redeclaration among them is still found', () => {
    const list = names(80_000, 'f');
    const source = list.map((name) => `function ${name}() {}`).join('\n');
    expect(LinearParser.parse(source, OPTIONS).body).toHaveLength(80_000);
    expect(() => LinearParser.parse(`${source}\nlet f79999;`, OPTIONS)).toThrow(
      "Identifier 'f79999' has already been declared",
    );
  });

  test('the Code Mode normalizer reads 60,000 declarations in the caller process', () => {
    const list = names(60_000);
    const code = `${list.map((name) => `let ${name} = 1;`).join('\n')}\nreturn ${list.length}`;
    const entry = toEntryCode(code, true);
    expect(entry.startsWith('async () => {\nlet n0 = 1;')).toBe(true);
    expect(entry.endsWith('\nreturn 60000\n}')).toBe(true);
  });
});
