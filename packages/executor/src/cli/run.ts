/**
 * `codemode-executor run FILE`: one program through IsolateExecutor on a pool of one child, its
 * envelope printed the way console.log prints it, or as JSON with --json. Returns the exit code: 0
 * for a result, 1 for an error envelope, 2 for a command line that cannot run, 3 for a durable run
 * that paused (--durable; resume.ts finishes it). FILE `-` is standard
 * input. The program's console lines go to stderr while it runs (a person watching a terminal, or
 * --stream); stdout holds the envelope alone, so what a pipe reads is the same either way.
 */
import { inspect } from 'node:util';
import {
  BadRequestError,
  CODE_LIMIT,
  type LogLine,
  type ModuleMap,
  stringifyForDispatch,
} from '@supolka/codemode-protocol/wire';
import { flushCompiledCode } from '../cache/compile-cache.ts';
import { identityPositions, withAuthorPositions } from '../codemode/code-positions.ts';
import { readableEntry } from '../codemode/entry-code.ts';
import type { DurableKeyRing } from '../durable/keys.ts';
import type { Resumption } from '../executor/durable-runs.ts';
import { IsolateExecutor } from '../executor/isolate-executor.ts';
import {
  DURABLE_KEYS_ENV,
  DURABLE_KEYS_FILE_ENV,
  DurableKeysSourceError,
  readDurableKeys,
} from '../serving/durable-keys.ts';
import { parseRunCommandLine, RUN_USAGE, type RunCommand, UsageError } from './args.ts';
import { exampleTools } from './example-tools.ts';
import { loadModules } from './modules-option.ts';
import { readTextFile, readTextStream } from './read-text-file.ts';
import { loadTools } from './tools-module.ts';

export interface Output {
  out(text: string): void;
  err(text: string): void;
  readonly colors: boolean;
  /** Whether `err` writes to a terminal: someone is watching, so `run` shows console lines as they come. */
  readonly errIsTerminal?: boolean;
}

/** Printed before the envelope when FILE reads as no program, whose envelope holds the engine's syntax error. */
export function unreadableProgramMessage(what: string): string {
  return `${what} reads neither as an async arrow function (async () => { ... }, optionally after static imports) nor as statements (console.log('hi'); return 1), in JavaScript or TypeScript; the envelope holds the syntax error.`;
}

/**
 * UTF-8 takes at most three bytes per UTF-16 code unit, so a file past this many bytes is past
 * CODE_LIMIT; one under it the executor measures exactly.
 */
const FILE_BYTES_LIMIT = 3 * CODE_LIMIT;

/** What FILE `-` names in every sentence about it. */
export const STANDARD_INPUT = 'standard input';

/** The exit code of a durable run that paused: neither done (0) nor failed (1), so a script can tell. */
export const PAUSED_EXIT = 3;

/**
 * `argv` is what follows the word run; `input` gives what FILE `-` reads (taken only then: even
 * touching process.stdin opens a handle on it).
 */
