/**
 * Builds the runtime pieces made of the runtime's own modules (../src/pieces.ts): crypto.subtle's
 * operations, the form bodies' codecs, the data: URL processor and the decoders other than UTF-8.
 * Each is kept out of the startup snapshot and compiled into an isolate on its first use.
 *
 * Most of what such a piece imports the snapshot holds too (DOMException, the WebIDL conversions,
 * the primordials, CryptoKey's slots, FormData's). A second copy of such a module would be a
 * second DOMException class and a second `keySlots`, which the snapshot's keys do not answer, so a
 * piece carries none: every module of the runtime outside the piece's `modules` is left out of its
 * bundle, and each name the piece imports from one becomes a read of the factory's third
 * parameter, made once when the piece evaluates. That parameter is the piece's `imports` file,
 * made from what this build found: ./build.ts bundles that text into the snapshot, so the snapshot
 * holds exactly the names the piece reads, and ./generate.ts commits it for the sources that
 * import it; the module that loads the piece passes it to loadPiece. ./build.ts also stops when a
 * module of a piece is in the snapshot's bundle.
 *
 * The bundle is an ES module whose one export list becomes the factory's answer: a bundle in a
 * script format would add module helpers that iterate and call what a program can replace.
 */
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const source = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');

/**
 * Each piece: its name in ../src/pieces.ts, the modules it carries (the first is its entry; every other
 * module it imports is the snapshot's), and its imports file, under src/.
 */
export const OWN_MODULE_PIECES = [
  {
    name: 'crypto',
    modules: [
      'crypto/operations.ts',
      'crypto/algorithms.ts',
      'crypto/usages.ts',
      'crypto/json-web-key.ts',
      'crypto/bridge.ts',
      'crypto/crossing.ts',
    ],
    imports: 'crypto/generated/crypto-piece-imports.generated.ts',
  },
  {
    name: 'formBodies',
    modules: ['fetch/form-bodies.ts'],
    imports: 'fetch/generated/form-bodies-piece-imports.generated.ts',
  },
  {
    name: 'dataUrl',
    modules: ['fetch/data-url.ts'],
    imports: 'fetch/generated/data-url-piece-imports.generated.ts',
  },
  {
    name: 'legacyDecoders',
    modules: ['encoding/legacy-decoders.ts', 'encoding/utf16.ts', 'encoding/single-byte.ts'],
    imports: 'encoding/generated/legacy-decoders-piece-imports.generated.ts',
  },
];

/** The factory's third parameter (../src/pieces.ts): the snapshot's modules' exports the piece reads. */
const IMPORTS = '__pieceImports';

/** `import{a as b,c}from"k";` as `const{a:b,c}=imports["k"];`: the names a piece reads from a shared module. */
function importAsRead(names, key, imports) {
  const pairs = names.split(',').map((name) => name.trim().split(/\s+as\s+/));
  const read = imports.get(key) ?? new Set();
  for (const [imported] of pairs) read.add(imported);
  imports.set(key, read);
  const bindings = pairs.map(([imported, local]) =>
    local === undefined ? imported : `${imported}:${local}`,
  );
  return `const{${bindings.join(',')}}=${IMPORTS}[${JSON.stringify(key)}];`;
}

/** `export{a as b,c};` as the factory's answer, a record without a prototype. */
function exportsAsAnswer(names) {
  const members = names
    .split(',')
    .map((name) => name.trim().split(/\s+as\s+/))
    .map(([local, exported]) => `${exported ?? local}:${local}`);
  return `return{__proto__:null,${members.join(',')}};`;
}

/**
 * A piece of OWN_MODULE_PIECES: its source, a function expression `(Object, values, imports) =>
 * exports`, and `imports`, each snapshot module it reads from, by its path under src/, with the
 * names it reads.
 */
export async function ownModulePiece(piece) {
  const own = new Set(piece.modules);
  const result = await build({
    absWorkingDir: source,
    entryPoints: [join(source, piece.modules[0])],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    target: 'es2024',
    minifyWhitespace: true,
    minifySyntax: true,
    // No keepNames: its helper defines each function's name when the piece evaluates, with a
    // descriptor that inherits from Object.prototype, where a program may have put a getter. The
    // piece's functions are internal; only the snapshot's interface members have observable names.
    legalComments: 'none',
    logLevel: 'silent',
    plugins: [
      {
        name: 'codemode-snapshot-modules',
        setup(plugin) {
          plugin.onResolve({ filter: /^\./ }, (args) => {
            const path = relative(source, join(args.resolveDir, args.path)).replaceAll('\\', '/');
            if (own.has(path)) return undefined;
            return { path, external: true };
          });
        },
      },
    ],
  });
  let code = result.outputFiles[0]?.text ?? '';
  const imports = new Map();
  code = code.replace(/import\{([^}]*)\}from"([^"]+)";/g, (_, names, key) =>
    importAsRead(names, key, imports),
  );
  const answers = [...code.matchAll(/export\{([^}]*)\};\s*$/g)];
  if (answers.length !== 1) throw new Error(`the ${piece.name} piece must end with one export list`);
  code = code.replace(/export\{([^}]*)\};\s*$/, (_, names) => exportsAsAnswer(names));
  // What is left of a module statement: a side-effect import, a default or namespace import (the
  // runtime's modules export neither, so a piece reads none), a second export list.
  const statement =
    /\bimport\s*[{*("'`]|\bimport\s+[\w$]+\s*(,|from\b)|\bexport\s*[{*]|\bexport\s+(default|const|let|var|function|class)\b/;
  if (statement.test(code))
    throw new Error(`the ${piece.name} piece still imports or exports after its build`);
  return {
    source: `(function(Object,__snapshotValues,${IMPORTS}){"use strict";${code}})`,
    imports: new Map(
      [...imports].sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, names]) => [key, [...names].sort()]),
    ),
  };
}
