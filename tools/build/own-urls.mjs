// An esbuild plugin the packages' bundles use (the executor's bundle-child.mjs, bundle-entries.mjs): in a
// bundle, import.meta.url is the URL of the output file a module landed in, not of the module, and
// a module that finds a file relative to itself (a worker thread's module, the child's entry, a
// package it requires, the package's own package.json) would look in the wrong folder. Each
// module's import.meta.url is rewritten to its own file in dist, from wherever in `outdir` it lands;
// so every output file of a bundle must sit directly in `outdir`. Plain JavaScript, run by the build.
import { readFile } from 'node:fs/promises';
import { dirname, relative } from 'node:path';

/** The plugin, for a bundle whose output files all sit directly in `outdir`. */
export function ownImportMetaUrl(outdir) {
  return {
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
}
