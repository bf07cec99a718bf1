#!/usr/bin/env node
/**
 * The `codemode-executor` command. This process only supervises: the program runs in a child the
 * pool forks with --no-node-snapshot, so this one needs no flags of its own.
 */
import { runCli } from './run.ts';

process.exitCode = await runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  colors: process.stdout.isTTY === true,
});
