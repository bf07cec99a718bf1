/** The nesting scan on its own: what counts as a level, what does not, and where it refuses. */
import { BadRequestError, NESTING_LIMIT } from '@supolka/codemode-protocol';
import { describe, expect, test } from 'vitest';
import {
  CODE_NAME,
  checkNesting,
  moduleName,
  nestingMessage,
  nestingPast,
  unreadableMessage,
} from '../../src/sandbox/sources/nesting-scan.ts';

const nest = (open: string, close: string, depth: number, inner = '1') =>
  `async () => ${open.repeat(depth)}${inner}${close.repeat(depth)}`;

describe('each bracket kind, and mixed', () => {
  test.each([
    ['parentheses', '(', ')'],
    ['square brackets', '[', ']'],
    ['braces', '{', '}'],
    ['template substitutions', '`${', '}`'],
    ['mixed', '([{`${', '}`}])'],
  ])('%s: at the limit pass, one past it is refused', (_kind, open, close) => {
    const levels = open === '([{`${' ? 4 : 1;
    const depth = Math.floor(NESTING_LIMIT / levels);
    expect(nestingPast(nest(open, close, depth), NESTING_LIMIT)).toBe(-1);
    expect(nestingPast(nest(open, close, depth + 1), NESTING_LIMIT)).not.toBe(-1);
  });

  test('the refusal names the source, the limit and the line, as BAD_REQUEST', () => {
    const code = `async () => {\n  return 1\n}\n${nest('(', ')', NESTING_LIMIT + 1)}`;
    expect(() => checkNesting(code, CODE_NAME)).toThrow(new BadRequestError(nestingMessage(CODE_NAME, 4)));
    expect(nestingMessage(moduleName('lib.ts'), 4)).toBe(
      `Module "lib.ts" nests brackets more than ${NESTING_LIMIT} levels deep (NESTING_LIMIT) at line 4: code is refused before any host-side parser reads it when it nests this deep; flatten it.`,
    );
  });

  test('nesting inside a template substitution inside a string-looking template counts', () => {
    const inner = `\`a \${${'['.repeat(NESTING_LIMIT)}1${']'.repeat(NESTING_LIMIT)}} b\``;
    expect(nestingPast(`async () => ${inner}`, NESTING_LIMIT)).not.toBe(-1);
  });
});

describe('what is not code does not count', () => {
  const many = 5000;
  test.each([
    ['a single-quoted string', `'${'('.repeat(many)}'`],
    ['a double-quoted string with escaped quotes', `"\\"${'{'.repeat(many)}\\""`],
    ['a line comment', `0 // ${'['.repeat(many)}\n`],
    ['a block comment across lines', `0 /* ${'(\n'.repeat(many)} */`],
    ['template text', `\`${'{'.repeat(many)}\${1}${'('.repeat(many)}\``],
    ['escaped brackets in a regular expression', `/${'\\('.repeat(many)}/.source`],
    ['balanced groups of regular expressions, one after another', `[${'/(a|[(])/, '.repeat(many)}]`],
    ['a regular expression after a keyword', `void /${'\\['.repeat(many)}/`],
    ['a regular expression after the ) of if', `{ if (1) /${'\\{'.repeat(many)}/.test('x') }`],
  ])('%s', (_what, inner) => {
    expect(nestingPast(`async () => ${inner}`, NESTING_LIMIT)).toBe(-1);
  });

  test('division is not a regular expression: brackets after it count', () => {
    expect(nestingPast(`async () => a / b / ${'('.repeat(NESTING_LIMIT + 1)}`, NESTING_LIMIT)).not.toBe(-1);
    expect(nestingPast(`async () => (a) / ${'['.repeat(NESTING_LIMIT + 1)}`, NESTING_LIMIT)).not.toBe(-1);
  });

  test('a division read as a regular expression still has its brackets counted', () => {
    // The } of a function expression reads as the end of a block, so the / after it as a regex.
    const hidden = `async () => function () {} / ${'['.repeat(NESTING_LIMIT + 1)}${']'.repeat(NESTING_LIMIT + 1)} / 1`;
    expect(nestingPast(hidden, NESTING_LIMIT)).not.toBe(-1);
  });

  test('closers that match nothing never lower the depth', () => {
    const code = `async () => ${')'.repeat(1000)}${'('.repeat(NESTING_LIMIT + 1)}`;
    expect(nestingPast(code, NESTING_LIMIT)).not.toBe(-1);
  });
});

