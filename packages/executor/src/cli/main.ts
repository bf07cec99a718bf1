#!/usr/bin/env node
/**
 * The `codemode-executor` command. This process only supervises: the program runs in a child the
 * pool forks with --no-node-snapshot, so this one needs no flags of its own.
 */
// First: below the Node floor nothing else may be evaluated (node-floor.ts).
import './require-node-floor.ts';
import { runAsProcess } from './command-process.ts';
import { runCommand } from './dispatch.ts';

await runAsProcess(runCommand);
