/**
 * The bridge's commands keep what Node compiled for them (the executor's src/cache/compile-cache.ts):
 * `codemode-executor mcp` and this package's own bin, each run twice over a cache folder of its own.
 */
import { test } from 'vitest';
import { expectCompileCacheKept } from '../../executor/test/compile-cache-check.ts';
import { BIN } from './mcp-process.ts';

const MCP_BIN = new URL('../bin/codemode-mcp.js', import.meta.url).pathname;

test.each([
  ['codemode-executor mcp', BIN, ['mcp']],
  ['codemode-mcp', MCP_BIN, []],
])('%s keeps what Node compiled for it, and the next run reads it back', (_name, bin, word) => {
  expectCompileCacheKept(bin, [...word, '-h'], /\/packages\/mcp\/dist\/bundle\/chunk-\w+\.js /);
});
