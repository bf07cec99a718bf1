/**
 * The commands that live in packages of their own: `serve` (@supolka/codemode-server) and `mcp`
 * (@supolka/codemode-mcp). They depend on this package, never the other way round, so that
 * installing the library installs no server, metrics, logging or MCP dependency; this package
 * names neither. The command word loads its package's `./command` entry when it is installed
 * beside this one (a flat node_modules, npx with both packages, a global install), and otherwise
 * answers with one sentence saying how to install it. It resolves the name as an import from this
 * package does and nowhere else: never from the directory the command runs in, whose node_modules
 * may hold anything, so typing the command in a folder runs no code that folder brought.
 */
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

/** The command's module, or undefined when its package is not installed beside this one. */
export async function loadCommand(command: OptionalCommand): Promise<CommandModule | undefined> {
  try {
    return (await import(`${OPTIONAL_COMMANDS[command]}/command`)) as CommandModule;
  } catch (error) {
    if (isMissing(error, command)) return undefined;
    throw error;
  }
}

/**
 * The package itself is missing, as against a module it imports: that one's failure is a broken
 * install and surfaces as it is.
 */
function isMissing(error: unknown, command: OptionalCommand): boolean {
  const { code, message } = error as { code?: string; message?: string };
  return code === 'ERR_MODULE_NOT_FOUND' && String(message).includes(`'${OPTIONAL_COMMANDS[command]}`);
}
