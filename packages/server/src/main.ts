#!/usr/bin/env node
/**
 * The `codemode-server` command: `codemode-executor serve` under this package's own name, for an
 * install (or npx) of this package alone. This process only supervises; programs run in the pool's
 * children.
 */
// First: the executor's root entry refuses a Node below its floor with one sentence (node-floor.ts).
import '@supolka/codemode-executor';
import { runAsProcess } from '@supolka/codemode-executor/cli';
import { runCommand } from './entry.ts';

await runAsProcess(runCommand);
