#!/usr/bin/env node
// The command's bin, committed so that it exists before dist/ is built (pnpm links a workspace
// package's bins at install). Everything the command does is in dist/main.js.
import '../dist/main.js';
