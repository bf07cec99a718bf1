#!/usr/bin/env node
/**
 * The `codemode-executor` command. This process only supervises: the program runs in a child the
 * pool forks with --no-node-snapshot, so this one needs no flags of its own.
 */
// First: below the Node floor nothing else may be evaluated (node-floor.ts).
import './require-node-floor.ts';
import { runServe } from '../server/serve-command.ts';
import { runCli } from './run.ts';

const output = {
  out: (text: string) => process.stdout.write(text),
  err: (text: string) => process.stderr.write(text),
  colors: process.stdout.isTTY === true,
};
const [command, ...rest] = process.argv.slice(2);
process.exitCode =
  command === 'serve' ? await runServe(rest, output) : await runCli(process.argv.slice(2), output);
