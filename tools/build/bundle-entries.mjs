// Bundles a package's entries, the modules a caller's process loads one by one otherwise (issue 28:
// the executor's main entry loaded about 110 of its own modules and 20 of the protocol's, about 30 ms
// of CPU more than the same code in a few files, before a caller could construct an executor).
//
// All of a package's entries are bundled together, with the code they share in chunks (esbuild's
// splitting), so a process holds one copy of each module whichever entries it imports: a `--tools`
// module importing the executor's main entry shares the command's executor, its async contexts
// included (toolSignal, durableCall), and an error class is one class from every entry. The bundles
// go to dist/bundle/; each entry's own file in dist becomes a module that loads the Node floor's
// check the entry loaded first, if any (a file of its own, so nothing the bundle evaluates comes
// before it), and re-exports its bundle, so every path that named an entry names it still, and
// tsc's declarations beside it still describe it. Other packages are not bundled: they are shared
// with whoever else imports them. What is loaded with import() stays a chunk of its own, loaded on
// first need. Plain JavaScript, run by the packages' builds after tsc.
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { ownImportMetaUrl } from './own-urls.mjs';

/**
 * `entries`: each entry's file in `dist`, by the name of its bundle, with the Node floor's check it
 * imports first (a path in `dist`, or a package whose entry checks it) when it has one, and `runs` when it exports nothing and runs when
 * loaded (a command). `platform` is esbuild's: 'neutral' for a package that runs in any runtime.
 */
export async function bundleEntries(dist, entries, platform = 'node') {
  const outdir = fileURLToPath(new URL('bundle/', dist));
  // Chunks are named by their content: an earlier build's would stay beside the new ones, unused.
  rmSync(outdir, { recursive: true, force: true });
  await build({
    entryPoints: Object.fromEntries(
      Object.entries(entries).map(([name, { file }]) => [name, fileURLToPath(new URL(file, dist))]),
    ),
    outdir,
    chunkNames: 'chunk-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform,
    packages: 'external',
    plugins: [ownImportMetaUrl(outdir)],
    // Through tsc's maps to the sources, as the modules tsc wrote pointed: a stack read with
    // --enable-source-maps names src/, not a chunk.
    sourcemap: true,
    sourcesContent: false,
    logLevel: 'warning',
  });
  for (const [name, { file, floor, runs }] of Object.entries(entries)) {
    const up = '../'.repeat(file.split('/').length - 1) || './';
    const lines = [
      "// Built by tools/build/bundle-entries.mjs: this entry's bundle, after the Node floor's check when it has one.",
      // A package's name (the executor's root entry, whose own stub checks the floor) is imported as it is.
      ...(floor === undefined ? [] : [`import '${floor.startsWith('@') ? floor : `${up}${floor}`}';`]),
      runs === true ? `import '${up}bundle/${name}.js';` : `export * from '${up}bundle/${name}.js';`,
    ];
    writeFileSync(new URL(file, dist), `${lines.join('\n')}\n`);
    // tsc's map described the module this file no longer is.
    rmSync(new URL(`${file}.map`, dist), { force: true });
  }
}
