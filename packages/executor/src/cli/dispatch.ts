/**
 * The first word of the command line: run, serve, mcp, help, or --version. Returns the exit code: a
 * command that is none of these is a usage error, exit 2, naming what was given.
 */
import { readFileSync } from 'node:fs';
import { MCP_USAGE } from '../mcp/command-line.ts';
import { runServe } from '../server/serve-command.ts';
import {
  NO_COMMAND_MESSAGE,
  RUN_USAGE,
  SERVE_USAGE,
  USAGE,
  UsageError,
  unknownCommandMessage,
  unknownLeadingOptionMessage,
} from './args.ts';
import { type Output, runCli } from './run.ts';

const HELP: Readonly<Record<string, string>> = {
  run: RUN_USAGE,
  serve: SERVE_USAGE,
  mcp: MCP_USAGE,
  help: USAGE,
};

/** The package's version, from its package.json two levels up (from src/cli and from dist/cli alike). */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  return (manifest as { version: string }).version;
}

export async function runCommand(argv: readonly string[], output: Output): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'run':
        return await runCli(rest, output);
      case 'serve':
        return await runServe(rest, output);
      case 'mcp': {
        // Loaded here only: the MCP SDK is this command's, and no other entry point pays for it.
        const { runMcp } = await import('../mcp/command.ts');
        return await runMcp(rest, output);
      }
      case 'help':
      case '--help':
      case '-h':
        return help(command === 'help' ? rest : [], output);
      case '--version':
      case '-v':
        if (rest.length > 0) throw new UsageError(`--version takes no arguments; got ${rest.join(' ')}.`);
        output.out(`${packageVersion()}\n`);
        return 0;
      case undefined:
        throw new UsageError(NO_COMMAND_MESSAGE);
      default:
        throw new UsageError(
          command.startsWith('-') ? unknownLeadingOptionMessage(command) : unknownCommandMessage(command),
        );
    }
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    output.err(`codemode-executor: ${error.message}\n\n${USAGE}`);
    return 2;
  }
}

function help(topics: readonly string[], output: Output): number {
  const [topic, ...rest] = topics;
  if (rest.length > 0) throw new UsageError(`help takes one COMMAND; also got ${rest.join(' ')}.`);
  if (topic !== undefined && !Object.hasOwn(HELP, topic)) throw new UsageError(unknownCommandMessage(topic));
  output.out(topic === undefined ? USAGE : (HELP[topic] as string));
  return 0;
}
