/**
 * The `./command` entry: what `codemode-executor serve` loads (the executor's optional-command.ts)
 * and what this package's own bin runs. Nothing else is imported, so the command word costs the
 * server's modules only when it is typed.
 */
export { SERVE_USAGE as USAGE } from './command-line.ts';
export { runServe as runCommand } from './serve-command.ts';
