/**
 * The two readings that decide a CommonJS facade's named exports (cjs-exports.ts): which names a
 * cjs source assigns, found with cjs-module-lexer (the lexer Node itself uses for
 * `import { x } from './file.cjs'`), and which names the request's ES modules ask of each module
 * they import, read off their import declarations. Pure functions of one source, so the same code
 * runs on the host's thread for small sources and in a deadline worker's thread for large ones
 * (names-worker.ts).
 */
import { createRequire } from 'node:module';
import { parse as parseModule } from 'es-module-lexer/js';

interface CjsLexer {
  parse(source: string): { exports: string[]; reexports: string[] };
}

let lexer: CjsLexer | undefined;

/**
 * cjs-module-lexer, loaded with the first CommonJS source read: most runs read none, and loading it
 * at import cost every pool child's start about 2 ms (issue 28). Its plain JavaScript build: the
 * package's `import` condition is its WebAssembly build, which needs an asynchronous start and lexed
 * a 10 MB source four times slower here.
 */
function cjsLexer(): CjsLexer {
  lexer ??= createRequire(import.meta.url)('cjs-module-lexer') as CjsLexer;
  return lexer;
}

/** What a cjs source exports as far as a lexer can tell: names it assigns, and specifiers it re-exports whole. */
export interface CommonJsNames {
  readonly exports: readonly string[];
  readonly reexports: readonly string[];
}

/**
 * The names cjs-module-lexer finds in `source`. A source the lexer cannot read (it stops at a
 * syntax it does not know, or nesting deeper than its stack) has no names it can vouch for: the
 * engine reports the syntax error itself when the factory compiles.
 */
export function lexCommonJs(source: string): CommonJsNames {
  // Outside the try: a lexer that cannot load is a defect of the install, not a source it cannot read.
  const reader = cjsLexer();
  try {
    const { exports, reexports } = reader.parse(source);
    return { exports: [...new Set(exports)], reexports: [...new Set(reexports)] };
  } catch {
    return { exports: [], reexports: [] };
  }
}

/** The names one ES module asks of one specifier: named imports and named re-exports, `default` left out. */
export interface ImportedNames {
  readonly specifier: string;
  readonly names: readonly string[];
}

/**
 * The names `source`'s static import declarations (and `export { ... } from` declarations) ask of
 * each specifier. A namespace import, `export *` and a default import ask for no name; type-only
 * imports ask for nothing at all. Source the lexer cannot read asks for nothing: it fails to
 * compile anyway.
 */
export function lexImportedNames(source: string): ImportedNames[] {
  let imports: ReturnType<typeof parseModule>[0];
  try {
    [imports] = parseModule(source);
  } catch {
    return [];
  }
  const found: ImportedNames[] = [];
  for (const record of imports) {
    if (record.type !== 'static' || record.typeOnly || record.phase !== null) continue;
    // The declaration up to its specifier's opening quote: `import a, { b as c } from `.
    const clause = source.slice(record.importStart, Math.max(record.importStart, record.start - 1));
    const names = namedBindings(clause);
    if (names.length > 0) found.push({ specifier: record.specifier, names });
  }
  return found;
}

/** The imported names inside the braces of an import or export clause, `default` left out. */
function namedBindings(clause: string): string[] {
  const open = clause.indexOf('{');
  const close = clause.lastIndexOf('}');
  if (open === -1 || close < open) return [];
  const inside = clause.slice(open + 1, close).replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, ' ');
  const names: string[] = [];
  for (const part of splitOutsideQuotes(inside)) {
    const binding = part.trim();
    if (binding === '' || /^type\s/.test(binding)) continue;
    const name = importedName(binding);
    if (name !== undefined && name !== 'default') names.push(name);
  }
  return names;
}

/** `a`, `a as b` and `"a-b" as c` name a, a and a-b. */
function importedName(binding: string): string | undefined {
  const quoted = /^(["'])((?:\\.|(?!\1)[^\\])*)\1/.exec(binding);
  if (quoted !== null) {
    try {
      return JSON.parse(`"${(quoted[2] as string).replace(/"/g, '\\"')}"`) as string;
    } catch {
      return undefined;
    }
  }
  return /^[^\s,]+/.exec(binding)?.[0];
}

/** The clause split at commas that are not inside a quoted name. */
function splitOutsideQuotes(text: string): string[] {
  const parts: string[] = [];
  let quote: string | undefined;
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (quote !== undefined) {
      if (char === '\\') index++;
      else if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") {
      quote = char;
    } else if (char === ',') {
      parts.push(text.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** Which reading a source gets: the cjs lexer's, or its import declarations'. */
export type NameReading = 'cjs' | 'esm';

/** One reading of one source, as plain data: what the names thread answers, and what the cache keeps. */
export type ReadNames = CommonJsNames | readonly ImportedNames[];

export function readNames(reading: NameReading, source: string): ReadNames {
  return reading === 'cjs' ? lexCommonJs(source) : lexImportedNames(source);
}
