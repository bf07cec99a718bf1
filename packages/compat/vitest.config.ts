import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Child processes, not worker threads: the executor side creates isolates, and every process
    // that creates isolates needs --no-node-snapshot.
    pool: 'forks',
    // --no-wasm-code-gc: a process that runs WebAssembly (undici's llhttp behind fetch,
    // es-module-lexer, amaro) while isolated-vm disposes isolates can deadlock for good. V8's
    // wasm code GC posts a task to every isolate while holding the wasm engine's mutex; when
    // isolated-vm's task runner drops the last reference to a disposed isolate inside that post,
    // the isolate's teardown takes the same mutex on the same thread, and the next isolate the
    // process creates waits on it forever (seen twice under load, stack in the issue 6 report).
    // Without code GC that post never happens; the cost is tier-up leftovers kept in memory.
    execArgv: ['--no-node-snapshot', '--no-wasm-code-gc'],
    // One workerd process and one loopback server for the whole run (test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
    testTimeout: 30_000,
    // The start cache on disk is off: a pool's first child makes its own start, as on a machine
    // that never ran one, whatever test file ran before; the cache's own tests turn it on in a
    // folder they make (docs/pool.md, "The start cache on disk"). Children inherit it.
    env: { CODEMODE_CACHE: 'off' },
    hookTimeout: 30_000,
  },
});
