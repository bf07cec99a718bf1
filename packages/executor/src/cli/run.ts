/**
 * `codemode-executor run FILE`: one program through IsolateExecutor on a pool of one child, its
 * envelope printed the way console.log prints it. Returns the exit code: 0 for a result, 1 for an
 * error envelope, 2 for a command line that cannot run.
 */
import { readFile } from 'node:fs/promises';
import { inspect } from 'node:util';
import { IsolateExecutor } from '../executor/isolate-executor.ts';
import { parseCommandLine, USAGE, UsageError } from './args.ts';
import { exampleTools } from './example-tools.ts';
import { loadTools } from './tools-module.ts';

export interface Output {
  out(text: string): void;
  err(text: string): void;
  readonly colors: boolean;
}

export async function runCli(argv: readonly string[], output: Output): Promise<number> {
  let command: ReturnType<typeof parseCommandLine>;
  let code: string;
  let providers: Awaited<ReturnType<typeof loadTools>>;
  try {
    command = parseCommandLine(argv);
    if (command === 'help') {
      output.out(USAGE);
      return 0;
    }
    const file = command.file;
    code = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new UsageError(`Cannot read ${file}: ${error.code ?? error.message}.`);
    });
    providers = command.tools === undefined ? exampleTools() : await loadTools(command.tools);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    output.err(`codemode-executor: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  // One program: one child is all it needs, and it starts faster than a pool per core.
  const executor = new IsolateExecutor({ poolSize: 1 });
  try {
    const envelope = await executor.execute({
      code,
      providers,
      ...(command.timeout !== undefined ? { timeout: command.timeout } : {}),
      ...(command.memoryLimit !== undefined ? { memoryLimit: command.memoryLimit } : {}),
      ...(command.outbound === 'native' ? { outbound: undefined } : { outbound: null }),
    });
    output.out(`${inspect(envelope, { depth: null, colors: output.colors })}\n`);
    return envelope.error === undefined ? 0 : 1;
  } finally {
    await executor.dispose();
  }
}
