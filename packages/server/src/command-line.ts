/**
 * The `serve` command's line: its usage text and its flags, parsed with the executor's shared
 * command-line helpers so a flag error reads as every other command's does.
 */
import { parseArgs } from 'node:util';
import {
  consoleFormatOption,
  delayOption,
  memoryOption,
  packagesOption,
  parseOrExplain,
  poolSizeOption,
  UsageError,
  wholeNumber,
} from '@supolka/codemode-executor/cli';

export const SERVE_USAGE = `Usage: codemode-executor serve [options]

Serves the executor protocol over WebSocket, with GET /healthz and GET /metrics beside it
(https://github.com/supolka/codemode/blob/main/docs/server.md). Stops on SIGTERM or SIGINT: no new
work, executions in flight finish (up to --drain-timeout), then the pool is disposed.

The bearer token is read from the environment variable CODEMODE_EXECUTOR_TOKEN, or from the file
that --token-file or CODEMODE_EXECUTOR_TOKEN_FILE names; never from the command line, where other
users of the machine could read it. Without a token only a loopback --host is served.

Durable runs (pause and resume) are served when a durable key ring is given: in the environment
variable CODEMODE_DURABLE_KEYS, or in the file that --durable-keys-file or
CODEMODE_DURABLE_KEYS_FILE names, as id=base64 entries separated by commas or lines, with * before
the id of the key that seals new tokens; how to make and rotate one:
https://github.com/supolka/codemode/blob/main/docs/deploy.md.

Options:
  --host HOST                        the address to listen on (default 127.0.0.1)
  --port PORT                        the port (default 8790; 0 picks a free one)
  --token-file PATH                  a file holding the bearer token
  --durable-keys-file PATH           a file holding the durable key ring
  --durable-ttl MS                   how long a paused run's token resumes (default 3600000)
  --allow-origin ORIGIN              a browser origin allowed to connect; repeat for several
  --allow-native-outbound            let clients ask the server to perform their fetches
                                     (public addresses only, never the server's own)
  --allow-loopback                   let those fetches reach loopback addresses
  --allow-private                    let them reach private addresses (10/8, 172.16/12,
                                     192.168/16, 100.64/10, fc00::/7)
  --allow-link-local                 let them reach link-local addresses (cloud metadata)
  --packages NAMES                   npm packages programs may import, comma-separated,
                                     found from the working directory (needs
                                     @supolka/codemode-packages); clients choose none
  --instance NAME                    this server's name behind a load balancer
  --log-level LEVEL                  the least level of the JSON log lines on stderr: fatal,
                                     error, warn, info (default), debug, trace or silent
  --pool-size N                      child processes (default: the machine's cores)
  --max-executions-per-connection N  executions one connection may have in flight (default 64)
  --max-connections N                connections at once (default 1024)
  --max-timeout MS                   the largest run bound a client may ask for (default 300000)
  --max-memory MB                    the largest memory limit a client may ask for (default 512)
  --wall-clock-limit MS              wall time one remote execution may take, waits included
                                     (default twice --max-timeout)
  --request-budget MB                server heap the requests it holds may take, each counted at
                                     its estimated decoded cost (default half the heap; at least 128)
  --dispatch-timeout MS              how long a tool call waits for the client (default: the run's timeout)
  --drain-timeout MS                 how long shutdown lets executions finish (default 30000)
  --timeout MS                       the default run bound (default 60000)
  --memory MB                        the default isolate memory limit (default 128)
  --console-format FORMAT            how console lines are written when a request does not say:
                                     string (default), String of each argument, or inspect, as
                                     workerd's console writes them ({ a: 1 }, Map(1) { 1 => 2 })
  -h, --help                         this text
`;

