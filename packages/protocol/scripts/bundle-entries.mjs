// Bundles the package's entries (tools/build/bundle-entries.mjs says why and how): the executor's
// main entry loaded about 20 of this package's modules through /wire. Run by the package's build
// after tsc; plain JavaScript. Neutral: clients in any JavaScript runtime import it. The client's self-contained file is build-client.ts's.
import { bundleEntries } from '../../../tools/build/bundle-entries.mjs';

await bundleEntries(
  new URL('../dist/', import.meta.url),
  {
    index: { file: 'index.js' },
    wire: { file: 'wire.js' },
    client: { file: 'client/index.js' },
  },
  'neutral',
);
