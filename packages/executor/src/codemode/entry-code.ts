/**
 * Code as the Code Mode form receives it, made into the entry this executor runs: static imports
 * first, then one function expression (docs/codemode.md, "Code").
 *
 * Two producers matter. `createCodeTool` runs `@cloudflare/codemode`'s normalizeCode before the
 * executor sees the code, and for code that opens with imports that puts them inside a wrapper
 * arrow, `async () => {\n<imports and statements>return (<last expression>)\n}`, where no engine
 * accepts them; the wrapper is recognised here and the imports go back to the top, so the module
 * map serves them. `codeMcpServer` hands over the model's text untouched, which the contract's own
 * executor normalizes itself, so this does too: a markdown fence is dropped, statements are wrapped
 * in an async arrow, and a last expression statement becomes the value returned.
 *
 * The shapes are read with acorn, the parser normalizeCode itself uses, with its scope bookkeeping
 * made linear (linear-parser.ts). Code acorn cannot read goes
 * on unchanged, so the engine reports its own syntax error; with TypeScript on, code acorn cannot
 * read as JavaScript has its types erased and is read again, so annotated statements are read too,
 * and code that reads as JavaScript is never erased (JavaScript first, docs/codemode.md). Every
 * step of its own is linear in the code, which CODE_LIMIT bounds; amaro's erasure is not (a few KB
 * can take it seconds), which is why IsolateExecutor reads code here only through normalize-lanes.ts,
 * erasure always in a thread ended at the run's bound.
 */

import { BadRequestError, checkSourceLimits } from '@supolka/codemode-protocol/wire';
import type { Program } from 'acorn';
import { parse as lexImports } from 'es-module-lexer/js';
import { CODE_NAME, checkNesting } from '../sandbox/sources/nesting-scan.ts';
import { eraseTypes } from '../sandbox/sources/typescript.ts';
import { Assembly, CodePositions, type CopiedSlice } from './code-positions.ts';
import { CODE_TOO_DEEP_MESSAGE } from './errors.ts';
import { LinearParser } from './linear-parser.ts';

type TopLevel = Program['body'][number];

interface ReadProgram {
  /** The text the node positions index: the code, or the code with its types erased. */
  readonly text: string;
  readonly body: readonly TopLevel[];
}

const WRAPPER_HEAD = 'async () => {';
const FENCE = '```';
const FENCE_LANGUAGES = new Set(['', 'js', 'javascript', 'jsx', 'ts', 'typescript', 'tsx']);

/**
 * Throws BadRequestError for code past CODE_LIMIT or nested past NESTING_LIMIT: this runs in the
 * caller's own process, before acorn and the type eraser read the code.
 */
export function toEntryCode(code: string, typescript: boolean): string {
  return normalizedEntry(code, typescript).code;
}

/** The entry toEntryCode makes, and where the model's code sits in it (code-positions.ts). */
export function normalizedEntry(
  code: string,
  typescript: boolean,
): { code: string; positions: CodePositions } {
  return withPositions(code, entryData(normalize(code, typescript)));
}

/** An entry as plain data, for crossing from the normalizer's thread: its text and the slices it copied. */
export interface EntryData {
  readonly code: string;
  readonly slices: readonly CopiedSlice[];
  readonly authorFrom: number;
}

/** The entry of a read as data; code that reads as no program goes on as its source, a slice of the code. */
export function entryData(read: ReadCode): EntryData {
  if (read.entry === undefined) {
    return {
      code: read.source,
      slices: [{ at: 0, from: read.sourceBase, length: read.source.length }],
      authorFrom: 0,
    };
  }
  return { code: read.entry.text, slices: read.entry.slices, authorFrom: read.entry.authorFrom };
}

/** The entry with its positions in `code`, the code it was read from. */
export function withPositions(code: string, data: EntryData): { code: string; positions: CodePositions } {
  return { code: data.code, positions: new CodePositions(data.code, code, data.slices, data.authorFrom) };
}

/**
 * The entry toEntryCode makes, or undefined for code that reads as no program at all, which
 * toEntryCode passes on for the engine to report: the CLI then says which shapes it expected.
 * Throws as toEntryCode does.
 */
