import { defineConfig } from 'vitest/config';

// The packages this one uses load from their builds (dist/), as a user's install does: one copy
// of each module, so the executor's classes and its per-process state are the ones the tests hold.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
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
  },
});
