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
 * and the like, it starts one. After a `}` (a block, a class body, an object literal, a function
 * expression) or the `of` of a for header both readings are possible, and the scan cannot tell
 * without a parser. Misreading is bounded in the safe direction:
 * - what is read as a regular expression must be one: it ends on its line with balanced groups
 *   and no stray `)` (every valid regular expression does), or the `/` is read as a division;
 * - after a `}` or an `of`, a reading as a regular expression whose text, read as code, would
 *   leave brackets open or start a string, a template or a comment is read as a division
 *   instead, so what follows is read as the division reading has it;
 * - brackets inside a regular expression count toward the depth there, and a `}` or `)` inside
 *   one never closes anything, so a regular expression read as code could only over-count.
 * Everything is one pass over the text: each character is looked at a bounded number of times.
 */
import { BadRequestError, NESTING_LIMIT } from '@supolka/codemode-protocol/wire';

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

/**
 * The sentence a source is refused with when the scan spent its budget on `/` that could each
 * begin a regular expression: no program people write needs it, and a longer search would not be
 * linear.
 */
export function unreadableMessage(name: string, line: number): string {
  return `${name} has too many slashes the nesting scan cannot read as division or regular expression (at line ${line}): code is refused before any host-side parser reads it when its nesting cannot be bounded; write it more plainly.`;
}

/** Throws BadRequestError when brackets in `source` nest deeper than NESTING_LIMIT. */
export function checkNesting(source: string, name: string): void {
  const at = nestingPast(source, NESTING_LIMIT);
  if (at === -1) return;
  const unreadable = budgetSpent;
  let line = 1;
  for (
    let index = source.indexOf('\n');
    index !== -1 && index < at;
    index = source.indexOf('\n', index + 1)
  ) {
    line++;
  }
  throw new BadRequestError(unreadable ? unreadableMessage(name, line) : nestingMessage(name, line));
}

/**
 * Characters regexEnd may read per character of the source. Each `/` read as a regular expression
 * that turns out to be none is read again as code, so a pathological line could make that
 * quadratic; past the budget the source is refused (nestingPast answers the index, and this flag
 * says why). Real code spends well under one.
 */
const REGEX_BUDGET = 2;
let budgetSpent = false;

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
  // Reserved words a regular expression may follow: `export default /x/`, `class A extends /x/.constructor {}`.
  'default',
  'extends',
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
  const budget = { left: REGEX_BUDGET * length + 1024 };
  budgetSpent = false;
  // Whether a `/` here starts a regular expression; true where an expression may begin.
  let expression = true;
  // The last word read and the last punctuator, for `(` after `if` and `{` after `=>` or `)`.
  let word = '';
  let last = '';
  // After `.`, a word is a property name, never a keyword.
  let property = false;
  // Whether the `/` here may be either a division or a regular expression (after `}`, or `of`).
  let ambiguous = false;
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
      const end = expression
        ? regexEnd(source, index + 1, stack.length, limit, ambiguous, budget)
        : NOT_A_REGEX;
      ambiguous = false;
      if (budget.left < 0) {
        budgetSpent = true;
        return index;
      }
      if (end !== NOT_A_REGEX) {
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
      // `for (x of /re/)`, where `of` may also be a variable's name.
      ambiguous = word === 'of' && stack[stack.length - 1] === CONDITION;
      if (ambiguous) expression = true;
      property = false;
      last = 'word';
      continue;
    }
    index++;
    ambiguous = false;
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
        // A block, a class body or a label's block may be followed by a regular expression; an
        // object literal or a function expression by a division. regexEnd weighs both.
        expression = closed === BLOCK || closed === OBJECT;
        ambiguous = expression;
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

/** What regexEnd answers when the `/` cannot start a regular expression: it divides. */
const NOT_A_REGEX = 0;

/**
 * Index past a regular expression literal's closing `/`; -(index + 1) when the brackets in it,
 * added to `depth`, pass `limit`; NOT_A_REGEX when the text is no regular expression (it reaches
 * its line's end, its groups do not balance, or, where either reading is possible, its text read
 * as code would leave brackets open). Its own brackets are counted so a division misread as a
 * regular expression cannot hide nesting from the scan; they never change the depth after it.
 */
function regexEnd(
  source: string,
  from: number,
  depth: number,
  limit: number,
  ambiguous: boolean,
  budget: { left: number },
): number {
  let index = from;
  // Brackets open in the text read as code, and groups open in it read as a regular expression.
  let inner = 0;
  let groups = 0;
  let inClass = false;
  // A quote or backtick, which read as code would open a string or a template.
  let quoted = false;
  while (index < source.length) {
    if (--budget.left < 0) return NOT_A_REGEX;
    const code = source.charCodeAt(index);
    if (isLineEnd(code)) return NOT_A_REGEX;
    if (code === 92) {
      index += 2;
      continue;
    }
    if (code === 40 || code === 91 || code === 123) {
      if (depth + ++inner > limit) return -(index + 1);
    } else if (code === 41 || code === 93 || code === 125) {
      inner--;
    }
    if (code === 39 || code === 34 || code === 96) quoted = true;
    if (inClass) {
      if (code === 93) inClass = false;
    } else if (code === 91) {
      inClass = true;
    } else if (code === 40) {
      groups++;
    } else if (code === 41) {
      if (--groups < 0) return NOT_A_REGEX;
    } else if (code === 47) {
      if (groups !== 0) return NOT_A_REGEX;
      // Where either reading is possible, the regular expression is taken only when reading its
      // text as code could not leave more open: no bracket, string, template or comment.
      const after = source.charCodeAt(index + 1);
      if (ambiguous && (inner > 0 || quoted || after === 42 || after === 47)) return NOT_A_REGEX;
      return index + 1;
    }
    index++;
  }
  return NOT_A_REGEX;
}
