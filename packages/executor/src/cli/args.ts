/** The command line of `codemode-executor`, parsed and checked; a bad one is a UsageError naming what is wrong. */
import { parseArgs } from 'node:util';
import {
  CONSOLE_FORMATS,
  type ConsoleFormat,
  MAX_DELAY,
  MAX_MEMORY_LIMIT,
  MIN_MEMORY_LIMIT,
} from '@supolka/codemode-protocol/wire';
import { MAX_POOL_SIZE } from '../executor/options.ts';

/** What `codemode-executor help` (and `--help`) prints: every command, in one screen. */
export const USAGE = `Usage: codemode-executor run FILE [options]   run one program and print its envelope
       codemode-executor resume FILE --token PATH --answers PATH [options]
                                              resume a paused durable run of FILE
       codemode-executor serve [options]      serve the executor protocol over WebSocket
       codemode-executor mcp --config FILE    one MCP code tool over the MCP servers FILE names
       codemode-executor cache dir|clear|prepare
                                              where the caches on disk are kept, remove them, or fill them
       codemode-executor help [COMMAND]       this text, or the options of run, resume, serve, mcp or cache
       codemode-executor --version            the version of @supolka/codemode-executor
`;

export const RUN_USAGE = `Usage: codemode-executor run FILE [options]

Runs the program in FILE (- reads it from standard input) in a fresh V8 isolate, prints its
envelope on stdout, and exits with 1 when the envelope carries an error, and with 3 when a
durable run paused (--durable: its envelope carries the token \`resume\` finishes it from). FILE holds an async arrow
function, optionally after static imports (async () => { ... }), or statements as the Code Mode
form takes them (console.log('hi'); return 1), in JavaScript or TypeScript. While it runs, the
program's console lines go to stderr as it writes them when stderr is a terminal (or with
--stream); the envelope holds them all too.

Options:
  --tools MODULE      a module whose default export is the providers: a list of
                      { name, fns, prelude?, positionalArgs? }, or an object { provider: { tool: fn } }.
                      Without it, the built-in example tools: notes.list/read/write and math.add/multiply.
  --modules PATH      the modules the program imports: a JSON file holding a module map, or a
                      directory whose files are modules named by their path inside it
  --packages NAMES    npm packages the program may import, comma-separated (zod,date-fns),
                      found from the working directory; needs @supolka/codemode-packages
  --json              print the envelope as one line of JSON (binary values in the protocol's
                      { "$binary": ... } form) instead of as console.log prints it
  --stream            write console lines to stderr as they are written even when stderr is
                      not a terminal (stdout still holds the envelope alone)
  --timeout MS        the run bound in milliseconds (default 60000)
  --wall-clock-limit MS
                      wall time the run may take, waits on tools included (default twice
                      --timeout, at least 120000): a tool that never answers ends there
  --memory MB         the isolate's memory limit in megabytes (default 128)
  --outbound MODE     disabled (default) or native: whether the program's fetch reaches the network
  --console-format FORMAT
                      string (default): console lines are String of each argument, joined by
                      spaces; inspect: as workerd's console writes them ({ a: 1 }, Map(1) { 1 => 2 })
  --durable           a durable run: a tool may pause it (pause() from @supolka/codemode-executor),
                      and its envelope then carries the token to resume it with. Needs a durable key
                      ring: CODEMODE_DURABLE_KEYS, or the file --durable-keys-file or
                      CODEMODE_DURABLE_KEYS_FILE names (id=base64, * before the current key)
  --durable-keys-file PATH
                      a file holding the durable key ring
  -h, --help          this text
`;

export class UsageError extends Error {
  override name = 'UsageError';
}

/** A command name that is none of run, resume, serve, mcp, cache or help. */
export function unknownCommandMessage(command: string): string {
  return `Unknown command '${command}'; the commands are run, resume, serve, mcp, cache and help.`;
}

/** An option before any command. */
export function unknownLeadingOptionMessage(option: string): string {
  return `Unknown option '${option}'; codemode-executor help lists the commands, and help COMMAND their options.`;
}

export const NO_COMMAND_MESSAGE =
  'No command given; the commands are run, resume, serve, mcp, cache and help.';

export interface RunCommand {
  readonly file: string;
  readonly tools: string | undefined;
  readonly modules: string | undefined;
  /** --packages: the names of the npm packages the program may import. */
  readonly packages: readonly string[] | undefined;
  readonly json: boolean;
  /** --stream: console lines to stderr as they are written, whatever stderr is. */
  readonly stream: boolean;
  readonly timeout: number | undefined;
  readonly wallClockLimit: number | undefined;
  readonly memoryLimit: number | undefined;
  readonly outbound: 'disabled' | 'native';
  /** --console-format: how the program's console lines are written; undefined, the executor's default. */
  readonly consoleFormat: ConsoleFormat | undefined;
  /** --durable: a durable run, whose key ring comes from the environment or --durable-keys-file. */
  readonly durable: boolean;
  readonly durableKeysFile: string | undefined;
}

