/**
 * `codemode-executor mcp`: reads the config, starts every upstream (one that fails is named on
 * stderr and restarted with backoff; the others are served), and serves the execute tool over
 * stdio, or over Streamable HTTP with --http, to clients of either protocol era (the SDK's serving
 * entries decide which from the client's first message). stdout belongs to the MCP channel over
 * stdio, so everything this command says goes to stderr. Returns 2 for a command line or config
 * that cannot run, naming what is wrong; 0 when the client closes stdio or a signal ends the
 * service.
 */
import { randomBytes } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import type { Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { type AllowedPackage, DurableKeyRing, IsolateExecutor } from '@supolka/codemode-executor';
import type { Output } from '@supolka/codemode-executor/cli';
import { UsageError } from '@supolka/codemode-executor/cli';
import {
  DurableKeysSourceError,
  isLoopback,
  MIN_TOKEN_LENGTH,
  notLoopbackServeMessage,
  readDurableKeys,
  readToken,
  TokenSourceError,
} from '@supolka/codemode-executor/serving';
import { ApprovalPolicy } from './approvals.ts';
import { Catalog } from './catalog.ts';
import { MCP_USAGE, type McpCommand, parseMcpCommandLine } from './command-line.ts';
import { type McpConfig, readConfig } from './config.ts';
import { EraCache } from './era-cache.ts';
import type { ServedHttp } from './http-serve.ts';
import { HttpServeError, shortTokenMessage } from './http-serve-error.ts';
import { FileJournalStore, JournalStoreError } from './journal-store.ts';
import { runLogin } from './login.ts';
import { namespaceNames } from './names.ts';
import { createServedServer, type Era, type McpHost } from './served.ts';
import { EPHEMERAL_KEY_NOTE, upstreamFailedMessage } from './texts.ts';
import { Upstream } from './upstream.ts';

export const DEFAULT_MAX_RESULT_LENGTH = 100_000;
export const DEFAULT_UPSTREAM_TIMEOUT = 60_000;
export const DEFAULT_MAX_UPSTREAM_CALLS = 1000;
export const DEFAULT_PROGRESS_INTERVAL = 5000;
export const DEFAULT_APPROVAL_TIMEOUT = 300_000;

export async function runMcp(
  argv: readonly string[],
  output: Output,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<number> {
  if (argv[0] === 'login') return runLogin(argv.slice(1), output);
  let command: McpCommand;
  let config: McpConfig;
  let names: ReadonlyMap<string, string>;
  let token: string | undefined;
  let keys: DurableKeyRing | undefined;
  let journalStore: FileJournalStore | undefined;
  const log = (line: string) => output.err(`codemode-executor mcp: ${line}\n`);
  try {
    const parsed = parseMcpCommandLine(argv);
    if (parsed === 'help') {
      output.out(MCP_USAGE);
      return 0;
    }
    command = parsed;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    output.err(`codemode-executor mcp: ${error.message}\n\n${MCP_USAGE}`);
    return 2;
  }
  try {
    config = await readConfig(command.config);
    names = namespaceNames(Object.keys(config.mcpServers));
    token = command.http === undefined ? undefined : await readToken(env, command.tokenFile);
    // Refused before any upstream starts; serveHttp checks the same for callers of its own.
    const host = command.host ?? '127.0.0.1';
    if (command.http !== undefined && token === undefined && !isLoopback(host)) {
      throw new HttpServeError(notLoopbackServeMessage(host));
    }
    if (token !== undefined && token.length < MIN_TOKEN_LENGTH) {
      throw new HttpServeError(shortTokenMessage(MIN_TOKEN_LENGTH));
    }
    // Paths in the file are read from its folder, as whoever wrote it wrote them.
    const folder = dirname(resolve(command.config));
    keys = await readDurableKeys(
      env,
      config.durableKeysFile === undefined ? undefined : resolve(folder, config.durableKeysFile),
    );
    if (config.journalStore !== undefined) {
      journalStore = await FileJournalStore.open(resolve(folder, config.journalStore), undefined, undefined, {
        ...optional('bytes', config.journalStoreBytes),
        // A folder that stops passing startup's checks is refused at its next use, said here.
        refused: (message) => log(message),
      });
    }
  } catch (error) {
    if (
      !(
        error instanceof UsageError ||
        error instanceof TokenSourceError ||
        error instanceof HttpServeError ||
        error instanceof DurableKeysSourceError ||
        error instanceof JournalStoreError
      )
    ) {
      throw error;
    }
    output.err(`codemode-executor mcp: ${error.message}\n`);
    return 2;
  }

  /** The servers of stdio's connection and of HTTP's handshake-era sessions, told of changes one by one. */
  const servers = new Set<Server>();
  let http: ServedHttp | undefined;
  const changed = debounce(() => {
    for (const server of servers) void server.sendToolListChanged().catch(() => {});
    http?.toolsChanged();
  });
  /** A server for one connection or session, held to be told of changes until it closes. */
  const held = (era: Era, callerId?: string): Server => {
    const server = createServedServer(host, era, callerId);
    servers.add(server);
    server.onclose = () => servers.delete(server);
    return server;
  };
  // One for every stdio upstream: the folder is found and checked at the first one's start.
  const eras = new EraCache(env);
  const upstreams = Object.entries(config.mcpServers)
    .filter(([, entry]) => entry.disabled !== true)
    .map(
      ([key, entry]) =>
        new Upstream(key, names.get(key) as string, entry, {
          timeout: entry.upstreamTimeout ?? config.upstreamTimeout ?? DEFAULT_UPSTREAM_TIMEOUT,
          onChange: changed,
          log,
          // Absolute: the login command it names is typed in a terminal, wherever that is.
          configFile: resolve(command.config),
          eras,
        }),
    );
  const outbound = command.outbound ?? config.outbound ?? 'disabled';
  const policy = new ApprovalPolicy(config.approvals, config.defaultApproval);
  const approvalTimeout = config.approvalTimeout ?? DEFAULT_APPROVAL_TIMEOUT;
  if (keys === undefined && command.http !== undefined && policy.mayAsk) log(EPHEMERAL_KEY_NOTE);
  const executor = new IsolateExecutor({
    // Approvals of clients on the current revision pause durable runs, whose tokens live as long
    // as a question may wait (approval-rounds.ts). Without a configured key, one of this process.
    durable: {
      keys: keys ?? new DurableKeyRing({ keys: [{ id: 'ephemeral', key: randomBytes(32) }] }),
      ttl: approvalTimeout,
      // The executor's MAX_JOURNAL_LENGTH: a program may make maxUpstreamCalls (1000 by default)
      // calls before it asks, past the executor's default of 256 entries; the token's size
      // bounds the journal's bytes anyway.
      maxJournalLength: 10_000,
      ...(journalStore !== undefined ? { claims: journalStore } : {}),
    },
    poolSize: command.poolSize ?? 1,
    ...optional('timeout', command.timeout ?? config.timeout),
    ...optional('wallClockLimit', command.wallClockLimit ?? config.wallClockLimit),
    ...optional('memoryLimit', command.memoryLimit ?? config.memoryLimit),
    ...(outbound === 'native' ? { outbound: undefined } : { outbound: null }),
    ...optional('consoleFormat', command.consoleFormat ?? config.consoleFormat),
    // Found from the config file's folder, as the file's other paths are read by whoever wrote it.
    ...(config.packages !== undefined
      ? { packages: config.packages, packagesBase: dirname(resolve(command.config)) }
      : {}),
  });
  /** Set once the command is ending, so a startup still under way no longer reports. */
  let stopping = false;
  // The allowed packages, bundled during the startup: the execute tool's description lists them,
  // and a listing waits for the startup (McpHost.ready). Packages that cannot be served stop the
  // command, with the sentence saying why.
  const allowed: AllowedPackage[] = [];
  let refusal: string | undefined;
  const refused = Promise.withResolvers<void>();
  // The pool's child starts beside the upstreams, so the first execute does not wait for it; the
  // listing does not wait for the child either: it names the upstreams' tools, and a client's first
  // call comes after it reads them (an execute that comes sooner waits in the pool's queue).
  void executor.engine().catch((error: unknown) => {
    if (!stopping) {
      log(`the pool's first child did not start (${String(error)}); executions will start another`);
    }
  });
  const startup = (async () => {
    const bundled = executor.packages().then(
      (packages) => {
        allowed.push(...packages);
      },
      (error: Error) => {
        refusal = error.message;
        refused.resolve();
      },
    );
    const started = await Promise.allSettled(upstreams.map((upstream) => upstream.start()));
    await bundled;
    if (stopping || refusal !== undefined) return;
    started.forEach((outcome, index) => {
      if (outcome.status === 'rejected') {
        output.err(
          `${upstreamFailedMessage((upstreams[index] as Upstream).key, (outcome.reason as Error).message)}\n`,
        );
      }
    });
    const served = upstreams
      .filter((upstream) => upstream.state.kind === 'ready')
      .map((upstream) => upstream.key);
    log(
      `serving ${served.length} of ${upstreams.length} MCP servers${served.length > 0 ? `: ${served.join(', ')}` : ''}`,
    );
  })();
  const host: McpHost = {
    catalog: new Catalog(upstreams),
    policy,
    executor,
    packages: allowed,
    limits: {
      maxResultLength: config.maxResultLength ?? DEFAULT_MAX_RESULT_LENGTH,
      maxUpstreamCalls: config.maxUpstreamCalls ?? DEFAULT_MAX_UPSTREAM_CALLS,
      progressInterval: config.progressInterval ?? DEFAULT_PROGRESS_INTERVAL,
      approvalTimeout,
    },
    ready: startup,
    // Over stdio the client is this process's one connection: a nonce of this start names it, so
    // no approval survives into another process (docs/mcp.md, "Approvals").
    identity: `stdio ${randomBytes(16).toString('base64url')}`,
    ...(journalStore !== undefined ? { journalStore } : {}),
  };

  const shutdown = async () => {
    stopping = true;
    await Promise.all(upstreams.map((upstream) => upstream.close()));
    await executor.dispose();
  };
  try {
    if (command.http === undefined) {
      // A client that closes stdin is gone.
      const ended = new Promise<void>((resolve) => process.stdin.once('end', resolve));
      const stopped = signalled();
      // The first message picks the connection's era: an initialize pins a handshake-era server,
      // a request with the current revision's _meta a current-revision one (a server/discover
      // probe makes one that is dropped again if the client then falls back to initialize).
      // An initialize is answered once the upstreams have started, as before there were two
      // eras; the current revision is served at once, its listing and calls waiting for the
      // startup (McpHost.ready), since an SDK client negotiating the era over stdio sends its
      // probe to a copy of this command it starts for that alone and ends once answered.
      const connection = serveStdio(
        async ({ era }) => {
          if (era === 'legacy') await startup;
          return held(era);
        },
        { onerror: (error) => log(`the stdio connection: ${error.message}`) },
      );
      await Promise.race([ended, stopped, refused.promise]);
      await connection.close();
    } else {
      await startup;
      if (refusal !== undefined) throw new PackagesRefusedError(refusal);
      // Loaded only here: a bridge over stdio never loads the SDK's HTTP serving (http-serve-error.ts).
      const { serveHttp } = await import('./http-serve.ts');
      http = await serveHttp({
        host: command.host ?? '127.0.0.1',
        port: command.http,
        token,
        allowedOrigins: command.allowedOrigins,
        // Handshake-era sessions are told of changes one by one; per-request servers never are,
        // their clients listen (subscriptions/listen) and ServedHttp.toolsChanged tells them.
        createServer: (era, callerId, identity) =>
          era === 'legacy' ? held(era, callerId) : createServedServer(host, era, callerId, identity),
      });
      log(`serving MCP on ${http.url}`);
      await signalled();
      await http.close();
    }
    if (refusal !== undefined) throw new PackagesRefusedError(refusal);
  } catch (error) {
    await shutdown();
    const known =
      error instanceof HttpServeError ||
      error instanceof PackagesRefusedError ||
      (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
    if (!known) throw error;
    output.err(`codemode-executor mcp: ${(error as Error).message}\n`);
    return 2;
  }
  await shutdown();
  log('stopped');
  return 0;
}

/** The config's packages cannot be served: the command ends with the bundler's sentence. */
class PackagesRefusedError extends Error {}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

/** Resolves on the first SIGTERM or SIGINT. */
function signalled(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      resolve();
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}

/** Many upstreams changing at once (a restart, a burst of list_changed) tell the client once. */
function debounce(run: () => void, ms = 100): () => void {
  let timer: NodeJS.Timeout | undefined;
  return () => {
    if (timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      run();
    }, ms);
    timer.unref();
  };
}
