/**
 * `codemode-executor serve`: the server as a service. Prints the address once it listens, and
 * on SIGTERM or SIGINT shuts down gracefully (createServer's close) and exits 0. Returns 2 for a
 * command line or an option that cannot run, naming what is wrong.
 */

import type { IsolateExecutorOptions } from '@supolka/codemode-executor';
import { type Output, UsageError } from '@supolka/codemode-executor/cli';
import {
  DurableKeysSourceError,
  isLoopback,
  readDurableKeys,
  readToken,
  TokenSourceError,
} from '@supolka/codemode-executor/serving';
import { BadRequestError } from '@supolka/codemode-protocol/wire';
import { MIN_REQUEST_BUDGET } from './budget.ts';
import { parseServeCommandLine, SERVE_USAGE } from './command-line.ts';
import type { LogLevel } from './log.ts';
import { ServerOptionError } from './options.ts';
import { createServer, type ExecutorServer } from './server.ts';
import { notLoopbackServeMessage } from './texts.ts';

/**
 * How an operator sets each server option from this command, so a bad one is named as they wrote
 * it: createServer's own messages name its options, which a command line does not have.
 */
const SOURCES: Readonly<Record<string, string>> = {
  host: '--host',
  port: '--port',
  token: 'The token (CODEMODE_EXECUTOR_TOKEN or --token-file)',
  allowedOrigins: '--allow-origin',
  instance: '--instance',
  logLevel: '--log-level',
  maxExecutionsPerConnection: '--max-executions-per-connection',
  dispatchTimeout: '--dispatch-timeout',
  maxConnections: '--max-connections',
  maxTimeout: '--max-timeout',
  maxMemoryLimit: '--max-memory',
  wallClockLimit: '--wall-clock-limit',
  drainTimeout: '--drain-timeout',
};

/** A server option's error in the command's words, when the command has a word for it. */
function inCommandWords(error: Error): string {
  if (!(error instanceof ServerOptionError) || error.rule === undefined) return error.message;
  const source = SOURCES[error.option];
  return source === undefined ? error.message : `${source} ${error.rule}.`;
}

export async function runServe(
  argv: readonly string[],
  output: Output,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<number> {
  let server: ExecutorServer;
  try {
    const command = parseServeCommandLine(argv);
    if (command === 'help') {
      output.out(SERVE_USAGE);
      return 0;
    }
    const token = await readToken(env, command.tokenFile);
    const keys = await readDurableKeys(env, command.durableKeysFile);
    if (keys === undefined && command.durableTtl !== undefined) {
      throw new UsageError(
        '--durable-ttl needs a durable key ring (CODEMODE_DURABLE_KEYS or --durable-keys-file).',
      );
    }
    const host = command.host ?? '127.0.0.1';
    // Checked here as well as in createServer, whose advice names its token option.
    if (token === undefined && !isLoopback(host)) {
      throw new ServerOptionError('host', notLoopbackServeMessage(host));
    }
    // The flag is in MiB and the option in bytes: createServer's bound would read in the wrong unit.
    if (command.requestBudget !== undefined && command.requestBudget * 2 ** 20 < MIN_REQUEST_BUDGET) {
      throw new UsageError(
        `--request-budget must be at least ${Math.ceil(MIN_REQUEST_BUDGET / 2 ** 20)} MiB; got ${command.requestBudget}.`,
      );
    }
    const executor: IsolateExecutorOptions = {
      ...(command.poolSize !== undefined ? { poolSize: command.poolSize } : {}),
      ...(command.timeout !== undefined ? { timeout: command.timeout } : {}),
      ...(command.memoryLimit !== undefined ? { memoryLimit: command.memoryLimit } : {}),
      // The operator's default; a request's own consoleFormat wins (a client of version 3).
      ...(command.consoleFormat !== undefined ? { consoleFormat: command.consoleFormat } : {}),
      // Operator flags only: no field of a client's request reaches the address policy.
      allowLoopback: command.allowLoopback,
      allowPrivate: command.allowPrivate,
      allowLinkLocal: command.allowLinkLocal,
      ...(command.packages !== undefined ? { packages: command.packages } : {}),
      ...(keys !== undefined
        ? { durable: { keys, ...(command.durableTtl !== undefined ? { ttl: command.durableTtl } : {}) } }
        : {}),
    };
    server = await createServer({
      ...(command.host !== undefined ? { host: command.host } : {}),
      ...(command.port !== undefined ? { port: command.port } : {}),
      ...(token !== undefined ? { token } : {}),
      allowedOrigins: command.allowedOrigins,
      allowNativeOutbound: command.allowNativeOutbound,
      ...(command.instance !== undefined ? { instance: command.instance } : {}),
      // An operator's service logs by default; createServer from code stays silent unless asked.
      logLevel: (command.logLevel ?? 'info') as LogLevel,
      ...(command.maxExecutionsPerConnection !== undefined
        ? { maxExecutionsPerConnection: command.maxExecutionsPerConnection }
        : {}),
      ...(command.dispatchTimeout !== undefined ? { dispatchTimeout: command.dispatchTimeout } : {}),
      ...(command.maxConnections !== undefined ? { maxConnections: command.maxConnections } : {}),
      ...(command.maxTimeout !== undefined ? { maxTimeout: command.maxTimeout } : {}),
      ...(command.maxMemoryLimit !== undefined ? { maxMemoryLimit: command.maxMemoryLimit } : {}),
      ...(command.wallClockLimit !== undefined ? { wallClockLimit: command.wallClockLimit } : {}),
      // The flag is in MiB, as an operator thinks of a heap; the option is in bytes.
      ...(command.requestBudget !== undefined ? { requestBudget: command.requestBudget * 2 ** 20 } : {}),
      ...(command.drainTimeout !== undefined ? { drainTimeout: command.drainTimeout } : {}),
      executor,
    });
    // Packages that cannot be served stop the command, as a bad option does: a server that
    // answered every execution with the reason would look healthy to its probes.
    const serving = server;
    await serving.executor.packages().catch(async (error: unknown) => {
      await serving.close();
      throw error;
    });
  } catch (error) {
    const known =
      error instanceof UsageError ||
      error instanceof TokenSourceError ||
      error instanceof DurableKeysSourceError ||
      error instanceof BadRequestError ||
      (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
    if (!known) throw error;
    const usage = error instanceof UsageError ? `\n\n${SERVE_USAGE}` : '\n';
    output.err(`codemode-executor serve: ${inCommandWords(error as Error)}${usage}`);
    return 2;
  }
  output.out(`codemode-executor serving on ${server.url}\n`);
  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      output.out(`codemode-executor: ${signal}, shutting down\n`);
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      void server.close().then(resolve);
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
  output.out('codemode-executor: stopped\n');
  return 0;
}