export function runCli(
  argv: readonly string[],
  output: Output,
  input: () => AsyncIterable<Uint8Array> = () => process.stdin,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<number> {
  return runProgram(() => parseRunCommandLine(argv), RUN_USAGE, output, input, env);
}

/**
 * One program through the executor, from its command line: run's, or resume's, which names the
 * paused run to resume (`resumption`); the envelope printed and the exit code answered.
 */
export async function runProgram(
  parse: () => RunCommand | 'help',
  usage: string,
  output: Output,
  input: () => AsyncIterable<Uint8Array>,
  env: Readonly<Record<string, string | undefined>>,
  resumption?: () => Promise<Resumption>,
): Promise<number> {
  let command: RunCommand | 'help';
  let code: string;
  let providers: Awaited<ReturnType<typeof loadTools>>;
  let modules: ModuleMap | undefined;
  let keys: DurableKeyRing | undefined;
  let resuming: Resumption | undefined;
  try {
    command = parse();
    if (command === 'help') {
      output.out(usage);
      return 0;
    }
    if (command.durable || resumption !== undefined) keys = await durableKeys(env, command.durableKeysFile);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return usageFailed(error, usage, output);
  }
  // One program: one child is all it needs, and it starts faster than a pool per core. It starts
  // here, before the program, its tools and its modules are read: a tools module that loads a
  // client library can take as long as the child's start, which then runs beside it.
  const executor = new IsolateExecutor({
    poolSize: 1,
    ...(command.wallClockLimit !== undefined ? { wallClockLimit: command.wallClockLimit } : {}),
    ...(keys !== undefined ? { durable: { keys } } : {}),
    ...(command.packages !== undefined ? { packages: command.packages } : {}),
  });
  try {
    try {
      code =
        command.file === '-'
          ? await readTextStream(input(), FILE_BYTES_LIMIT, STANDARD_INPUT)
          : await readTextFile(command.file, FILE_BYTES_LIMIT, command.file);
      providers = command.tools === undefined ? exampleTools() : await loadTools(command.tools);
      modules = command.modules === undefined ? undefined : await loadModules(command.modules);
      resuming = await resumption?.();
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      return usageFailed(error, usage, output);
    }
    const entry = toEntry(code);
    const what = command.file === '-' ? STANDARD_INPUT : command.file;
    if (entry === undefined) output.err(`codemode-executor: ${unreadableProgramMessage(what)}\n`);
    const stream = command.stream || output.errIsTerminal === true;
    // Packages that cannot be served stop the command before the program, as a bad option does.
    const refused = await executor.packages().then(
      () => undefined,
      (error: Error) => error.message,
    );
    if (refused !== undefined) {
      output.err(`codemode-executor: ${refused}\n`);
      return 2;
    }
    const request = {
      code: entry?.code ?? code,
      providers,
      ...(modules !== undefined ? { modules } : {}),
      ...(command.timeout !== undefined ? { timeout: command.timeout } : {}),
      ...(command.memoryLimit !== undefined ? { memoryLimit: command.memoryLimit } : {}),
      ...(command.outbound === 'native' ? { outbound: undefined } : { outbound: null }),
      ...(command.consoleFormat !== undefined ? { consoleFormat: command.consoleFormat } : {}),
      ...(command.durable ? { durable: true } : {}),
    };
    // Every line is heard before execute resolves, so they all precede the envelope.
    const options = stream
      ? { onConsole: (lines: readonly LogLine[]) => output.err(streamedLines(lines)) }
      : {};
    // Everything this process runs with is loaded: its compiled code is written while the child
    // still starts, not on the way out.
    flushCompiledCode();
    const ran =
      resuming === undefined
        ? await executor.execute(request, options)
        : await executor.resume(resuming.token, resuming.answers, request, options);
    // Positions in the program as the file holds it, not in the entry the statements became.
    const envelope = withAuthorPositions(ran, entry?.positions);
    const printed = command.json
      ? stringifyForDispatch(envelope)
      : inspect(envelope, {
          depth: null,
          colors: output.colors,
          maxArrayLength: null,
          maxStringLength: null,
        });
    output.out(`${printed}\n`);
    if (envelope.paused !== undefined) return PAUSED_EXIT;
    return envelope.error === undefined ? 0 : 1;
  } finally {
    await executor.dispose();
  }
}

/** A command line that cannot run: exit 2, the reason and the usage on stderr. */
function usageFailed(error: UsageError, usage: string, output: Output): number {
  output.err(`codemode-executor: ${error.message}\n\n${usage}`);
  return 2;
}

/** The key ring of a durable run or a resume, which needs one. */
async function durableKeys(
  env: Readonly<Record<string, string | undefined>>,
  file: string | undefined,
): Promise<DurableKeyRing> {
  let keys: DurableKeyRing | undefined;
  try {
    keys = await readDurableKeys(env, file);
  } catch (error) {
    if (error instanceof DurableKeysSourceError) throw new UsageError(error.message);
    throw error;
  }
  if (keys === undefined) throw new UsageError(NO_DURABLE_KEYS_MESSAGE);
  return keys;
}

/** --durable, or resume, without a key ring. */
export const NO_DURABLE_KEYS_MESSAGE = `A durable run needs a durable key ring: set ${DURABLE_KEYS_ENV}, or name a file with --durable-keys-file or ${DURABLE_KEYS_FILE_ENV}.`;

/** Console lines as stderr shows them: each line's text as the program wrote it, one to a line. */
function streamedLines(lines: readonly LogLine[]): string {
  return lines.map((line) => `${line.text}\n`).join('');
}

/**
 * The program as the Code Mode form takes it (an arrow, or statements), or undefined when it reads
 * as neither. Code past the size or nesting bounds goes on as written: the executor refuses it with
 * the same text, in an envelope like every other refusal.
 */
function toEntry(code: string): ReturnType<typeof readableEntry> {
  try {
    return readableEntry(code, true);
  } catch (error) {
    if (error instanceof BadRequestError) return { code, positions: identityPositions(code) };
    throw error;
  }
}
