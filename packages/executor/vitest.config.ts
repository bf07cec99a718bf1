import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Child processes, not worker threads: an isolate that takes its host down must take only
    // one test file with it. Every process that creates isolates needs --no-node-snapshot.
    pool: 'forks',
    execArgv: ['--no-node-snapshot'],
    testTimeout: 30_000,
  },
});