export function readableEntryCode(code: string, typescript: boolean): string | undefined {
  return readableEntry(code, typescript)?.code;
}

/** readableEntryCode's entry, and where the code sits in it (code-positions.ts). */
export function readableEntry(
  code: string,
  typescript: boolean,
): { code: string; positions: CodePositions } | undefined {
  const { entry } = normalize(code, typescript);
  if (entry === undefined) return undefined;
  return { code: entry.text, positions: new CodePositions(entry.text, code, entry.slices, entry.authorFrom) };
}

/** An entry the form made: its text, the slices of the code it copied, and where the model's own text starts. */
export interface MadeEntry {
  readonly text: string;
  readonly slices: readonly CopiedSlice[];
  readonly authorFrom: number;
}

/**
 * The code as read: its entry, or undefined when it reads as no program, the source read (fence
 * and space trimmed), and where that source starts in the code.
 */
export interface ReadCode {
  readonly entry: MadeEntry | undefined;
  readonly source: string;
  readonly sourceBase: number;
}

/**
 * What toEntryCode and readableEntryCode both read. With `typescript` off nothing is erased, and
 * an entry read that way is the one a read with it on gives too: erasure is tried only where the
 * code does not read as JavaScript. Throws as toEntryCode does.
 */
export function normalize(code: string, typescript: boolean): ReadCode {
  checkSourceLimits(code, undefined);
  checkNesting(code, CODE_NAME);
  const trimmed = code.trim();
  const fenced = withoutFence(trimmed);
  const source = fenced.trim();
  // Where `source` starts in `code`: past the leading blanks, a fence line, and the blanks after it.
  const sourceBase =
    code.length -
    code.trimStart().length +
    (trimmed.length - fenced.length - (fenced === trimmed ? 0 : FENCE.length)) +
    (fenced.length - fenced.trimStart().length);
  if (source === '')
    return { entry: { text: 'async () => {}', slices: [], authorFrom: 0 }, source, sourceBase };
  return { entry: readEntry(source, typescript, sourceBase), source, sourceBase };
}

/**
 * The entry for `source`, or undefined when it reads neither as JavaScript nor (with TypeScript
 * on) once erased: such code goes on as written, for the engine to name its syntax error.
 */
function readEntry(source: string, typescript: boolean, base: number): MadeEntry | undefined {
  const body = parseBody(source);
  if (body) return fromProgram({ text: source, body }, false, base, 0);
  const inner = wrapperContents(source, typescript);
  // Inside normalizeCode's wrapper the model's code starts on the line after its head.
  const contents = base + WRAPPER_HEAD.length;
  if (inner)
    return fromProgram(inner, true, contents, source[WRAPPER_HEAD.length] === '\n' ? contents + 1 : contents);
  const erased = typescript ? readErased(source) : undefined;
  return erased ? fromProgram(erased, false, base, 0) : undefined;
}

/**
 * What createCodeTool's wrapper holds, when the code is that wrapper. normalizeCode wraps whole the
 * code acorn cannot read (imports, TypeScript), as `async () => {\n<the code, trimmed>\n}`, so the
 * wrapper does not read as JavaScript either; what it holds is the model's program, which would
 * otherwise run uncalled (an annotated arrow) or lose the value of its last expression (annotated
 * statements), and so end in an undefined result. Contents that open with an import are taken
 * however they are spaced (a syntax error inside a function body is what they always were); any
 * other contents only in that exact shape, so an arrow a caller wrote itself, its body indented,
 * keeps meaning what it says.
 */
function wrapperContents(source: string, typescript: boolean): ReadProgram | undefined {
  if (!source.startsWith(WRAPPER_HEAD) || !source.endsWith('}')) return undefined;
  const text = source.slice(WRAPPER_HEAD.length, -1);
  const inner = read(text, typescript);
  if (inner === undefined) return undefined;
  if (inner.body[0]?.type === 'ImportDeclaration') return inner;
  const made = text.startsWith('\n') && text.endsWith('\n') && text.slice(1, -1) === text.slice(1, -1).trim();
  return made || loneFunction(statementsOf(inner.body), true) ? inner : undefined;
}

