/**
 * The first word of the command line: run, resume, serve, mcp, cache, help, or --version. Returns the exit code: a
 * command that is none of these is a usage error, exit 2, naming what was given.
 */
import { packageVersion } from '../version.ts';
import {
  NO_COMMAND_MESSAGE,
  RUN_USAGE,
  USAGE,
  UsageError,
  unknownCommandMessage,
  unknownLeadingOptionMessage,
} from './args.ts';
import { CACHE_USAGE, cacheCli } from './cache.ts';
import { loadCommand, notInstalledMessage, type OptionalCommand } from './optional-command.ts';
import { RESUME_USAGE, resumeCli } from './resume.ts';
import { type Output, runCli } from './run.ts';

const HELP: Readonly<Record<string, string>> = {
  run: RUN_USAGE,
  resume: RESUME_USAGE,
  cache: CACHE_USAGE,
  help: USAGE,
};

export async function runCommand(argv: readonly string[], output: Output): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'run':
        return await runCli(rest, output);
      case 'resume':
        return await resumeCli(rest, output);
      case 'cache':
        return await cacheCli(rest, output);
      case 'serve':
      case 'mcp': {
        // Loaded here only: the server's and the MCP SDK's modules are these commands', and no
        // other entry point pays for them.
        const module = await loadCommand(command);
        if (module === undefined) return notInstalled(command, output);
        return await module.runCommand(rest, output);
      }
      case 'help':
      case '--help':
      case '-h':
        // `-h run` is `help run`, as a user who reaches for the flag first expects.
        return await help(rest, output);
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

async function help(topics: readonly string[], output: Output): Promise<number> {
  const [topic, ...rest] = topics;
  if (rest.length > 0) throw new UsageError(`help takes one COMMAND; also got ${rest.join(' ')}.`);
  if (topic === 'serve' || topic === 'mcp') {
    const module = await loadCommand(topic);
    if (module === undefined) return notInstalled(topic, output);
    output.out(module.USAGE);
    return 0;
  }
  if (topic !== undefined && !Object.hasOwn(HELP, topic)) throw new UsageError(unknownCommandMessage(topic));
  output.out(topic === undefined ? USAGE : (HELP[topic] as string));
  return 0;
}

/** Exit 1, not 2: the command line was right, the install lacks the package that runs it. */
function notInstalled(command: OptionalCommand, output: Output): number {
  output.err(`codemode-executor ${command}: ${notInstalledMessage(command)}\n`);
  return 1;
}
