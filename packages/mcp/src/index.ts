/**
 * @supolka/codemode-mcp: one MCP code tool over many MCP servers, on the codemode executor. The
 * package is a command (`codemode-mcp`, or `codemode-executor mcp` when this package is installed
 * beside the executor); its `./command` entry is what both run.
 */
export { runCommand, USAGE } from './entry.ts';
