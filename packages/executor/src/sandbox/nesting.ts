/**
 * The nesting scan: how deep brackets nest in a source, read in one linear pass before any
 * host-side parser (amaro, es-module-lexer, acorn) sees it. Those parsers recurse per level and run
 * outside every isolate limit; amaro's WebAssembly build is left broken for the whole process by an
 * input that overflows it. Past NESTING_LIMIT the source is refused, well below what each of them
 * survives (docs/threat-model.md).
 *
 * The scan knows what is not code: strings, comments, template text (with `${}` substitutions,
 * which nest like brackets) and regular expression literals. Whether a `/` starts a regular
 * expression or divides is decided by the token before it, as parsers do: after a value it
 * divides; after an operator, a keyword like `return`, an opening bracket, the `)` of `if (...)`
 * and the like, or the `}` of a block, it starts one. Misreading is bounded in the safe direction:
 * brackets inside what is read as a regular expression still count toward the depth there, so a
 * division misread as one cannot hide deep nesting. Everything is one pass over the text.
 */
import { BadRequestError, NESTING_LIMIT } from '@supolka/codemode-protocol';

/** What the refusal calls the request's code; a module is called by its name. */
export const CODE_NAME = 'The code';

/** What the refusal calls module `name`. */
export function moduleName(name: string): string {
  return `Module ${JSON.stringify(name)}`;
}

/** The sentence a source nested past the limit is refused with; `name` is CODE_NAME or moduleName(key). */
export function nestingMessage(name: string, line: number): string {
  return `${name} nests brackets more than ${NESTING_LIMIT} levels deep (NESTING_LIMIT) at line ${line}: code is refused before any host-side parser reads it when it nests this deep; flatten it.`;
}

/** Throws BadRequestError when brackets in `source` nest deeper than NESTING_LIMIT. */
export function checkNesting(source: string, name: string): void {
  const at = nestingPast(source, NESTING_LIMIT);
  if (at === -1) return;
  let line = 1;
  for (
    let index = source.indexOf('\n');
    index !== -1 && index < at;
    index = source.indexOf('\n', index + 1)
  ) {
    line++;
  }
  throw new BadRequestError(nestingMessage(name, line));
}

// What an open bracket on the stack is; a `)` and a `}` decide what a following `/` is from it.
const PAREN = 0;
/** The `(` of `if`, `while`, `for`, `with`: a `/` after its `)` starts a regular expression. */
const CONDITION = 1;
const SQUARE = 2;
/** A block's `{`: a `/` after its `}` starts a regular expression. */
const BLOCK = 3;
/** An object literal's `{`: a `/` after its `}` divides. */
const OBJECT = 4;
/** A template's `${`: its `}` goes back to the template text. */
const SUBSTITUTION = 5;

/** Words after which a `/` starts a regular expression: they are followed by an expression. */
const EXPRESSION_KEYWORDS = new Set([
  'await',
  'case',
  'delete',
  'do',
  'else',
  'in',
  'instanceof',
  'new',
  'return',
  'throw',
  'typeof',
  'void',
  'yield',
]);
const CONDITION_KEYWORDS = new Set(['if', 'while', 'for', 'with']);
/** Words after which a `{` opens a block. */
const BLOCK_KEYWORDS = new Set(['do', 'else', 'try', 'finally']);

const isLineEnd = (code: number) => code === 10 || code === 13 || code === 0x2028 || code === 0x2029;
const isWordChar = (code: number) =>
  (code >= 97 && code <= 122) ||
  (code >= 65 && code <= 90) ||
  (code >= 48 && code <= 57) ||
  code === 36 ||
  code === 95 ||
  code === 92 ||
  code === 35 ||
  code > 127;
const isSpace = (code: number) => code === 32 || code === 9 || code === 11 || code === 12 || code === 0xfeff;

/**
 * The index of the first bracket that opens past `limit` levels, or -1. Linear: every character
 * is looked at a bounded number of times.
 */
