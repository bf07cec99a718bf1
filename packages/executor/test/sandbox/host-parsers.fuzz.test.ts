/**
 * A bounded fuzz of the host-side parsers: type erasure, the Code Mode normalizer, the import
 * lexer and the CommonJS facades' name readers, fed random nesting of every bracket kind, strings, comments, regular expressions and
 * annotations at random sizes. Whatever each input does (run, refused, a syntax error), an ordinary
 * run in the same process afterwards still succeeds: no input leaves a parser broken.
 */
import { BadRequestError, separateImports } from '@supolka/codemode-protocol';
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { toEntryCode } from '../../src/codemode/entry-code.ts';
import { lexCommonJs, lexImportedNames } from '../../src/sandbox/sources/export-names.ts';
import { eraseTypes } from '../../src/sandbox/sources/typescript.ts';
import { useSandbox } from '../helpers.ts';

const sandbox = useSandbox();
const TYPED = 'async (): Promise<number> => { const n: number = 41; return n + 1 }';

/** A random source: pieces that open and close brackets, or hide them in non-code, repeated. */
const piece = fc.oneof(
  fc.constantFrom('(', ')', '[', ']', '{', '}', '`${', '}`', '<', '>', '!', 'if (a) ', 'a => '),
  fc.constantFrom(
    "'(('",
    '"[{"',
    '// ((\n',
    '/* [[ */',
    '/\\(/',
    '`{{`',
    ': number',
    ' as T',
    '1',
    ',',
    ';',
    '\n',
  ),
);
const source = fc
  .tuple(fc.array(piece, { maxLength: 40 }), fc.integer({ min: 1, max: 2000 }))
  .map(
    ([pieces, times]) =>
      `async () => ${pieces.join('').repeat(Math.ceil(times / Math.max(1, pieces.length)))}`,
  );

test('random nesting and sizes never break a later ordinary run', async () => {
  const inputs = fc.sample(source, { numRuns: 60, seed: 20_260_601 });
  for (const code of inputs) {
    // Each host parser on its own: an answer or a thrown error, never a broken parser.
    try {
      eraseTypes(code, 'fuzz.ts');
    } catch {
      // Refused or failed; what matters is the next call.
    }
    separateImports(code);
    lexCommonJs(code);
    lexImportedNames(code);
    try {
      toEntryCode(code, true);
    } catch (error) {
      expect(error).toBeInstanceOf(BadRequestError);
    }
    const envelope = await sandbox.execute({ code, timeout: 2000 });
    expect(envelope.code === undefined || ['BAD_REQUEST', 'TIMEOUT'].includes(envelope.code)).toBe(true);
  }
  expect(eraseTypes('const a: number = 1', 'after.ts')).toBe('const a         = 1');
  expect(toEntryCode('const n: number = 1;\nn', true)).toBe(
    'async () => {\nconst n         = 1;\n\nreturn (n);\n}',
  );
  expect(await sandbox.execute({ code: TYPED })).toStrictEqual({ result: 42, logs: [] });
  expect(lexCommonJs('exports.after = 1')).toStrictEqual({ exports: ['after'], reexports: [] });
  expect(lexImportedNames("import { after } from 'x'")).toStrictEqual([{ specifier: 'x', names: ['after'] }]);
}, 60_000);
