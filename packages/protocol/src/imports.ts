/**
 * separateImports: splits a request's code into its leading static import declarations and the
 * arrow expression after them, with a real module lexer, so comments, strings that contain the
 * word import, import.meta and dynamic import() are all read as what they are.
 */
import { parse } from 'es-module-lexer/js';

export interface SeparatedImports {
  /** The text of each leading import declaration, in order, without a trailing semicolon. */
  readonly imports: readonly string[];
  /** Everything after the last leading import: the arrow expression, as the user wrote it. */
  readonly body: string;
}

/** Index just past the whitespace and comments starting at `from`. */
function skipTrivia(code: string, from: number): number {
  let index = from;
  while (index < code.length) {
    if (/\s/u.test(code[index] as string)) {
      index++;
    } else if (code.startsWith('//', index)) {
      const end = code.indexOf('\n', index);
      index = end === -1 ? code.length : end + 1;
    } else if (code.startsWith('/*', index)) {
      const end = code.indexOf('*/', index + 2);
      if (end === -1) return index;
      index = end + 2;
    } else {
      break;
    }
  }
  return index;
}

/**
 * Returns the leading static imports and the body after them. Code the lexer cannot read is
 * returned whole as the body with no imports, so the engine reports its own syntax error.
 */
export function separateImports(code: string): SeparatedImports {
  // The lexer finds declarations only where the words `import` or `export` stand in the text (a
  // keyword cannot be spelt with escapes), so code without either has none, and most programs
  // never pay the lexer: its asm.js build costs about 10 ms on a process's first parse.
  if (!code.includes('import') && !code.includes('export')) return { imports: [], body: code };
  let found: ReturnType<typeof parse>[0];
  try {
    [found] = parse(code);
  } catch {
    return { imports: [], body: code };
  }
  const imports: string[] = [];
  let bodyStart = 0;
  for (const record of found) {
    if (record.type !== 'static') continue;
    // Only an import with nothing but whitespace and comments before it is leading.
    if (skipTrivia(code, bodyStart) !== record.importStart) break;
    imports.push(code.slice(record.importStart, record.importEnd));
    bodyStart = record.importEnd;
    const next = skipTrivia(code, bodyStart);
    if (code[next] === ';') bodyStart = next + 1;
  }
  return { imports, body: code.slice(bodyStart) };
}
