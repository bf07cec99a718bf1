// Bundles the pool child's built modules into one file (issue 28): dist/pool/child/child-start.bundle.js,
// which the pool starts instead of dist/pool/child/child-start.js (pool/child-handle.ts, childEntryUrl).
// Loading about a hundred modules one by one cost a child about 30 ms of CPU more than loading the
// same code as one file (bench/cold-start.ts), on every start and every replacement.
//
// What a child loads only on first need stays out of the file: the dynamic imports become chunks
// beside it (the pool table's schemas, loaded with the first message the hot checks cannot decide),
// and zod and isolated-vm are not bundled at all, so a child at rest still loads no zod, as
// test/executor/entry-points.test.ts checks by the modules it resolves. A module that finds a file
// relative to itself (a worker thread's module, a package it requires) is given its own URL in
// dist, not the bundle's. Run by the package's build after tsc; plain JavaScript, no type stripping.
import { readFile } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const dist = new URL('../dist/', import.meta.url);
const outdir = fileURLToPath(new URL('pool/child/', dist));

/** import.meta.url of each bundled module, rewritten to that module's own file in dist. */
const ownUrls = {
  name: 'own-import-meta-url',
  setup(builder) {
    builder.onLoad({ filter: /\.js$/ }, async ({ path }) => {
      const contents = await readFile(path, 'utf8');
      if (!contents.includes('import.meta.url')) return undefined;
      const own = relative(outdir, path).split('\\').join('/');
      return {
        contents: contents.replaceAll(
          'import.meta.url',
          `new URL(${JSON.stringify(own)}, import.meta.url).href`,
        ),
        loader: 'js',
        resolveDir: dirname(path),
      };
    });
  },
};

await build({
  entryPoints: [fileURLToPath(new URL('pool/child/child-start.js', dist))],
  outdir,
  entryNames: '[name].bundle',
  chunkNames: 'child-start.chunk-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  external: ['isolated-vm', 'zod'],
  plugins: [ownUrls],
  logLevel: 'warning',
});
