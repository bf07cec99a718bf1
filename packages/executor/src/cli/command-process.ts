/**
 * A command as a process: its output to stdout and stderr, colours when stdout is a terminal, live
 * console lines when stderr is one, and its answer as the exit code. One place for every bin of this project's packages
 * (`codemode-executor`, `codemode-server`, `codemode-mcp`), so each reads the same.
 */
import type { Output } from './run.ts';

export async function runAsProcess(
  run: (argv: readonly string[], output: Output) => Promise<number>,
): Promise<void> {
  const output: Output = {
    out: (text: string) => process.stdout.write(text),
    err: (text: string) => process.stderr.write(text),
    colors: process.stdout.isTTY === true,
    errIsTerminal: process.stderr.isTTY === true,
  };
  process.exitCode = await run(process.argv.slice(2), output);
}