describe('misreadings an attacker writes: each program parses in V8 and nests 1000 levels', () => {
  const depth = 1000;
  const deep = (level: string) => `async () => {${level.repeat(depth)}${'}'.repeat(depth)}}`;
  test.each([
    // A regular expression after a class body or a label's block, which the scan read as a
    // division: the } inside it closed a function body the scan had counted.
    ['a regular expression after a class body', deep('function f() { class A {} /}/;')],
    ['a regular expression after a label block', deep('function f() { L: {} /\\}/;')],
    ['a regular expression after extends', deep('function f() { class A extends /}/.constructor {}\n')],
    // A division after a function expression, which the scan read as a regular expression
    // running to the end of the line or past unbalanced groups: the brackets in it were forgotten.
    [
      'a division after a function expression, to the line end',
      `async () => ${`function () {} / ${'('.repeat(100)}\n`.repeat(10)}1${')'.repeat(depth)}`,
    ],
    [
      'a division after a function expression, up to a slash',
      `async () => ${`function () {} / ${'('.repeat(100)} 1 / `.repeat(10)}1${')'.repeat(depth)}`,
    ],
    // A division whose text reads as a short regular expression, then a template or a comment
    // across lines that the scan read as code: its } closed what the scan had counted.
    ['a template after a division', deep('function f() { x = function () {} / ` /\n}` ;\n')],
    ['a block comment after a division', deep('function f() { x = function () {} / x /*\n}*/ ;\n')],
  ])('%s', (_what, code) => {
    expect(() => new Function(`return ${code}`)).not.toThrow();
    expect(nestingPast(code, NESTING_LIMIT)).not.toBe(-1);
  });

  test('slashes that would make the scan read one long line again and again are refused, at once', () => {
    // Each `/` starts a reading as a regular expression that runs in and out of classes to the
    // line's end; read as a division instead, its `[` and `]` balance, so depth never refuses it.
    const code = `x = ${'[/]'.repeat(300_000)}`;
    expect(() => checkNesting(code, CODE_NAME)).toThrow(new BadRequestError(unreadableMessage(CODE_NAME, 1)));
    expect(unreadableMessage(moduleName('lib.js'), 3)).toBe(
      'Module "lib.js" has too many slashes the nesting scan cannot read as division or regular expression (at line 3): code is refused before any host-side parser reads it when its nesting cannot be bounded; write it more plainly.',
    );
  });

  test('the regular expressions those readings now weigh still pass where code has them', () => {
    const code = `async () => {
  if (x) { y() } /a(b)c/.test(s)
  const o = { a: 1 }
  for (const m of /x/g.exec(s) ?? []) f(m)
  class A extends /r/.constructor {}
  return [function () {} / 2, {} / 3, /[([]/.source]
}`;
    expect(() => new Function(`return ${code}`)).not.toThrow();
    expect(nestingPast(code, NESTING_LIMIT)).toBe(-1);
  });
});

test('the scan is linear: 8 MiB of mixed tokens, and a megabyte of one long string', () => {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the source scanned holds a template.
  const line = 'const a = [1, "x(", /re[(]/g, `t${b}`, { c: (d) }]; // [\n';
  expect(nestingPast(line.repeat(Math.floor((8 * 1024 * 1024) / line.length)), NESTING_LIMIT)).toBe(-1);
  expect(nestingPast(`'${'\\'.repeat(2 ** 20)}'`, NESTING_LIMIT)).toBe(-1);
  expect(nestingPast('/'.repeat(2 ** 20), NESTING_LIMIT)).toBe(-1);
  expect(nestingPast('`'.repeat(2 ** 20), NESTING_LIMIT)).toBe(-1);
});