export interface ServeCommand {
  readonly host: string | undefined;
  readonly port: number | undefined;
  readonly tokenFile: string | undefined;
  readonly durableKeysFile: string | undefined;
  readonly durableTtl: number | undefined;
  readonly allowedOrigins: readonly string[];
  readonly allowNativeOutbound: boolean;
  readonly allowLoopback: boolean;
  readonly allowPrivate: boolean;
  readonly allowLinkLocal: boolean;
  readonly instance: string | undefined;
  /** --packages: the npm packages programs may import, the operator's list alone. */
  readonly packages: readonly string[] | undefined;
  readonly logLevel: string | undefined;
  readonly poolSize: number | undefined;
  readonly maxExecutionsPerConnection: number | undefined;
  readonly maxConnections: number | undefined;
  readonly maxTimeout: number | undefined;
  readonly maxMemoryLimit: number | undefined;
  readonly wallClockLimit: number | undefined;
  readonly requestBudget: number | undefined;
  readonly dispatchTimeout: number | undefined;
  readonly drainTimeout: number | undefined;
  readonly timeout: number | undefined;
  readonly memoryLimit: number | undefined;
  readonly consoleFormat: 'string' | 'inspect' | undefined;
}

/** The `serve` command (argv after the word serve), or `'help'`. */
export function parseServeCommandLine(argv: readonly string[]): ServeCommand | 'help' {
  const { values, positionals } = parseOrExplain('serve', () => parseServe(argv));
  if (values.help) return 'help';
  if (positionals.length > 0) throw new UsageError(`serve takes no arguments; got ${positionals.join(' ')}.`);
  return {
    host: values.host,
    port: wholeNumber('--port', values.port),
    tokenFile: values['token-file'],
    durableKeysFile: values['durable-keys-file'],
    durableTtl: wholeNumber('--durable-ttl', values['durable-ttl']),
    allowedOrigins: values['allow-origin'] ?? [],
    allowNativeOutbound: values['allow-native-outbound'] === true,
    allowLoopback: values['allow-loopback'] === true,
    allowPrivate: values['allow-private'] === true,
    allowLinkLocal: values['allow-link-local'] === true,
    instance: values.instance,
    packages: packagesOption(values.packages),
    logLevel: values['log-level'],
    poolSize: poolSizeOption('--pool-size', values['pool-size']),
    maxExecutionsPerConnection: wholeNumber(
      '--max-executions-per-connection',
      values['max-executions-per-connection'],
    ),
    maxConnections: wholeNumber('--max-connections', values['max-connections']),
    maxTimeout: wholeNumber('--max-timeout', values['max-timeout']),
    maxMemoryLimit: wholeNumber('--max-memory', values['max-memory']),
    wallClockLimit: wholeNumber('--wall-clock-limit', values['wall-clock-limit']),
    requestBudget: wholeNumber('--request-budget', values['request-budget']),
    dispatchTimeout: wholeNumber('--dispatch-timeout', values['dispatch-timeout']),
    drainTimeout: wholeNumber('--drain-timeout', values['drain-timeout']),
    // Ranged here, so a bad one is named by its flag: the executor would name its option.
    timeout: delayOption('--timeout', values.timeout),
    memoryLimit: memoryOption('--memory', values.memory),
    consoleFormat: consoleFormatOption('--console-format', values['console-format']),
  };
}

function parseServe(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      'token-file': { type: 'string' },
      'durable-keys-file': { type: 'string' },
      'durable-ttl': { type: 'string' },
      'allow-origin': { type: 'string', multiple: true },
      'allow-native-outbound': { type: 'boolean' },
      'allow-loopback': { type: 'boolean' },
      'allow-private': { type: 'boolean' },
      'allow-link-local': { type: 'boolean' },
      instance: { type: 'string' },
      packages: { type: 'string' },
      'log-level': { type: 'string' },
      'pool-size': { type: 'string' },
      'max-executions-per-connection': { type: 'string' },
      'dispatch-timeout': { type: 'string' },
      'max-connections': { type: 'string' },
      'max-timeout': { type: 'string' },
      'max-memory': { type: 'string' },
      'wall-clock-limit': { type: 'string' },
      'request-budget': { type: 'string' },
      'drain-timeout': { type: 'string' },
      timeout: { type: 'string' },
      memory: { type: 'string' },
      'console-format': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