export function nestingPast(source: string, limit: number): number {
  const stack: number[] = [];
  const length = source.length;
  // Whether a `/` here starts a regular expression; true where an expression may begin.
  let expression = true;
  // The last word read and the last punctuator, for `(` after `if` and `{` after `=>` or `)`.
  let word = '';
  let last = '';
  // After `.`, a word is a property name, never a keyword.
  let property = false;
  let index = 0;
  let inTemplate = false;

  const open = (kind: number): boolean => {
    stack.push(kind);
    expression = true;
    return stack.length > limit;
  };

  while (index < length) {
    if (inTemplate) {
      // Template text up to its closing backtick or the next substitution.
      const code = source.charCodeAt(index);
      if (code === 92) {
        index += 2;
      } else if (code === 96) {
        inTemplate = false;
        expression = false;
        last = '`';
        index++;
      } else if (code === 36 && source.charCodeAt(index + 1) === 123) {
        inTemplate = false;
        if (open(SUBSTITUTION)) return index;
        last = '${';
        index += 2;
      } else {
        index++;
      }
      continue;
    }
    const code = source.charCodeAt(index);
    if (isSpace(code) || isLineEnd(code)) {
      index++;
      continue;
    }
    if (code === 47) {
      const next = source.charCodeAt(index + 1);
      if (next === 47) {
        while (index < length && !isLineEnd(source.charCodeAt(index))) index++;
        continue;
      }
      if (next === 42) {
        const end = source.indexOf('*/', index + 2);
        index = end === -1 ? length : end + 2;
        continue;
      }
      if (expression) {
        const end = regexEnd(source, index + 1, stack.length, limit);
        if (end < 0) return index;
        index = end;
        while (index < length && isWordChar(source.charCodeAt(index))) index++;
        expression = false;
        last = '/re/';
        word = '';
        continue;
      }
      index++;
      expression = true;
      last = '/';
      continue;
    }
    if (code === 39 || code === 34) {
      index = stringEnd(source, index + 1, code);
      expression = false;
      last = '"';
      word = '';
      continue;
    }
    if (code === 96) {
      inTemplate = true;
      index++;
      continue;
    }
    if (isWordChar(code)) {
      const start = index;
      while (index < length && isWordChar(source.charCodeAt(index))) index++;
      // A number like 1.5 reads on past its dot as the same token.
      if (code >= 48 && code <= 57) {
        while (index < length && (isWordChar(source.charCodeAt(index)) || source.charCodeAt(index) === 46))
          index++;
      }
      // Keywords are short; slicing every long identifier would only make garbage.
      word = property || index - start > 10 ? '' : source.slice(start, index);
      expression = EXPRESSION_KEYWORDS.has(word);
      property = false;
      last = 'word';
      continue;
    }
    index++;
    switch (code) {
      case 40: // (
        if (open(last === 'word' && CONDITION_KEYWORDS.has(word) ? CONDITION : PAREN)) return index - 1;
        last = '(';
        break;
      case 91: // [
        if (open(SQUARE)) return index - 1;
        last = '[';
        break;
      case 123: // {
        if (open(opensBlock(last, word) ? BLOCK : OBJECT)) return index - 1;
        last = '{';
        break;
      case 41: // )
        expression = close(stack, PAREN, CONDITION) === CONDITION;
        last = ')';
        break;
      case 93: // ]
        close(stack, SQUARE, SQUARE);
        expression = false;
        last = ']';
        break;
      case 125: {
        // }
        const closed = close(stack, BLOCK, OBJECT, SUBSTITUTION);
        if (closed === SUBSTITUTION) inTemplate = true;
        expression = closed === BLOCK;
        last = '}';
        break;
      }
      case 46: // .
        if (source.charCodeAt(index) === 46 && source.charCodeAt(index + 1) === 46) {
          index += 2;
          expression = true;
          last = '...';
        } else {
          property = true;
          expression = false;
          last = '.';
        }
        break;
      case 43: // +
      case 45: // -
        // `++` and `--` leave the question as it was: after a value it stays a value.
        if (source.charCodeAt(index) === code) index++;
        else expression = true;
        last = '+';
        break;
      case 59: // ;
        expression = true;
        last = ';';
        break;
      default:
        expression = true;
        last = 'operator';
        if (code === 61 && source.charCodeAt(index) === 62) {
          index++;
          last = '=>';
        }
    }
    if (last !== '.') property = false;
    word = '';
  }
  return -1;
}

/** A `{` opens a block after `)`, `=>`, `;`, `{`, `}`, at the start, and after `else`, `do`, `try`, `finally`. */
function opensBlock(last: string, word: string): boolean {
  if (last === 'word') return BLOCK_KEYWORDS.has(word);
  return last === '' || last === ')' || last === '=>' || last === ';' || last === '{' || last === '}';
}

/**
 * Pops the top of the stack when it is `kind`, `other` or `third` and answers what it was, or -1. A closer
 * that matches nothing pops nothing: the depth stays where it was, which never under-counts.
 */
function close(stack: number[], kind: number, other: number, third = other): number {
  const top = stack.length === 0 ? -1 : (stack[stack.length - 1] as number);
  if (top !== kind && top !== other && top !== third) return -1;
  stack.pop();
  return top;
}

/** Index past the closing quote (or at the line end a string cannot cross unescaped). */
function stringEnd(source: string, from: number, quote: number): number {
  let index = from;
  while (index < source.length) {
    const code = source.charCodeAt(index);
    if (code === 92) index += 2;
    else if (code === quote) return index + 1;
    else if (code === 10 || code === 13) return index;
    else index++;
  }
  return index;
}

/**
 * Index past a regular expression literal's closing `/`, or -(index + 1) when the brackets in it,
 * added to `depth`, pass `limit`. Its own brackets are counted so a division misread as a regular
 * expression cannot hide nesting from the scan; they never change the depth after it.
 */
function regexEnd(source: string, from: number, depth: number, limit: number): number {
  let index = from;
  let inner = 0;
  let inClass = false;
  while (index < source.length) {
    const code = source.charCodeAt(index);
    if (isLineEnd(code)) return index;
    if (code === 92) {
      index += 2;
      continue;
    }
    if (code === 40 || code === 91 || code === 123) {
      if (depth + ++inner > limit) return -(index + 1);
    } else if ((code === 41 || code === 93 || code === 125) && inner > 0) {
      inner--;
    }
    if (code === 91) inClass = true;
    else if (code === 93) inClass = false;
    else if (code === 47 && !inClass) return index + 1;
    index++;
  }
  return index;
}
