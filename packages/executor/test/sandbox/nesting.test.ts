/** The nesting scan on its own: what counts as a level, what does not, and where it refuses. */
import { BadRequestError, NESTING_LIMIT } from '@supolka/codemode-protocol';
import { describe, expect, test } from 'vitest';
import {
  CODE_NAME,
  checkNesting,
  moduleName,
  nestingMessage,
  nestingPast,
} from '../../src/sandbox/nesting.ts';

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

test('the scan is linear: 8 MiB of mixed tokens, and a megabyte of one long string', () => {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the source scanned holds a template.
  const line = 'const a = [1, "x(", /re[(]/g, `t${b}`, { c: (d) }]; // [\n';
  expect(nestingPast(line.repeat(Math.floor((8 * 1024 * 1024) / line.length)), NESTING_LIMIT)).toBe(-1);
  expect(nestingPast(`'${'\\'.repeat(2 ** 20)}'`, NESTING_LIMIT)).toBe(-1);
  expect(nestingPast('/'.repeat(2 ** 20), NESTING_LIMIT)).toBe(-1);
  expect(nestingPast('`'.repeat(2 ** 20), NESTING_LIMIT)).toBe(-1);
});
