#!/usr/bin/env node
// The command's bin, committed so that it exists before dist/ is built: pnpm links a workspace
// package's bins at install, and a bin naming dist/cli/main.js made every first install warn that
// the link could not be created. Everything the command does is in dist/cli/main.js.
import '../dist/cli/main.js';
