/**
 * The command line of `codemode-executor mcp`, parsed and checked without loading the MCP SDK, so
 * `help mcp` and a bad flag cost no more than the other commands do.
 */
import { parseArgs } from 'node:util';
import {
  consoleFormatOption,
  delayOption,
  memoryOption,
  missingValueMessage,
  noValueMessage,
  poolSizeOption,
  UsageError,
  unknownOptionMessage,
} from '@supolka/codemode-executor/cli';

export const MCP_USAGE = `Usage: codemode-executor mcp --config FILE [options]
       codemode-executor mcp login SERVER --config FILE

Connects to every MCP server that FILE's mcpServers names (the format MCP clients use: a stdio
server { command, args, env, cwd } or an HTTP server { url, headers }) and serves one MCP server of
its own with an execute tool: a program that calls those servers' tools as functions, run in a
fresh V8 isolate. Serves over stdio unless --http is given. FILE's other keys (approvals,
defaultApproval, timeout, wallClockLimit, memoryLimit, outbound, consoleFormat, maxResultLength,
upstreamTimeout, maxUpstreamCalls, approvalTimeout, progressInterval, durableKeysFile,
journalStore, journalStoreBytes) are described in https://github.com/supolka/codemode/blob/main/docs/mcp.md

Approvals of clients on the protocol revision 2026-07-28 are paused programs sealed with the
durable key ring in CODEMODE_DURABLE_KEYS, or in the file CODEMODE_DURABLE_KEYS_FILE or FILE's
durableKeysFile names; without one, with a key made for this process.

Options:
  --config FILE           the configuration (required)
  --http PORT             serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio (0 picks a port)
  --host HOST             the address --http listens on (default 127.0.0.1)
  --token-file PATH       a file holding the bearer token --http requires of clients (or set
                          CODEMODE_EXECUTOR_TOKEN); without a token only a loopback --host is served
  --allow-origin ORIGIN   a browser origin allowed to call --http; repeat for several
  --timeout MS            the run bound of one execution (default: the file's, else 60000)
  --wall-clock-limit MS   wall time one execution may take, waits on upstreams included but
                          not a person answering an approval (default: the file's, else twice
                          the run bound, at least 120000)
  --memory MB             the isolate's memory limit (default: the file's, else 128)
  --outbound MODE         disabled or native: whether a program's fetch reaches the network
                          (default: the file's, else disabled)
  --console-format FORMAT string or inspect: how the answer's console lines are written, String of
                          each argument or as workerd's console writes them ({ a: 1 })
                          (default: the file's, else string)
  --pool-size N           child processes running programs (default 1)
  -h, --help              this text

login SERVER obtains a person's authorization for the HTTP server SERVER, whose entry in FILE
has "oauth": { "tokenFile": PATH }: run it in a terminal, open the address it prints, sign in,
and it writes the tokens to PATH (mode 0600), where the bridge reads and refreshes them.
`;

export const LOGIN_USAGE = `Usage: codemode-executor mcp login SERVER --config FILE

Obtains a person's authorization for the HTTP server SERVER, whose entry in FILE's mcpServers has
"oauth": { "tokenFile": PATH }, by OAuth's authorization-code flow with PKCE: prints an address to
open in a browser, waits on a loopback port (oauth.redirectPort, else one the system picks) for the
browser to come back, and writes the tokens to PATH (mode 0600). A bridge serving FILE reads them
from its next attempt to connect to SERVER and refreshes them itself. Also codemode-mcp login.

Options:
  --config FILE           the configuration (required)
  -h, --help              this text
`;

export interface LoginCommand {
  readonly server: string;
  readonly config: string;
}

export function parseLoginCommandLine(argv: readonly string[]): LoginCommand | 'help' {
  const parsed = parsedOrUsage(() => parseLogin(argv));
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  if (positionals.length !== 1) {
    throw new UsageError(
      `login takes one argument, the name of the MCP server to authorize; got ${positionals.length === 0 ? 'none' : positionals.join(' ')}.`,
    );
  }
  if (values.config === undefined)
    throw new UsageError('login needs --config FILE, the file naming the MCP servers.');
  return { server: positionals[0] as string, config: values.config };
}

function parseLogin(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { config: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
}

export interface McpCommand {
  readonly config: string;
  readonly http: number | undefined;
  readonly host: string | undefined;
  readonly tokenFile: string | undefined;
  readonly allowedOrigins: readonly string[];
  readonly timeout: number | undefined;
  readonly wallClockLimit: number | undefined;
  readonly memoryLimit: number | undefined;
  readonly outbound: 'disabled' | 'native' | undefined;
  readonly consoleFormat: 'string' | 'inspect' | undefined;
  readonly poolSize: number | undefined;
}

export function parseMcpCommandLine(argv: readonly string[]): McpCommand | 'help' {
  const parsed = parsedOrUsage(() => parse(argv));
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  if (positionals.length > 0) throw new UsageError(`mcp takes no arguments; got ${positionals.join(' ')}.`);
  if (values.config === undefined)
    throw new UsageError('mcp needs --config FILE, the file naming the MCP servers.');
  const outbound = values.outbound;
  if (outbound !== undefined && outbound !== 'disabled' && outbound !== 'native') {
    throw new UsageError(`--outbound must be disabled or native; got '${outbound}'.`);
  }
  if (values.http === undefined) {
    for (const flag of ['host', 'token-file', 'allow-origin'] as const) {
      if (values[flag] !== undefined) throw new UsageError(`--${flag} applies to --http only.`);
    }
  }
  return {
    config: values.config,
    http: wholeNumber('--http', values.http),
    host: values.host,
    tokenFile: values['token-file'],
    allowedOrigins: values['allow-origin'] ?? [],
    timeout: delayOption('--timeout', values.timeout),
    wallClockLimit: delayOption('--wall-clock-limit', values['wall-clock-limit']),
    memoryLimit: memoryOption('--memory', values.memory),
    outbound,
    consoleFormat: consoleFormatOption('--console-format', values['console-format']),
    poolSize: poolSizeOption('--pool-size', values['pool-size']),
  };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      config: { type: 'string' },
      http: { type: 'string' },
      host: { type: 'string' },
      'token-file': { type: 'string' },
      'allow-origin': { type: 'string', multiple: true },
      timeout: { type: 'string' },
      'wall-clock-limit': { type: 'string' },
      memory: { type: 'string' },
      outbound: { type: 'string' },
      'console-format': { type: 'string' },
      'pool-size': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

function wholeNumber(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) throw new UsageError(`${flag} must be a whole number; got '${text}'.`);
  return Number(text);
}

/**
 * What util.parseArgs parsed, or its refusal as the command's own usage sentence: an unknown
 * option, a missing value, a value given to a switch. The bridge's command and its login parse alike.
 */
function parsedOrUsage<T>(parseArgv: () => T): T {
  try {
    return parseArgv();
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    const option = /'(?:-\w, )?(--?[\w-]+)/.exec(message)?.[1];
    if (option !== undefined && code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      throw new UsageError(unknownOptionMessage('mcp', option));
    }
    if (option !== undefined && message.endsWith(' argument missing'))
      throw new UsageError(missingValueMessage(option));
    if (option !== undefined && message.endsWith(' does not take an argument'))
      throw new UsageError(noValueMessage(option));
    throw new UsageError(message);
  }
}
