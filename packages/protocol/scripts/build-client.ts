/**
 * Builds the client as one self-contained ESM file, for runtimes that import a URL or a path and
 * have no package manager (Deno with no import map, a browser, a Worker's upload).
 *
 *   node scripts/build-client.ts     (run by `pnpm build`, after tsc)
 *
 * Outputs:
 *   dist/client.bundle.js            src/client/index.ts with zod and the codec inlined; no imports
 *   dist/client.bundle.meta.json     esbuild's metafile: what went in and how large each part is
 *
 * Nothing is left external: the point of the file is that it imports nothing. The platform is
 * neutral, so a Node built-in reaching the graph fails the build instead of shipping.
 *
 * One exclusion: zod's namespace re-exports every locale it ships (about 260 KB of the 470 KB),
 * and a namespace object defeats tree-shaking. Every schema here carries its own English text,
 * and zod configures English itself, so its locale index is cut down to English.
 */
import { writeFileSync } from 'node:fs';
import { build, type Plugin } from 'esbuild';

const englishOnly: Plugin = {
  name: 'zod-english-only',
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
      contents: "export { default as en } from './en.js';",
      loader: 'js',
    }));
  },
};

const root = new URL('..', import.meta.url);
const result = await build({
  entryPoints: [new URL('src/client/index.ts', root).pathname],
  outfile: new URL('dist/client.bundle.js', root).pathname,
  bundle: true,
  platform: 'neutral',
  format: 'esm',
  target: 'es2022',
  mainFields: ['module', 'main'],
  minify: true,
  legalComments: 'eof',
  metafile: true,
  plugins: [englishOnly],
  logLevel: 'warning',
});
writeFileSync(new URL('dist/client.bundle.meta.json', root), JSON.stringify(result.metafile, null, 2));
