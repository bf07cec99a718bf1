// Bundles the package's entries (tools/build/bundle-entries.mjs says why and how): the server's
// command loaded about 25 of this package's modules one by one (issue 28). Run by the package's
// build after tsc; plain JavaScript.
import { bundleEntries } from '../../../tools/build/bundle-entries.mjs';

await bundleEntries(new URL('../dist/', import.meta.url), {
  index: { file: 'index.js' },
  entry: { file: 'entry.js' },
  // The command's first import, before anything the bundle loads: the executor's root entry, which
  // refuses a Node below the floor with one sentence (src/main.ts).
  main: { file: 'main.js', floor: '@supolka/codemode-executor', runs: true },
});