/** Models often answer in a markdown block: ```js ... ```. */
function withoutFence(code: string): string {
  if (code.length < 2 * FENCE.length || !code.startsWith(FENCE) || !code.endsWith(FENCE)) return code;
  const lineEnd = code.indexOf('\n');
  if (lineEnd === -1 || !FENCE_LANGUAGES.has(code.slice(FENCE.length, lineEnd).trim())) return code;
  return code.slice(lineEnd + 1, -FENCE.length);
}

function read(text: string, typescript: boolean): ReadProgram | undefined {
  const body = parseBody(text);
  if (body) return { text, body };
  return typescript ? readErased(text) : undefined;
}

/** The text read once its types are erased, or undefined when erasure changes nothing or it still does not read. */
function readErased(text: string): ReadProgram | undefined {
  const erased = erase(text);
  const body = erased === undefined ? undefined : parseBody(erased);
  return erased !== undefined && body ? { text: erased, body } : undefined;
}

/**
 * The text with its types erased (positions kept), or undefined when erasure changes nothing.
 * Statements that end in a top-level `return` do not parse as a module, so they are erased inside
 * a function, where they do; imports parse only in a module, so statements with both have their
 * imports erased apart (eraseAroundImports).
 */
function erase(text: string): string | undefined {
  try {
    return erasedIn(text, '', '') ?? erasedIn(text, `${WRAPPER_HEAD}\n`, '\n}') ?? eraseAroundImports(text);
  } catch {
    // A construct erasure refuses (an enum): the sandbox names it when it erases the code itself.
    return undefined;
  }
}

/** `text` erased between `head` and `tail`, or undefined when that changes nothing (amaro could not read it). */
function erasedIn(text: string, head: string, tail: string): string | undefined {
  const source = head + text + tail;
  const erased = eraseTypes(source, 'code.ts');
  return erased === source ? undefined : erased.slice(head.length, erased.length - tail.length);
}

/**
 * Statements with imports and a top-level `return` (`import d from 'd.json'; const x: number =
 * d.n; return x`) read neither as a module (the return) nor inside a function (the imports). The
 * imports, found by es-module-lexer, which lexes TypeScript's import forms, are erased as a module
 * of their own and the rest inside a function, each with the other's text blanked (line breaks
 * kept), so every position holds: the two erasures are joined back at the imports' bounds.
 */
function eraseAroundImports(text: string): string | undefined {
  // Only records that start with the word `import` are kept below: without it there are none.
  if (!text.includes('import')) return undefined;
  let records: ReturnType<typeof lexImports>[0];
  try {
    [records] = lexImports(text);
  } catch {
    return undefined;
  }
  const imports = records
    .filter((record) => record.type === 'static' && text.startsWith('import', record.importStart))
    .map((record) => [record.importStart, record.importEnd] as const);
  if (imports.length === 0) return undefined;
  const blank = (from: number, to: number) => text.slice(from, to).replace(/[^\n]/g, ' ');
  let importsOnly = '';
  let rest = '';
  let copied = 0;
  for (const [start, end] of imports) {
    importsOnly += blank(copied, start) + text.slice(start, end);
    rest += text.slice(copied, start) + blank(start, end);
    copied = end;
  }
  importsOnly += blank(copied, text.length);
  rest += text.slice(copied);
  const erasedImports = eraseTypes(importsOnly, 'code.ts');
  const erasedRest = erasedIn(rest, `${WRAPPER_HEAD}\n`, '\n}');
  // Erasure keeps every position, so anything else means a piece it could not read.
  if (erasedRest === undefined || erasedImports.length !== text.length || erasedRest.length !== text.length)
    return undefined;
  let joined = '';
  copied = 0;
  for (const [start, end] of imports) {
    joined += erasedRest.slice(copied, start) + erasedImports.slice(start, end);
    copied = end;
  }
  return joined + erasedRest.slice(copied);
}

