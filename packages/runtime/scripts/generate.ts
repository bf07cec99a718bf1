/**
 * Usage: node scripts/generate.ts [--check]   (the package's `generate`; with --check, its `test`)
 *
 * Writes the files derived from this package's build that its own sources import, which therefore
 * stay committed (the type-check and an editor need them before anything is built):
 *
 *   src/url/generated/whatwg-url.generated.ts
 *       whatwg-url's parser bundled into one module (./build-whatwg-url.mjs), from the installed
 *       whatwg-url: it changes when that pin does.
 *   src/{crypto,fetch,encoding}/generated/(piece)-piece-imports.generated.ts
 *       PIECE_IMPORTS: the snapshot's exports a piece made of the runtime's own modules reads,
 *       one file per such piece, made from the piece's build (./build-runtime-piece.mjs).
 *
 * The package's build (./build.ts) does not read the piece-imports files: it bundles the text each
 * piece's build makes, so an edit of src/ reaches the bundle without this step. This step keeps
 * the committed copies true, and with --check nothing is written: the run fails when a committed
 * file differs from what the sources and the installed packages make now.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildRuntime } from './build.ts';
import { whatwgUrlModule } from './build-whatwg-url.mjs';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Every committed generated file of the package, by absolute path, as the sources make it now. */
export async function generatedFiles(): Promise<Map<string, string>> {
  const built = await buildRuntime();
  return new Map([
    [join(packageRoot, 'src/url/generated/whatwg-url.generated.ts'), await whatwgUrlModule()],
    ...built.pieceImports,
  ]);
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = await generatedFiles();
  if (process.argv.includes('--check')) {
    const differing = [...files]
      .filter(([path, text]) => readOrEmpty(path) !== text)
      .map(([path]) => relative(packageRoot, path));
    if (differing.length > 0) {
      console.error(`Stale generated files in packages/runtime: ${differing.join(', ')}. Run: pnpm generate`);
      process.exit(1);
    }
  } else {
    for (const [path, text] of files) writeFileSync(path, text);
  }
}
