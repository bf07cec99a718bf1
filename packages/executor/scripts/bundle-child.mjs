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
// dist, not the bundle's. The runtime's texts (the script snapshotted and the pieces) are files
// beside the bundle that it reads as it loads, not string literals in it (runtimeTexts below), and
// Node's builtins are taken with process.getBuiltinModule, not imported (builtinsTaken below). Run
// by the package's build after tsc; plain JavaScript, no type stripping.
import { createHash } from 'node:crypto';
import { realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { ownImportMetaUrl } from '../../../tools/build/own-urls.mjs';

const dist = new URL('../dist/', import.meta.url);
const outdir = fileURLToPath(new URL('pool/child/', dist));

/**
 * The runtime package's two modules of text (its bundle, the script every runtime snapshot is made
 * from, and its pieces, about 630 KB together), each replaced by a module that reads its texts from
 * a file written beside the bundle: as string literals in the bundle, V8 compiled them with it, about
 * 5 ms of every child's start, where reading and decoding the file takes under 1 ms (issue 28). The
 * texts are the same strings, so the snapshot's key (handed-snapshot.ts) is the same. Each module
 * exports strings and records of strings; any other export fails the build.
 */
const runtimeTexts = {
  name: 'runtime-texts',
  setup(builder) {
    const require = createRequire(new URL('../package.json', import.meta.url));
    const modules = ['@supolka/codemode-runtime/bundle', '@supolka/codemode-runtime/pieces'].map(
      (specifier) => realpathSync(require.resolve(specifier)),
    );
    builder.onLoad({ filter: /\.js$/ }, async ({ path }) => {
      if (!modules.includes(path)) return undefined;
      const file = `child-start.runtime-${basename(path, '.js')}.text`;
      const texts = [];
      /** Places `text` in the file; answers its length in bytes. */
      const place = (text) => {
        texts.push(Buffer.from(text, 'utf8'));
        // A lone surrogate would come back from UTF-8 as U+FFFD: another runtime script, and
        // another snapshot key, than the one the bundle was built from.
        if (texts.at(-1).toString('utf8') !== text) throw new Error(`${path}: a text does not survive UTF-8`);
        return texts.at(-1).length;
      };
      const layout = Object.entries(await import(pathToFileURL(path).href)).map(([name, value]) => {
        if (typeof value === 'string') return [name, place(value)];
        const entries = value !== null && typeof value === 'object' ? Object.entries(value) : [];
        if (entries.length === 0 || !entries.every(([, text]) => typeof text === 'string'))
          throw new Error(`${path}: ${name} is neither a string nor a record of strings`);
        return [name, entries.map(([key, text]) => [key, place(text)])];
      });
      writeFileSync(join(outdir, file), Buffer.concat(texts));
      // Each text decoded on its own: one with a character past ASCII does not make the rest
      // two-byte strings. The bytes are let go once decoded: nothing at module level holds them.
      const value = ([name, shape]) =>
        typeof shape === 'number'
          ? `${name}: text(${shape})`
          : `${name}: Object.fromEntries(${JSON.stringify(shape)}.map(([key, length]) => [key, text(length)]))`;
      const contents = [
        "import { readFileSync } from 'node:fs';",
        'const texts = (() => {',
        `  const bytes = readFileSync(new URL(${JSON.stringify(`./${file}`)}, import.meta.url));`,
        '  let at = 0;',
        "  const text = (length) => bytes.toString('utf8', at, (at += length));",
        `  return { ${layout.map(value).join(', ')} };`,
        '})();',
        ...layout.map(([name]) => `export const ${name} = texts.${name};`),
      ].join('\n');
      return { contents, loader: 'js', resolveDir: dirname(path) };
    });
  },
};

/**
 * Node's builtins taken with process.getBuiltinModule, as CommonJS modules of the bundle, not
 * imported as ES modules: for each builtin imported, Node builds an ES module by reading every one
 * of its exports. A child loads the same builtins either way; without the building its own CPU to
 * its first answer was 2 to 4 ms less (issue 28; docs/pool.md, "Cold start"). esbuild reads a name
 * off the builtin where the code uses it, so no lazy export is read early either.
 */
const builtinsTaken = {
  name: 'builtins-taken',
  setup(builder) {
    builder.onResolve({ filter: /^node:/ }, ({ path }) => ({ path, namespace: 'node-builtin' }));
    builder.onLoad({ filter: /.*/, namespace: 'node-builtin' }, ({ path }) => ({
      contents: `module.exports = process.getBuiltinModule(${JSON.stringify(path)});`,
      loader: 'js',
    }));
  },
};

/**
 * The SHA-256 of the three scripts a runtime snapshot is made from, each closed by a NUL
 * (runtimeScriptsDigest in handed-snapshot.ts), written into the bundle so a child hashes none of
 * their 700 KB to name them in its start's key, and loads no node:crypto for it (issue 28). Taken
 * from the modules the bundle carries: the runtime's bundle, whose text runtimeTexts places in a
 * file the child decodes to the same string, and the sandbox's two sources.
 */
async function runtimeScriptsDigest() {
  const require = createRequire(new URL('../package.json', import.meta.url));
  const runtime = realpathSync(require.resolve('@supolka/codemode-runtime/bundle'));
  const { RUNTIME_SOURCE } = await import(pathToFileURL(runtime).href);
  const { SANDBOX_SOURCE, WARMUP_SOURCE } = await import(
    new URL('sandbox/setup/sandbox-source.js', dist).href
  );
  const hash = createHash('sha256');
  for (const script of [RUNTIME_SOURCE, SANDBOX_SOURCE, WARMUP_SOURCE]) {
    if (typeof script !== 'string') throw new Error('a script snapshotted is not a string');
    // ownImportMetaUrl rewrites that text wherever it stands in a module, string literals too: in
    // a script, the bundle would snapshot other strings than the ones hashed here.
    if (script.includes('import.meta')) throw new Error('a script snapshotted holds import.meta');
    hash.update(script).update('\0');
  }
  return hash.digest('hex');
}

await build({
  entryPoints: [fileURLToPath(new URL('pool/child/child-start.js', dist))],
  define: { RUNTIME_SCRIPTS_DIGEST: JSON.stringify(await runtimeScriptsDigest()) },
  outdir,
  entryNames: '[name].bundle',
  chunkNames: 'child-start.chunk-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  external: ['isolated-vm', 'zod'],
  plugins: [runtimeTexts, builtinsTaken, ownImportMetaUrl(outdir)],
  logLevel: 'warning',
});