function parseBody(text: string): readonly TopLevel[] | undefined {
  try {
    return LinearParser.parse(text, {
      ecmaVersion: 'latest',
      sourceType: 'module',
      // A model's statements often end in `return x`; they become the body of the arrow.
      allowReturnOutsideFunction: true,
      allowHashBang: true,
    }).body;
  } catch (error) {
    // Out of stack is no verdict on the syntax: passed on as written, the engine would blame the
    // executor's wrapper for statements that are valid.
    if (outOfStack(error)) throw new BadRequestError(CODE_TOO_DEEP_MESSAGE);
    return undefined;
  }
}

/** What acorn (8.19) raises when its recursion overflows the stack, in place of the RangeError. */
const ACORN_OUT_OF_STACK = 'Not enough stack space to parse input';

function outOfStack(error: unknown): boolean {
  if (error instanceof RangeError) return true;
  return error instanceof SyntaxError && error.message.startsWith(ACORN_OUT_OF_STACK);
}

/**
 * Imports anywhere at the top level go first (a module hoists them anyway); what remains becomes
 * the function. `wrapped` marks the contents of normalizeCode's wrapper, whose `return (f)` of a
 * lone function is the program the model wrote as `imports; f`.
 */
function fromProgram(
  { text, body }: ReadProgram,
  wrapped: boolean,
  base: number,
  authorFrom: number,
): MadeEntry {
  const imports = body.filter((node) => node.type === 'ImportDeclaration');
  const statements = statementsOf(body);
  // An import between statements is blanked out, which keeps every other node's position valid.
  // The pieces are joined once: re-slicing the whole text per import is quadratic in the imports.
  const pieces: string[] = [];
  let copied = 0;
  for (const { start, end } of imports) {
    pieces.push(text.slice(copied, start), text.slice(start, end).replace(/[^\n]/g, ' '));
    copied = end;
  }
  pieces.push(text.slice(copied));
  const rest = pieces.join('');
  const made = new Assembly();
  imports.forEach((node, index) => {
    if (index > 0) made.literal('\n');
    made.copy(text, node.start, node.end, base);
  });
  if (imports.length > 0) made.literal('\n');
  toFunction(made, rest, statements, wrapped, base);
  return { text: made.text, slices: made.slices, authorFrom };
}

/** The statements of a program, without its imports; a stray `;` (formatters put one before a line that opens with a bracket) is no statement. */
function statementsOf(body: readonly TopLevel[]): readonly TopLevel[] {
  return body.filter((node) => node.type !== 'ImportDeclaration' && node.type !== 'EmptyStatement');
}

/** The function the statements are, when they are one function however written: the entry calls it. */
function loneFunction(
  statements: readonly TopLevel[],
  wrapped: boolean,
): { start: number; end: number } | undefined {
  const [only] = statements.length === 1 ? statements : [];
  if (only?.type === 'ExpressionStatement' && isFunction(only.expression)) return only.expression;
  if (only?.type === 'FunctionDeclaration') return only;
  if (only?.type === 'ExportDefaultDeclaration' && isFunction(only.declaration)) return only.declaration;
  if (wrapped && only?.type === 'ReturnStatement' && only.argument && isFunction(only.argument)) {
    return only.argument;
  }
  return undefined;
}

/** Appends the function the statements make to `made`; `text` sits at `base` of the code. */
function toFunction(
  made: Assembly,
  text: string,
  statements: readonly TopLevel[],
  wrapped: boolean,
  base: number,
): void {
  if (statements.length === 0) {
    made.literal('async () => {}');
    return;
  }
  const only = loneFunction(statements, wrapped);
  if (only) {
    made.copy(text, only.start, only.end, base);
    return;
  }
  const last = statements.at(-1) as TopLevel;
  const first = statements[0] as TopLevel;
  made.literal('async () => {\n');
  if (last.type === 'ExpressionStatement') {
    // The newline ends a line comment the statements before may close with.
    made.copy(text, first.start, last.start, base).literal('\nreturn (');
    made.copy(text, last.expression.start, last.expression.end, base).literal(');\n}');
    return;
  }
  made.copy(text, first.start, last.end, base).literal('\n}');
}

function isFunction(node: { type: string }): boolean {
  return (
    node.type === 'ArrowFunctionExpression' ||
    node.type === 'FunctionExpression' ||
    node.type === 'FunctionDeclaration'
  );
}
