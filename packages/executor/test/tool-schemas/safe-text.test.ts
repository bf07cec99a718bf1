/**
 * The sanitizer for text a model or a person reads: each class of character that could break a
 * line, move or hide text, open or close a code block or end a comment comes out as plain text.
 */
import { describe, expect, test } from 'vitest';
import { cutText, safeText } from '../../src/tool-schemas/safe-text.ts';

describe('safeText', () => {
  test.each([
    ['a lone CR', 'a\rb', 'a\\u000db'],
    ['CRLF, which becomes LF', 'a\r\nb', 'a\nb'],
    ['U+2028 and U+2029', 'a\u2028b\u2029c', 'a\\u2028b\\u2029c'],
    ['bidi overrides and isolates', '\u202aa\u202e\u2066b\u2069', '\\u202aa\\u202e\\u2066b\\u2069'],
    ['zero-width characters', 'a\u200bb\u200dc\ufeffd\u2060', 'a\\u200bb\\u200dc\\ufeffd\\u2060'],
    [
      'C0 and C1 controls, tab and DEL included',
      '\0\t\x1b[1m\x7f\x85\x9f',
      '\\u0000\\u0009\\u001b[1m\\u007f\\u0085\\u009f',
    ],
    [
      'tag characters spelling a hidden instruction',
      'Buy milk\u{e0053}\u{e0059}\u{e0053}',
      'Buy milk\\u{e0053}\\u{e0059}\\u{e0053}',
    ],
    [
      'variation selectors, Hangul fillers, U+034F, the interlinear marks, U+2800 and U+FFFC',
      'a\ufe0fb\u{e0100}c\u115fd\u3164e\u034ff\ufff9g\u2800h\ufffci\u17b4',
      'a\\ufe0fb\\u{e0100}c\\u115fd\\u3164e\\u034ff\\ufff9g\\u2800h\\ufffci\\u17b4',
    ],
    ['code fences of backticks and tildes', '```ts ~~~ ````', '\\u0060``ts \\u007e~~ \\u0060\\u0060``'],
    ['a comment terminator', 'a */ b', 'a *\\/ b'],
  ])('%s', (_name, text, safe) => {
    expect(safeText(text)).toBe(safe);
  });

  test('line feeds, two backticks and ordinary non-ASCII text are kept', () => {
    expect(safeText('one\ntwo `` ü 日本 😀 한국')).toBe('one\ntwo `` ü 日本 😀 한국');
  });

  test("one variation selector after a pictograph is kept, as an emoji's; a second, or one after text, is escaped", () => {
    expect(safeText('⚠\ufe0f careful, 😀\ufe0e')).toBe('⚠\ufe0f careful, 😀\ufe0e');
    expect(safeText('⚠\ufe0f\ufe0f')).toBe('⚠\ufe0f\\ufe0f');
    expect(safeText('a\ufe0f')).toBe('a\\ufe0f');
  });

  test('an escape past U+FFFF reads back as the character in a string literal', () => {
    const escapedText = safeText('x\u{e0041}y');
    expect(new Function(`return '${escapedText}'`)()).toBe('x\u{e0041}y');
  });
});

describe('cutText', () => {
  test('names the bound it cut at and never splits a surrogate pair', () => {
    expect(cutText('abcdef', 3, 'SOME_LIMIT')).toBe(
      'abc… [cut: 6 characters, the first 3 shown (SOME_LIMIT)]',
    );
    expect(cutText('ab😀cd', 3, 'SOME_LIMIT')).toBe(
      'ab… [cut: 6 characters, the first 2 shown (SOME_LIMIT)]',
    );
    expect(cutText('abc', 3, 'SOME_LIMIT')).toBe('abc');
  });
});
