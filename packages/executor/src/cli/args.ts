/** The command line of `codemode-executor`, parsed and checked; a bad one is a UsageError naming what is wrong. */
import { parseArgs } from 'node:util';

export const USAGE = `Usage: codemode-executor run FILE [options]

Runs the program in FILE (an async arrow expression, optionally preceded by static imports) in a
fresh V8 isolate, prints its envelope, and exits with 1 when the envelope carries an error.

Options:
  --tools MODULE      a module whose default export is the providers: a list of
                      { name, fns, prelude?, positionalArgs? }, or an object { provider: { tool: fn } }.
                      Without it, the built-in example tools: notes.list/read/write and math.add/multiply.
  --timeout MS        the run bound in milliseconds (default 60000)
  --memory MB         the isolate's memory limit in megabytes (default 128)
  --outbound MODE     disabled (default) or native: whether the program's fetch reaches the network
  -h, --help          this text
`;

export class UsageError extends Error {
  override name = 'UsageError';
}

export interface RunCommand {
  readonly file: string;
  readonly tools: string | undefined;
  readonly timeout: number | undefined;
  readonly memoryLimit: number | undefined;
  readonly outbound: 'disabled' | 'native';
}

/** The `run` command, or `'help'`. */
export function parseCommandLine(argv: readonly string[]): RunCommand | 'help' {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  const [command, file, ...rest] = positionals;
  if (command !== 'run') {
    throw new UsageError(command === undefined ? 'No command given.' : `Unknown command '${command}'.`);
  }
  if (file === undefined) throw new UsageError('run needs the FILE of the program to run.');
  if (rest.length > 0) throw new UsageError(`run takes one FILE; also got ${rest.join(' ')}.`);
  const outbound = values.outbound ?? 'disabled';
  if (outbound !== 'disabled' && outbound !== 'native') {
    throw new UsageError(`--outbound must be disabled or native; got '${outbound}'.`);
  }
  return {
    file,
    tools: values.tools,
    timeout: wholeNumber('--timeout', values.timeout),
    memoryLimit: wholeNumber('--memory', values.memory),
    outbound,
  };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      tools: { type: 'string' },
      timeout: { type: 'string' },
      memory: { type: 'string' },
      outbound: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

function wholeNumber(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) throw new UsageError(`${flag} must be a whole number; got '${text}'.`);
  return Number(text);
}
