#!/usr/bin/env node
// The command's bin, committed so that it exists before dist/ is built (pnpm links a workspace
// package's bins at install). Everything the command does is in dist/main.js, loaded once Node's
// compile cache is on (the executor's compile-cache entry), so what it compiles is kept.
import { enableCommandCompileCache } from '@supolka/codemode-executor/compile-cache';

enableCommandCompileCache();
await import('../dist/main.js');
