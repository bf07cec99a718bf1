/**
 * The `./command` entry: what `codemode-executor mcp` loads (the executor's optional-command.ts)
 * and what this package's own bin runs; the MCP SDK is loaded when the command is typed.
 */
export { runMcp as runCommand } from './command.ts';
export { MCP_USAGE as USAGE } from './command-line.ts';
