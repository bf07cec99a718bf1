/**
 * The names a CommonJS entry exports as Node finds them: cjs-module-lexer over the file, and over
 * each file it re-exports whole (`module.exports = require('./lib')`, a transpiler's
 * `__exportStar`) when that is a relative path inside the package. The sandbox adds the names a
 * program's own imports ask for (the executor's docs/sandbox.md, "Named exports of CommonJS
 * modules"), since lexing finds none in lodash.
 */
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { insideRoots } from './locate.ts';

interface CjsLexer {
  parse(source: string): { exports: string[]; reexports: string[] };
}

// The plain JavaScript build: the package's `import` condition is its WebAssembly one, which needs an asynchronous start.
const lexer = createRequire(import.meta.url)('cjs-module-lexer') as CjsLexer;

/** How many files the walk over re-exports reads at most. */
const FILE_LIMIT = 256;

export function commonJsNames(entry: string, roots: readonly string[]): string[] {
  const names = new Set<string>();
  const seen = new Set<string>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined && seen.size < FILE_LIMIT; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    let lexed: { exports: string[]; reexports: string[] };
    try {
      lexed = lexer.parse(readFileSync(file, 'utf8'));
    } catch {
      continue;
    }
    for (const name of lexed.exports) names.add(name);
    for (const specifier of lexed.reexports) {
      const target = relativeFile(file, specifier, roots);
      if (target !== undefined) pending.push(target);
    }
  }
  names.delete('default');
  return [...names].filter((name) => name.isWellFormed());
}

/** The real file a relative require names, as Node completes it, when it lies inside `roots`. */
function relativeFile(from: string, specifier: string, roots: readonly string[]): string | undefined {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
  const base = join(dirname(from), specifier);
  for (const candidate of [base, `${base}.js`, `${base}.cjs`, `${base}.json`, join(base, 'index.js')]) {
    if (!existsSync(candidate) || !statSync(candidate).isFile()) continue;
    const real = realpathSync(candidate);
    return insideRoots(real, roots) ? real : undefined;
  }
  return undefined;
}
