/**
 * Builds the crypto runtime piece (../pieces.ts): SubtleCrypto's operations (./operations.ts) and
 * the modules only they import, kept out of the startup snapshot and compiled into an isolate by
 * the first crypto.subtle method a program calls.
 *
 * The piece is made of the runtime's own modules, and most of what it imports the snapshot holds
 * too (DOMException, the WebIDL conversions, the primordials, CryptoKey's slots). A second copy of
 * such a module would be a second DOMException class and a second `keySlots`, which the
 * snapshot's keys do not answer, so the piece carries none: every module of the runtime outside
 * CRYPTO_PIECE_MODULES is left out of the bundle, and each name the piece imports from one becomes
 * a read of the factory's third parameter, made once when the piece evaluates. That parameter is
 * ./generated/piece-imports.generated.ts, which the generator writes from `imports` below, so the
 * snapshot holds exactly the names the piece reads. The generator also stops when a module of the
 * piece is in the snapshot's bundle.
 *
 * The bundle is an ES module whose one export list becomes the factory's answer: a bundle in a
 * script format would add module helpers that iterate and call what a program can replace.
 */
// biome-ignore lint/correctness/noNodejsModules: a build script, run by Node; never bundled.
import { dirname, join, relative } from 'node:path';
// biome-ignore lint/correctness/noNodejsModules: a build script, run by Node; never bundled.
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const source = join(here, '..');

/** The modules the piece carries; every other module it imports is the snapshot's. */
export const CRYPTO_PIECE_MODULES = [
  'crypto/operations.ts',
  'crypto/algorithms.ts',
  'crypto/usages.ts',
  'crypto/json-web-key.ts',
  'crypto/bridge.ts',
  'crypto/crossing.ts',
];

/** The factory's third parameter (../pieces.ts): the snapshot's modules' exports the piece reads. */
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
 * The piece's source, a function expression `(Object, values, imports) => exports`, and `imports`:
 * each snapshot module the piece reads from, by its path under src/, with the names it reads.
 */
export async function cryptoPiece() {
  const own = new Set(CRYPTO_PIECE_MODULES);
  const result = await build({
    absWorkingDir: source,
    entryPoints: [join(source, 'crypto/operations.ts')],
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
  if (answers.length !== 1) throw new Error('the crypto piece must end with one export list');
  code = code.replace(/export\{([^}]*)\};\s*$/, (_, names) => exportsAsAnswer(names));
  if (/\bimport\s*[{*("'`]|\bexport\s*[{*]|\bexport\s+(default|const|let|var|function|class)\b/.test(code))
    throw new Error('the crypto piece still imports or exports after its build');
  return {
    source: `(function(Object,__snapshotValues,${IMPORTS}){"use strict";${code}})`,
    imports: new Map(
      [...imports].sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, names]) => [key, [...names].sort()]),
    ),
  };
}
