/**
 * @supolka/codemode-executor/cli: the command line's shared pieces, for the commands other packages
 * of this project add to `codemode-executor` (serve in @supolka/codemode-server, mcp in
 * @supolka/codemode-mcp), so a flag error, a file read and an exit code read the same in every
 * command. It follows the package's version like the root entry.
 */
export {
  consoleFormatOption,
  delayOption,
  memoryOption,
  missingValueMessage,
  noValueMessage,
  packagesOption,
  parseOrExplain,
  poolSizeOption,
  UsageError,
  unknownOptionMessage,
  wholeNumber,
} from './args.ts';
export { runAsProcess } from './command-process.ts';
export type { CommandModule } from './optional-command.ts';
export { readTextFile, readTextStream, tooLargeMessage } from './read-text-file.ts';
export type { Output } from './run.ts';