/** The `run` command (argv after the word run), or `'help'`. */
export function parseRunCommandLine(argv: readonly string[]): RunCommand | 'help' {
  const { values, positionals } = parseOrExplain('run', () => parseRun(argv));
  if (values.help) return 'help';
  const [file, ...rest] = positionals;
  if (file === undefined) throw new UsageError('run needs the FILE of the program to run.');
  if (rest.length > 0) throw new UsageError(`run takes one FILE; also got ${rest.join(' ')}.`);
  const outbound = values.outbound ?? 'disabled';
  if (outbound !== 'disabled' && outbound !== 'native') {
    throw new UsageError(`--outbound must be disabled or native; got '${outbound}'.`);
  }
  return {
    file,
    tools: values.tools,
    modules: values.modules,
    packages: packagesOption(values.packages),
    json: values.json === true,
    stream: values.stream === true,
    timeout: delayOption('--timeout', values.timeout),
    wallClockLimit: delayOption('--wall-clock-limit', values['wall-clock-limit']),
    memoryLimit: memoryOption('--memory', values.memory),
    outbound,
    consoleFormat: consoleFormatOption('--console-format', values['console-format']),
    durable: values.durable === true,
    durableKeysFile: values['durable-keys-file'],
  };
}

function parseRun(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      tools: { type: 'string' },
      modules: { type: 'string' },
      packages: { type: 'string' },
      json: { type: 'boolean' },
      stream: { type: 'boolean' },
      timeout: { type: 'string' },
      'wall-clock-limit': { type: 'string' },
      memory: { type: 'string' },
      outbound: { type: 'string' },
      'console-format': { type: 'string' },
      durable: { type: 'boolean' },
      'durable-keys-file': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/** `--packages zod,date-fns`: the names, each checked by the bundler; none is a usage error. */
export function packagesOption(text: string | undefined): readonly string[] | undefined {
  if (text === undefined) return undefined;
  const names = text.split(',').map((name) => name.trim());
  if (names.some((name) => name === '')) {
    throw new UsageError(`--packages takes package names separated by commas; got '${text}'.`);
  }
  return names;
}

/** An option the command does not take. */
export function unknownOptionMessage(command: string, option: string): string {
  return `Unknown option '${option}' for ${command}; codemode-executor help ${command} lists its options.`;
}

/** An option that takes a value, given none. */
export function missingValueMessage(option: string): string {
  return `${option} needs a value.`;
}

/** A switch given a value (`--json=yes`). */
export function noValueMessage(option: string): string {
  return `${option} is a switch and takes no value.`;
}

/**
 * parseArgs, its errors worded as this command's sentences: its own texts advise quoting a
 * positional after `--`, which is not what a mistyped option needs.
 */
export function parseOrExplain<T>(command: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    // The option as parseArgs quotes it: '--bogus', '--tools <value>', '-h, --help'.
    const option = /'(?:-\w, )?(--?[\w-]+)/.exec(message)?.[1];
    if (option !== undefined && code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      throw new UsageError(unknownOptionMessage(command, option));
    }
    if (option !== undefined && message.endsWith(' argument missing')) {
      throw new UsageError(missingValueMessage(option));
    }
    if (option !== undefined && message.endsWith(' does not take an argument')) {
      throw new UsageError(noValueMessage(option));
    }
    throw new UsageError(message);
  }
}

export function wholeNumber(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) throw new UsageError(`${flag} must be a whole number; got '${text}'.`);
  return Number(text);
}

/**
 * A bound in ms an executor option takes: from 1 to MAX_DELAY. A whole number outside it is
 * refused here, with the range, rather than by the executor once the command runs: there it was
 * an error envelope (run, exit 1) or an option error thrown past the command (serve, mcp).
 */
export function delayOption(flag: string, text: string | undefined): number | undefined {
  const ms = wholeNumber(flag, text);
  if (ms !== undefined && (ms < 1 || ms > MAX_DELAY)) {
    throw new UsageError(`${flag} must be from 1 to ${MAX_DELAY} ms; got '${text}'.`);
  }
  return ms;
}

/** An isolate memory limit in MB, as the executor takes it: from MIN_MEMORY_LIMIT to MAX_MEMORY_LIMIT. */
export function memoryOption(flag: string, text: string | undefined): number | undefined {
  const mb = wholeNumber(flag, text);
  if (mb !== undefined && (mb < MIN_MEMORY_LIMIT || mb > MAX_MEMORY_LIMIT)) {
    throw new UsageError(
      `${flag} must be from ${MIN_MEMORY_LIMIT} to ${MAX_MEMORY_LIMIT} MB; got '${text}'.`,
    );
  }
  return mb;
}

/** A console format, as the executor's consoleFormat takes it: string or inspect. */
export function consoleFormatOption(flag: string, text: string | undefined): ConsoleFormat | undefined {
  if (text === undefined) return undefined;
  if (!(CONSOLE_FORMATS as readonly string[]).includes(text)) {
    throw new UsageError(`${flag} must be ${CONSOLE_FORMATS.join(' or ')}; got '${text}'.`);
  }
  return text as ConsoleFormat;
}

/** A pool size, as the executor takes it: from 1 to MAX_POOL_SIZE children. */
export function poolSizeOption(flag: string, text: string | undefined): number | undefined {
  const size = wholeNumber(flag, text);
  if (size !== undefined && (size < 1 || size > MAX_POOL_SIZE)) {
    throw new UsageError(`${flag} must be from 1 to ${MAX_POOL_SIZE}; got '${text}'.`);
  }
  return size;
}
