#!/usr/bin/env node
// The command's bin, committed so that it exists before dist/ is built: pnpm links a workspace
// package's bins at install, and a bin naming dist/cli/main.js made every first install warn that
// the link could not be created. Everything the command does is in dist/cli/main.js, loaded once
// Node's compile cache is on (dist/cache/compile-cache.js), so what it compiles is kept; but not for
// `cache`, which shows and removes the caches and makes none of its own.
import { enableCommandCompileCache } from '../dist/cache/compile-cache.js';

if (process.argv[2] !== 'cache') enableCommandCompileCache();
await import('../dist/cli/main.js');
