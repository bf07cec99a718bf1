/**
 * The fallback for an engine without a dynamic-import callback (released isolated-vm rejects every
 * import() with "Not supported"): each import(...) expression, found with a real module lexer,
 * becomes a call of the sandbox loader that names the importing module. This is the one rewrite
 * the sandbox ever makes to code it was given; everything else on the line keeps its position.
 */
import { parse } from 'es-module-lexer/js';

/** The global the rewritten expressions call; LOADER_SOURCE defines it before any user code runs. */
export const LOADER_GLOBAL = '__sandboxImport';

/** Where an import() may start: `import`, whitespace (JavaScript's, which \s is), then `(` or a comment. */
const MAY_CALL_IMPORT = /import\s*[(/]/;

export function rewriteDynamicImports(source: string, referrer: string): string {
  // An import() expression is the word `import` as written (a keyword cannot be spelt with
  // escapes), then whitespace or comments, then its parenthesis: a source with no such place has
  // nothing to rewrite and skips the lexer. The sandbox's entry is one (its own import declaration
  // is not), and the lexer's first parse in a process costs up to 10 ms (its asm.js build).
  return MAY_CALL_IMPORT.test(source) ? rewriteByLexer(source, referrer) : source;
}

/** The rewrite as the lexer makes it, of every source: exported for the tests that hold the fast path to it. */
export function rewriteByLexer(source: string, referrer: string): string {
  let imports: ReturnType<typeof parse>[0];
  try {
    [imports] = parse(source);
  } catch {
    // Source the lexer cannot read fails to compile anyway; the engine reports its own error.
    return source;
  }
  let rewritten = '';
  let copied = 0;
  for (const record of imports) {
    // A phase import (`import.source(...)`, `import.defer(...)`) is left to the engine, which
    // refuses it: the loader answers a module namespace, which is neither phase's.
    if (record.type !== 'dynamic' || record.phase !== null) continue;
    // `import (` up to and including the parenthesis becomes `__sandboxImport("referrer", `.
    rewritten += `${source.slice(copied, record.importStart)}${LOADER_GLOBAL}(${JSON.stringify(referrer)}, `;
    copied = record.dynamicStart + 1;
  }
  return copied === 0 ? source : rewritten + source.slice(copied);
}
