/**
 * Usage: node scripts/build.ts   (the package's `build`, which turbo runs before any task that needs it)
 *
 * Builds what the executor embeds from this package's sources, into dist/ (nothing of it is
 * committed; the executor imports it through the package's exports):
 *
 *   dist/bundle.js, dist/bundle.d.ts        (@supolka/codemode-runtime/bundle)
 *       RUNTIME_SOURCE: src/index.ts bundled by esbuild into one script. The executor turns it
 *       into the V8 startup snapshot every isolate is restored from.
 *   dist/pieces.js, dist/pieces.d.ts        (@supolka/codemode-runtime/pieces)
 *       RUNTIME_PIECES: the runtime's pieces, each a script whose value is the piece's factory,
 *       kept out of the snapshot; an isolate compiles one on the piece's first use
 *       (src/pieces.ts): tr46, streams, the single-byte tables, crypto, the form bodies' codecs,
 *       the data: URL processor, the legacy decoders, and inspect (the console's workerd format).
 *   dist/bundle.meta.json
 *       bytes each input contributes to the bundle, to watch the snapshot's size (not published).
 *
 * The build stops when a piece's module is in the snapshot's bundle too, when the streams
 * polyfill's classes differ from src/streams/shape.ts, and when the single-byte tables and their
 * names disagree. The files it derives that the sources import (each own-module piece's imports
 * file) are committed instead, by ./generate.ts; this build bundles the text the pieces need now,
 * whatever those files hold, so an edit of src/ reaches the bundle without a generate step.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, transform } from 'esbuild';
import { SINGLE_BYTE_NAMES } from '../src/encoding/single-byte-names.ts';
import { STREAM_INTERFACES } from '../src/streams/shape.ts';
import { inspectPiece } from './build-inspect-piece.mjs';
import { OWN_MODULE_PIECES, ownModulePiece } from './build-runtime-piece.mjs';
import { streamsPiece } from './build-streams-piece.mjs';
import { bundleLicenses, tr46Piece } from './build-whatwg-url.mjs';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(packageRoot, 'src');
const dist = join(packageRoot, 'dist');

/** An own-module piece as ./build-runtime-piece.mjs names it; its imports file's path is under src/. */
interface OwnModulePiece {
  readonly name: string;
  readonly modules: readonly string[];
  readonly imports: string;
}

interface OwnModulePieceBuild {
  readonly source: string;
  /** Each snapshot module the piece reads from, by its path under src/, with the names. */
  readonly imports: ReadonlyMap<string, readonly string[]>;
}

const HEADER = (from: string) =>
  `// Built by packages/runtime/scripts/build.ts from ${from}. Do not edit; run the package's build.\n`;

/**
 * The runtime bundled for the snapshot, with `pieceImports` (by path) as the text of the pieces'
 * imports files: each file as the pieces' builds make it now, not as it lies on disk.
 */
