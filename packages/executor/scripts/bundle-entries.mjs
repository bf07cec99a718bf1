// Bundles the package's entries (tools/build/bundle-entries.mjs says why and how). Run by the
// package's build after tsc and bundle-child.mjs, which bundles the pool child from the modules tsc
// wrote; plain JavaScript.
import { bundleEntries } from '../../../tools/build/bundle-entries.mjs';

await bundleEntries(new URL('../dist/', import.meta.url), {
  index: { file: 'index.js', floor: 'require-node-floor.js' },
  sandbox: { file: 'sandbox/index.js', floor: 'require-node-floor.js' },
  serving: { file: 'serving/index.js' },
  cli: { file: 'cli/index.js' },
  // The bins' first imports: the pool's first child, started before the command loads, then the
  // commands' compile cache; the two share their cache folders' checks.
  'early-child': { file: 'executor/early-child.js', floor: 'require-node-floor.js' },
  'compile-cache': { file: 'cache/compile-cache.js' },
  // The command prints the floor's sentence and exits, where the library's entries throw it.
  'cli-main': { file: 'cli/main.js', floor: 'cli/require-node-floor.js', runs: true },
});
