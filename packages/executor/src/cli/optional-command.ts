/**
 * The commands that live in packages of their own: `serve` (@supolka/codemode-server) and `mcp`
 * (@supolka/codemode-mcp). They depend on this package, never the other way round, so that
 * installing the library installs no server, metrics, logging or MCP dependency; this package
 * names neither. The command word loads its package's `./command` entry when it is installed
 * beside this one (a flat node_modules, npx with both packages, a global install), or in the
 * project the command runs from, and otherwise answers with one sentence saying how to install it.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Output } from './run.ts';

/** What a command's package exports from its `./command` entry. */
export interface CommandModule {
  /** The command's help text, as `codemode-executor help COMMAND` prints it. */
  readonly USAGE: string;
  /** Runs the command with the words after its own; resolves to the exit code. */
  runCommand(argv: readonly string[], output: Output): Promise<number>;
}

export const OPTIONAL_COMMANDS = {
  serve: '@supolka/codemode-server',
  mcp: '@supolka/codemode-mcp',
} as const;

export type OptionalCommand = keyof typeof OPTIONAL_COMMANDS;

export function notInstalledMessage(command: OptionalCommand): string {
  const name = OPTIONAL_COMMANDS[command];
  return `The ${command} command lives in ${name}, which is not installed here: install it beside @supolka/codemode-executor (npm install ${name}), or run it on its own (npx ${name}).`;
}

/** The command's module, or undefined when its package is installed nowhere this process can see. */
export async function loadCommand(command: OptionalCommand): Promise<CommandModule | undefined> {
  const specifier = `${OPTIONAL_COMMANDS[command]}/command`;
  try {
    return (await import(specifier)) as CommandModule;
  } catch (error) {
    if (!isMissing(error, command)) throw error;
  }
  // Not beside this package: the project the command runs from may have it (a workspace that
  // depends on it, or the package's own folder, which resolves its name to itself).
  let resolved: string;
  try {
    resolved = createRequire(join(process.cwd(), 'package.json')).resolve(specifier);
  } catch (error) {
    if ((error as { code?: string }).code === 'MODULE_NOT_FOUND') return undefined;
    throw error;
  }
  return (await import(pathToFileURL(resolved).href)) as CommandModule;
}

/**
 * The package itself is missing, as against a module it imports: that one's failure is a broken
 * install and surfaces as it is.
 */
function isMissing(error: unknown, command: OptionalCommand): boolean {
  const { code, message } = error as { code?: string; message?: string };
  return code === 'ERR_MODULE_NOT_FOUND' && String(message).includes(`'${OPTIONAL_COMMANDS[command]}`);
}
