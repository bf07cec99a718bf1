import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    alias: {
      // @cloudflare/codemode's root entry and /ai import cloudflare:workers at load, which only
      // workerd provides; the package's stand-ins let them load here (docs/codemode.md).
      'cloudflare:workers': fileURLToPath(new URL('./src/codemode/workers-stub.ts', import.meta.url)),
    },
  },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Child processes, not worker threads: an isolate that takes its host down must take only
    // one test file with it. Every process that creates isolates needs --no-node-snapshot and
    // --no-wasm-code-gc (adr/0002).
    pool: 'forks',
    execArgv: ['--no-node-snapshot', '--no-wasm-code-gc'],
    testTimeout: 30_000,
    // An alias applies only to modules Vite processes; the package is inlined so it is one of them.
    server: { deps: { inline: ['@cloudflare/codemode'] } },
  },
});