async function runtimeBundle(
  pieceImports: ReadonlyMap<string, string>,
): Promise<{ source: string; meta: string; inputs: Set<string> }> {
  const result = await build({
    plugins: [
      {
        name: 'codemode-piece-imports',
        setup(plugin) {
          const filter = /-piece-imports\.generated\.ts$/;
          plugin.onResolve({ filter }, (args) => ({ path: join(args.resolveDir, args.path) }));
          plugin.onLoad({ filter }, (args) => {
            const contents = pieceImports.get(args.path);
            if (contents === undefined) throw new Error(`${args.path} is no piece's imports file`);
            return { contents, loader: 'ts', resolveDir: dirname(args.path) };
          });
        },
      },
    ],
    absWorkingDir: packageRoot,
    entryPoints: [join(source, 'index.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'neutral',
    target: 'es2024',
    // Whitespace and syntax only: names stay, because class and function names are observable
    // (DOMException.name, Function.prototype.toString) and must match the standard.
    minifyWhitespace: true,
    minifySyntax: true,
    keepNames: true,
    legalComments: 'none',
    metafile: true,
    logLevel: 'silent',
  });
  const bundled = result.outputFiles[0]?.text ?? '';
  // Paths as the repository names them, whichever directory the build runs from.
  const repository = join(packageRoot, '..', '..');
  const inputs = Object.fromEntries(
    Object.entries(result.metafile.outputs)
      .flatMap(([, output]) => Object.entries(output.inputs))
      .map(([path, input]) => [relative(repository, join(packageRoot, path)), input.bytesInOutput] as const)
      .sort(([, a], [, b]) => b - a),
  );
  // The runtime's modules in the bundle, by their path under src/.
  const prefix = `${relative(repository, source)}/`;
  const modules = new Set(
    Object.keys(inputs)
      .filter((path) => path.startsWith(prefix))
      .map((path) => path.slice(prefix.length)),
  );
  return {
    source: bundled,
    meta: `${JSON.stringify({ bytes: bundled.length, inputs }, null, 2)}\n`,
    inputs: modules,
  };
}

/**
 * The legacy single-byte tables as a piece: a module that imports nothing, whose factory answers
 * its table object. The snapshot knows the encodings' names only (single-byte-names.ts), so the
 * two lists must be the same.
 */
async function singleByteTablesPiece(): Promise<string> {
  const entry = join(source, 'encoding/single-byte-tables.ts');
  const { SINGLE_BYTE_TABLES } = (await import(entry)) as { SINGLE_BYTE_TABLES: Record<string, string> };
  const names = JSON.stringify([...SINGLE_BYTE_NAMES].sort());
  if (JSON.stringify(Object.keys(SINGLE_BYTE_TABLES).sort()) !== names)
    throw new Error('single-byte-tables.ts and single-byte-names.ts name different encodings');
  // Transformed, not bundled: a bundle's module helpers would read what a program can replace
  // (Object.prototype.hasOwnProperty, Function.prototype.call) when the piece evaluates.
  const { code } = await transform(readFileSync(entry, 'utf8'), {
    loader: 'ts',
    target: 'es2024',
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
  });
  const body = code.replace(/^export const SINGLE_BYTE_TABLES=/, 'return ');
  if (body === code || /\b(import|export)\b/.test(body))
    throw new Error('single-byte-tables.ts must import nothing and export SINGLE_BYTE_TABLES alone');
  return `(function(){"use strict";${body}})`;
}

type Members = readonly (readonly [string, string])[];

/**
 * The snapshot publishes the stream interfaces before the polyfill loads, from shape.ts: a
 * polyfill whose classes have other members than it lists would publish the wrong ones.
 */
function checkStreamShape(publicShape: unknown): void {
  const sorted = (members: Members) => members.map(([key, kind]) => `${key}:${kind}`).sort();
  const normal = (shapes: Record<string, { prototype: Members; statics: Members }>) =>
    JSON.stringify(
      Object.entries(shapes)
        .map(([name, shape]) => [name, sorted(shape.prototype), sorted(shape.statics)])
        .sort(([a], [b]) => String(a).localeCompare(String(b))),
    );
  const expected = normal(STREAM_INTERFACES as never);
  const actual = normal(publicShape as never);
  if (expected !== actual)
    throw new Error(
      `web-streams-polyfill's classes differ from packages/runtime/src/streams/shape.ts:\n${actual}\n${expected}`,
    );
}

/** The text of a piece's imports file: the snapshot's exports it reads, each module's in a frozen record. */
function pieceImportsText(piece: OwnModulePiece, built: OwnModulePieceBuild): string {
  const up = '../'.repeat(piece.imports.split('/').length - 1);
  const imports: string[] = [`import { ObjectFreeze as freeze } from '${up}primordials.ts';`];
  const records: string[] = [];
  let count = 0;
  for (const [path, names] of built.imports) {
    const aliases = names.map((name) => [name, `i${count++}`] as const);
    imports.push(
      `import { ${aliases.map(([name, alias]) => `${name} as ${alias}`).join(', ')} } from '${up}${path}';`,
    );
    records.push(
      `  '${path}': freeze({ __proto__: null, ${aliases.map(([name, alias]) => `${name}: ${alias}`).join(', ')} }),`,
    );
  }
  return `// Generated by packages/runtime/scripts/generate.ts from the ${piece.name} piece's build (scripts/build-runtime-piece.mjs). Do not edit; run pnpm generate.
// Committed, not a build output: the runtime's own sources import it, so the type-check and an
// editor need it before anything is built. The build bundles the text the piece reads now, not
// this file, and the package's \`test\` fails while this file differs from it.
/**
 * The snapshot's exports the ${piece.name} piece reads (packages/runtime/src/pieces.ts), by the path
 * of their module under packages/runtime/src: each name the piece imports from a module the
 * snapshot holds, so the piece reads the snapshot's own values instead of carrying a copy. The
 * values are taken when the snapshot's bundle evaluates, after every module they come from has.
 */
${imports.join('\n')}

export const PIECE_IMPORTS = freeze({
  __proto__: null,
${records.join('\n')}
});
`;
}

/** The pieces made of the runtime's own modules: each one's source, and its imports file by path. */
async function ownModulePieces(): Promise<{
  sources: Record<string, string>;
  importFiles: Map<string, string>;
  modules: string[];
}> {
  const sources: Record<string, string> = {};
  const importFiles = new Map<string, string>();
  for (const piece of OWN_MODULE_PIECES) {
    const built = await ownModulePiece(piece);
    sources[piece.name] = built.source;
    importFiles.set(join(source, piece.imports), pieceImportsText(piece, built));
  }
  return { sources, importFiles, modules: OWN_MODULE_PIECES.flatMap((piece) => piece.modules) };
}

/** What the runtime's sources build into: the bundle, its pieces, and the pieces' imports files. */
export interface RuntimeBuild {
  /** RUNTIME_SOURCE. */
  readonly bundle: string;
  /** The bytes each input contributes to the bundle, as JSON text. */
  readonly meta: string;
  /** RUNTIME_PIECES, by piece name. */
  readonly pieces: Readonly<Record<string, string>>;
  /** The license texts of what the bundle and the pieces carry, as lines of a block comment. */
  readonly bundleLicenses: string;
  readonly pieceLicenses: string;
  /** Each own-module piece's imports file as the build made it, by absolute path under src/. */
  readonly pieceImports: ReadonlyMap<string, string>;
}

/** Builds the runtime from its sources, in memory. */
export async function buildRuntime(): Promise<RuntimeBuild> {
  const own = await ownModulePieces();
  const runtime = await runtimeBundle(own.importFiles);
  for (const path of own.modules)
    if (runtime.inputs.has(path))
      throw new Error(`${path} is in a runtime piece and in the snapshot: the snapshot must not import it`);
  const tr46 = await tr46Piece();
  const streams = await streamsPiece();
  checkStreamShape(streams.publicShape);
  const inspect = inspectPiece();
  return {
    bundle: runtime.source,
    meta: runtime.meta,
    pieces: {
      tr46: tr46.source,
      streams: streams.source,
      singleByteTables: await singleByteTablesPiece(),
      inspect: inspect.source,
      ...own.sources,
    },
    bundleLicenses: bundleLicenses(),
    pieceLicenses: `${tr46.licenses}\n *\n${streams.licenses}\n *\n${inspect.licenses}`,
    pieceImports: own.importFiles,
  };
}

/** The files of dist/, by their name there. */
function distFiles(built: RuntimeBuild): Map<string, string> {
  return new Map([
    [
      'bundle.js',
      `${HEADER('packages/runtime/src')}/*\n${built.bundleLicenses}\n */\nexport const RUNTIME_SOURCE = ${JSON.stringify(built.bundle)};\n`,
    ],
    [
      'bundle.d.ts',
      `${HEADER('packages/runtime/src')}/** The runtime bundled into one script, which the executor makes its V8 startup snapshot from. */\nexport declare const RUNTIME_SOURCE: string;\n`,
    ],
    [
      'pieces.js',
      `${HEADER('packages/runtime/src/pieces.ts')}/*\n${built.pieceLicenses}\n */\nexport const RUNTIME_PIECES = ${JSON.stringify(built.pieces)};\n`,
    ],
    [
      'pieces.d.ts',
      `${HEADER('packages/runtime/src/pieces.ts')}/** The runtime's pieces by name: each a script whose value is the piece's factory, compiled on first use. */\nexport declare const RUNTIME_PIECES: Readonly<Record<string, string>>;\n`,
    ],
    ['bundle.meta.json', built.meta],
    // Declarations only, so the source is its own .d.ts: the sandbox's isolate-side code types its
    // references with it (@supolka/codemode-runtime/host-reference).
    ['host-reference.d.ts', readFileSync(join(source, 'host-reference.ts'), 'utf8')],
  ]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = distFiles(await buildRuntime());
  // Afresh: nothing an earlier build (or an earlier kind of build) left stays in what turbo caches.
  rmSync(dist, { recursive: true, force: true });
  mkdirSync(dist);
  for (const [name, text] of files) writeFileSync(join(dist, name), text);
}
