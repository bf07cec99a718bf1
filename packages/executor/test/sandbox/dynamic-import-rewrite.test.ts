/**
 * rewriteDynamicImports skips the lexer for a source with no place an import() could start. These
 * sources hold every spelling of one (whitespace of each kind, comments, line breaks) and every use
 * of the word that is not one; for each, the answer must be what the lexer alone makes of it.
 */
import { describe, expect, test } from 'vitest';
import {
  rewriteByLexer as byLexer,
  LOADER_GLOBAL,
  rewriteDynamicImports,
} from '../../src/sandbox/modules/dynamic-import.ts';

const calls = [
  "async () => import('./a.js')",
  "async () => import ('./a.js')",
  "async () => import\n('./a.js')",
  "async () => import\t\r\n ('./a.js')",
  "async () => import\u00a0('./a.js')",
  "async () => import/* a comment */('./a.js')",
  "async () => import // a comment\n('./a.js')",
  "import x from 'x'\nasync () => [x, await import('./a.js')]",
];
/**
 * Whitespace past ASCII and the no-break space, which the lexer does not read as such: it rewrites
 * none of these, and the engine refuses each such import() itself ("Not supported"), as
 * test/sandbox/modules.test.ts shows. The fast path must not change that answer either way.
 */
const unreadSpaces = [
  "async () => import\u2028('./a.js')",
  "async () => import\ufeff('./a.js')",
  "async () => import\u3000('./a.js')",
];
const notCalls = [
  ...unreadSpaces,
  'async () => 1 + 1',
  "import { a } from './a.js'\nasync () => a",
  'async () => import.meta.url',
  "async () => { const importer = (x) => x; return importer('./a.js') }",
  'async () => \'import\' + "import("',
  String.raw`async () => \u0069mport('./a.js')`,
  "export { a } from './a.js'",
  "async () => import.source('./a.js')",
  "async () => import.defer('./a.js')",
  "async () => import /* a comment */ .source('./a.js')",
];

describe('rewriteDynamicImports', () => {
  test.each(calls)('rewrites the import() in %j as the lexer does', (source) => {
    const rewritten = rewriteDynamicImports(source, 'm.js');
    expect(rewritten).toContain(`${LOADER_GLOBAL}("m.js", `);
    expect(rewritten).toBe(byLexer(source, 'm.js'));
  });

  test.each(notCalls)('leaves %j as the lexer does', (source) => {
    expect(rewriteDynamicImports(source, 'm.js')).toBe(byLexer(source, 'm.js'));
  });

  test('a source of whitespace after the word is read in one pass, not once per space', () => {
    const source = `${'import'.concat(' '.repeat(100_000), 'x ').repeat(50)}`;
    expect(rewriteDynamicImports(source, 'm.js')).toBe(source);
  });

  test('leaves a phase import alone, whatever else the source holds', () => {
    const phases = "async () => [import.source('./a.js'), import.defer('./a.js')]";
    expect(rewriteDynamicImports(phases, 'm.js')).toBe(phases);
    const both = `${phases.slice(0, -1)}, import('./b.js')]`;
    expect(rewriteDynamicImports(both, 'm.js')).toBe(
      `async () => [import.source('./a.js'), import.defer('./a.js'), ${LOADER_GLOBAL}("m.js", './b.js')]`,
    );
  });
});
