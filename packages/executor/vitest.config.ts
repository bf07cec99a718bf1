import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    alias: [
      // @cloudflare/codemode's root entry and /ai import cloudflare:workers at load, which only
      // workerd provides; the package's stand-ins let them load here (docs/codemode.md).
      {
        find: 'cloudflare:workers',
        replacement: fileURLToPath(new URL('./src/codemode/workers-stub.ts', import.meta.url)),
      },
      // Tests run the protocol package (and the client) from source, so a change there is tested
      // without a build. Matched exactly: client.bundle.js stays the built file, which the bundle
      // and Deno tests load on purpose, and the pool's children (plain Node) load dist/ anyway.
      {
        find: /^@supolka\/codemode-protocol$/,
        replacement: fileURLToPath(new URL('../protocol/src/index.ts', import.meta.url)),
      },
      {
        find: /^@supolka\/codemode-protocol\/wire$/,
        replacement: fileURLToPath(new URL('../protocol/src/wire.ts', import.meta.url)),
      },
      {
        find: /^@supolka\/codemode-protocol\/client$/,
        replacement: fileURLToPath(new URL('../protocol/src/client/index.ts', import.meta.url)),
      },
    ],
  },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Child processes, not worker threads: an isolate that takes its host down must take only
    // one test file with it. Every process that creates isolates needs --no-node-snapshot and
    // --no-wasm-code-gc (adr/0002).
    pool: 'forks',
    execArgv: ['--no-node-snapshot', '--no-wasm-code-gc'],
    testTimeout: 30_000,
    // The start cache on disk is off: a pool's first child makes its own start, as on a machine
    // that never ran one, whatever test file ran before; the cache's own tests turn it on in a
    // folder they make (docs/pool.md, "The start cache on disk"). Children inherit it.
    env: { CODEMODE_CACHE: 'off' },
    // An alias applies only to modules Vite processes; the package is inlined so it is one of them.
    server: { deps: { inline: ['@cloudflare/codemode'] } },
  },
});
