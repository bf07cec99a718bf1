/**
 * One upstream MCP server, held connected with the official SDK's Client: started (stdio) or
 * reached (Streamable HTTP, falling back to legacy SSE when the server only speaks that), its tools
 * listed and listed again on `notifications/tools/list_changed`, and, when it exits or its
 * connection drops, restarted with a backoff that doubles up to BACKOFF_CAP. A call while it is
 * down throws a sentence naming it and why.
 *
 * Each upstream speaks the revision it speaks: the Client probes with `server/discover` and lands
 * on the current revision (2026-07-28) when the server offers it, else falls back to the
 * `initialize` handshake. The verdict of the last good connection is handed to the next one, so a
 * restart does not probe again (over stdio the probe costs a second start of the server's command).
 * A stdio server's era is also remembered on disk for the next bridge process (era-cache.ts): a
 * remembered `legacy` skips the probe, a remembered `modern` probes on the session's own process
 * (InPlaceStdioTransport), and a remembered era whose connection fails is forgotten.
 */
import { resolve } from 'node:path';
import {
  Client,
  type PriorDiscovery,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { cutText, NAME_LIMIT, SchemaCheck, TOOL_LIMIT } from '@supolka/codemode-executor/serving';
import { z } from 'zod';
import { boundedFetch } from './bounded-fetch.ts';
import { isStdio, type StdioUpstreamConfig, tokenFilePath, type UpstreamConfig } from './config.ts';
import type { EraCache, RememberedEra, StdioLaunch } from './era-cache.ts';
import { LISTING_WEIGHT_LIMIT, listingWeight } from './listing-weight.ts';
import { functionNames } from './names.ts';
import { LoginNeededError } from './oauth-provider.ts';
import { NO_VALIDATION_HERE, outputMismatch } from './output-check.ts';
import {
  connectTimeoutMessage,
  listingTimeoutMessage,
  listingTooLargeMessage,
  refusedAfterRefreshMessage,
  toolNameTooLongMessage,
  tooManyToolsMessage,
  upstreamCallFailedMessage,
  upstreamDownMessage,
  upstreamTimeoutMessage,
} from './texts.ts';
import { TokenFileError } from './token-file.ts';
import { UpstreamAuth } from './upstream-auth.ts';
import { packageVersion } from './version.ts';

/** Pages of tools/list read before giving up: a server paging forever must not hold startup. */
export const PAGE_LIMIT = 100;
/**
 * How long connecting and listing tools may take: a server started with npx may spend seconds
 * installing, far longer than one call should wait (upstreamTimeout).
 */
export const CONNECT_TIMEOUT = 30_000;

export const BACKOFF_START = 500;
export const BACKOFF_CAP = 30_000;
/** A transport error this recent when the connection closes is named as its cause. */
const LAST_ERROR_WINDOW = 1000;
/** How much of a stdio server's stderr is kept, to say why it failed. */
const STDERR_TAIL = 2000;
/**
 * Characters of an upstream's failure reason repeated anywhere (the execute description, the
 * operator's log, a program's error): an HTTP upstream's error body is the server's to choose.
 */
export const REASON_LIMIT = 500;

/**
 * What a page of tools/list must hold for this bridge to read it: tools with a name and an input
 * schema object, read no deeper. The SDK's own check of the result walks every schema to its
 * leaves, so one tool whose schema nests 1000 levels overflowed the stack and took the whole
 * listing with it; depth is the declarations' to bound (docs/mcp.md, "What the model sees").
 */
const TOOLS_PAGE = z.looseObject({
  tools: z.array(z.looseObject({ name: z.string(), inputSchema: z.record(z.string(), z.unknown()) })),
  nextCursor: z.string().optional(),
});

export interface UpstreamOptions {
  /** Ms one call, the connection and each listing may take. */
  readonly timeout: number;
  /** Told of every change of tools or state, so the catalog can be refreshed. */
  readonly onChange: () => void;
  /** Lifecycle lines for the operator (stderr). */
  readonly log: (line: string) => void;
  /** The config file: an oauth token file is found from its folder, and login is told to read it. */
  readonly configFile: string;
  /** Where stdio servers' eras are remembered between processes; none when the caches are off. */
  readonly eras?: EraCache | undefined;
}

/**
 * The SDK's stdio transport under a name of its own. The SDK probes `server/discover` on a second,
 * disposable process for its own class only, so that a handshake-era server that exits on the
 * probe costs nothing; a subclass it probes in place, on the session's process. That is the way
 * for a server remembered as `modern`, which answers the probe: one process instead of two.
 */
class InPlaceStdioTransport extends StdioClientTransport {}

/** What a stdio server is started with, as the transport is handed it. */
interface StdioSpawn {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** As the config names it; absent, the server runs in the bridge's own folder. */
  readonly cwd?: string;
}

/**
 * The launch an era is remembered under: the folder made absolute, so the key names the folder the
 * command runs in whichever folder the bridge is in. None when that folder cannot be named (the
 * bridge's own was removed): the server is then started as the config says, with nothing recalled.
 */
function eraLaunch(spawned: StdioSpawn): StdioLaunch | undefined {
  try {
    return {
      command: spawned.command,
      args: spawned.args,
      env: spawned.env,
      cwd: resolve(spawned.cwd ?? '.'),
    };
  } catch {
    return undefined;
  }
}

/** Whether a connection failed by waiting too long, not by a server that answered or ended. */
function timedOut(error: unknown): boolean {
  return error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout;
}

interface StdioAttempt {
  readonly launch: StdioLaunch;
  readonly recalled: RememberedEra | undefined;
  readonly probed: boolean;
}

type State =
  | { readonly kind: 'connecting' }
  | { readonly kind: 'ready' }
  | { readonly kind: 'down'; readonly reason: string };

export class Upstream {
  readonly key: string;
  readonly namespace: string;
  readonly #config: UpstreamConfig;
  readonly #options: UpstreamOptions;
  #client: Client | undefined;
  #state: State = { kind: 'connecting' };
  #tools: readonly Tool[] = [];
  #stderr = '';
  /** Settles when the stdio server's stderr has ended, so its last words are read before they are quoted. */
  #stderrEnded: Promise<void> = Promise.resolve();
  /** The transport whose server's stderr #stderr holds. */
  #stderrFrom: Transport | undefined;
  /** The transport's last complaint (a line too long, a broken pipe), quoted if the connection then closes. */
  #lastError: { message: string; at: number } | undefined;
  #backoff = BACKOFF_START;
  readonly #schemaCheck = new SchemaCheck();
  /** A list_changed listing is running; another came meanwhile (#refresh). */
  #listing = false;
  #listAgain = false;
  #restart: NodeJS.Timeout | undefined;
  #closed = false;
  /** Bumped by every connection, so the close of an old one cannot touch a newer one's state. */
  #generation = 0;
  /** Which era the last good connection landed on, so a restart need not probe again. */
  #verdict: PriorDiscovery | undefined;
  /**
   * The stdio launch of the connection under way: the era remembered on disk it used, if any, and
   * whether it probed (handed no era, neither this process's nor one remembered).
   */
  #launch: StdioAttempt | undefined;

  constructor(key: string, namespace: string, config: UpstreamConfig, options: UpstreamOptions) {
    this.key = key;
    this.namespace = namespace;
    this.#config = config;
    this.#options = options;
  }

  /** The tools of the last good listing (kept while the server is down, so calls name it). */
  get tools(): readonly Tool[] {
    return this.#tools;
  }

  get state(): State {
    return this.#state;
  }

  /** Connects and lists; rejects with the reason (and schedules a restart) when it cannot. */
  async start(): Promise<void> {
    const generation = ++this.#generation;
    this.#state = { kind: 'connecting' };
    try {
      const client = await this.#connect(generation);
      if (generation !== this.#generation || this.#closed) {
        await client.close();
        return;
      }
      this.#client = client;
      this.#tools = await this.#list(client);
      await this.#listen(client);
      this.#state = { kind: 'ready' };
      this.#backoff = BACKOFF_START;
      const discover = client.getDiscoverResult();
      this.#verdict = discover === undefined ? { kind: 'legacy' } : { kind: 'modern', discover };
      this.#options.onChange();
      this.#rememberEra(client);
    } catch (error) {
      // A failed connection probes afresh next time: the server may have moved to another revision.
      this.#verdict = undefined;
      if (this.#launch !== undefined) this.#options.eras?.forget(this.#launch.launch);
      if (generation === this.#generation) this.#down(generation, this.#reason(error));
      throw new Error(this.#reason(error));
    }
  }

  /**
   * On the current revision, changes of tools come only on a subscriptions/listen stream the
   * client opens; the handshake era sends them unasked. A server that refuses the stream is
   * served without hearing of changes, as one that never sends them is. A stream that ends, or
   * cannot be opened, while its connection is still this upstream's (an HTTP server restarted, a
   * proxy that cut it) is opened again after a wait that doubles from BACKOFF_START up to
   * BACKOFF_CAP, and the tools are listed again, since changes made meanwhile went unheard; a
   * stream that lasted BACKOFF_CAP starts the waits over. Resolves to whether a stream is open.
   */
  async #listen(client: Client, wait = BACKOFF_START): Promise<boolean> {
    if (client.getProtocolEra() !== 'modern') return false;
    if (client.getServerCapabilities()?.tools?.listChanged !== true) return false;
    const opened = Date.now();
    let ended: Promise<string>;
    let listening = false;
    try {
      ended = (await client.listen({ toolsListChanged: true }, { timeout: CONNECT_TIMEOUT })).closed;
      listening = true;
    } catch (error) {
      if (error instanceof ProtocolError) {
        this.#options.log(
          `the MCP server ${this.key} refused to tell of changes to its tools (${this.#reason(error)}); its list is read at each start only`,
        );
        return false;
      }
      ended = Promise.resolve('unopened');
    }
    void ended.then((how) => {
      if (how === 'local') return;
      const next = Date.now() - opened >= BACKOFF_CAP ? BACKOFF_START : wait;
      setTimeout(() => {
        if (this.#client !== client || this.#closed) return;
        void this.#listen(client, Math.min(next * 2, BACKOFF_CAP)).then((again) => {
          if (again) return this.#refresh(client);
        });
      }, next).unref();
    });
    return listening;
  }

  async #connect(generation: number): Promise<Client> {
    const config = this.#config;
    this.#launch = undefined;
    if (isStdio(config)) return this.#connectStdio(config, generation);
    const url = new URL(config.url);
    const requestInit = { headers: { ...config.headers } };
    const fetch = boundedFetch();
    // The token file is read at each connection, so a login made while this one was down is used.
    const authProvider =
      config.oauth === undefined
        ? undefined
        : await UpstreamAuth.open({
            server: this.key,
            configFile: this.#options.configFile,
            tokenFile: tokenFilePath(this.#options.configFile, config.oauth),
            oauth: config.oauth,
          });
    const options = { requestInit, fetch, ...(authProvider !== undefined ? { authProvider } : {}) };
    if (config.type === 'sse') return this.#open(new SSEClientTransport(url, options), generation);
    try {
      return await this.#open(new StreamableHTTPClientTransport(url, options), generation);
    } catch (streamable) {
      if (config.type === 'http' || config.type === 'streamable-http') throw streamable;
      // A refusal of the authorization is the same over either transport.
      if (streamable instanceof LoginNeededError || streamable instanceof TokenFileError) throw streamable;
      try {
        return await this.#open(new SSEClientTransport(url, options), generation);
      } catch {
        throw streamable;
      }
    }
  }

  /**
   * Starts the stdio server and connects: by the era this process learnt, else by the one remembered
   * on disk, else probing on a disposable second process. A remembered era whose connection fails
   * (a `modern` server that now exits on the probe, a `legacy` one that now refuses the handshake,
   * one that is gone) is forgotten and the connection made again at once the full way, so a server
   * that changed era costs this start a process, not a failure. A connection that timed out is not
   * made again: a server that hangs would hang the second time too, and double the wait.
   */
  async #connectStdio(config: StdioUpstreamConfig, generation: number): Promise<Client> {
    const spawned: StdioSpawn = {
      command: config.command,
      args: config.args ?? [],
      // Desktop clients add the entry's env to a minimal inherited one; so does this.
      env: { ...getDefaultEnvironment(), ...config.env },
      ...(config.cwd !== undefined ? { cwd: config.cwd } : {}),
    };
    const launch = eraLaunch(spawned);
    const recalled =
      this.#verdict === undefined && launch !== undefined ? this.#options.eras?.recall(launch) : undefined;
    this.#launch =
      launch === undefined
        ? undefined
        : { launch, recalled, probed: this.#verdict === undefined && recalled !== 'legacy' };
    try {
      return await this.#openStdio(spawned, generation, recalled);
    } catch (error) {
      if (recalled === undefined || launch === undefined || timedOut(error)) throw error;
      if (generation !== this.#generation || this.#closed) throw error;
      this.#options.eras?.forget(launch);
      this.#launch = { launch, recalled: undefined, probed: true };
      return this.#openStdio(spawned, generation, undefined);
    }
  }

  async #openStdio(
    spawned: StdioSpawn,
    generation: number,
    recalled: RememberedEra | undefined,
  ): Promise<Client> {
    this.#stderr = '';
    const Transport = recalled === 'modern' ? InPlaceStdioTransport : StdioClientTransport;
    const transport = new Transport({
      command: spawned.command,
      args: [...spawned.args],
      env: { ...spawned.env },
      ...(spawned.cwd !== undefined ? { cwd: spawned.cwd } : {}),
      stderr: 'pipe',
    });
    // The tail quoted is this process's: one an attempt before it started may still be writing.
    this.#stderrFrom = transport;
    const stderr = transport.stderr;
    stderr?.on('data', (chunk: Buffer) => {
      if (this.#stderrFrom !== transport) return;
      this.#stderr = (this.#stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    this.#stderrEnded = new Promise((resolve) => {
      stderr?.once('end', resolve);
      stderr?.once('close', resolve);
    });
    return this.#open(transport, generation, recalled === 'legacy' ? { kind: 'legacy' } : this.#verdict);
  }

  /**
   * Keeps the era a stdio connection's probe learnt for the next bridge process, when it is news.
   * A connection handed an era learnt nothing: a remembered `legacy` keeps the time of its probe,
   * so the horizon counts from there.
   */
  #rememberEra(client: Client): void {
    const era = client.getProtocolEra();
    const attempt = this.#launch;
    if (attempt === undefined || !attempt.probed || era === undefined || era === attempt.recalled) return;
    this.#options.eras?.remember(attempt.launch, era);
  }

  async #open(transport: Transport, generation: number, prior = this.#verdict): Promise<Client> {
    // Output schemas are checked off this thread (schema-check.ts), never by the SDK on it.
    const client = new Client(
      { name: 'codemode-executor', version: packageVersion() },
      {
        capabilities: {},
        jsonSchemaValidator: NO_VALIDATION_HERE,
        // The server/discover probe waits CONNECT_TIMEOUT, as connecting does. A server of the
        // handshake era answers it at once with an error, or exits, and is connected by
        // initialize then; one silent that long is taken for such a server over stdio (over HTTP
        // silence fails the connection).
        versionNegotiation: { mode: 'auto' },
      },
    );
    client.onclose = () => {
      // While connecting, start's own catch reports the failure, with the better reason.
      if (generation !== this.#generation || this.#closed || this.#state.kind !== 'ready') return;
      this.#state = { kind: 'down', reason: 'its connection closed' };
      void this.#closeReason().then((reason) => this.#down(generation, reason));
    };
    // Garbage on the wire is the SDK's to skip (the call it meant to answer times out by name);
    // the complaint is kept in case the connection closes because of it.
    // The first of a burst is the cause: a line past the bound is followed by its tail as garbage.
    client.onerror = (error) => {
      const now = Date.now();
      if (this.#lastError !== undefined && now - this.#lastError.at < LAST_ERROR_WINDOW) return;
      this.#lastError = { message: error.message, at: now };
    };
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      if (generation === this.#generation) void this.#refresh(client);
    });
    await client.connect(transport, {
      timeout: CONNECT_TIMEOUT,
      ...(prior !== undefined ? { prior } : {}),
    });
    return client;
  }

  /**
   * The tools, page by page, all of them within CONNECT_TIMEOUT: a deadline for each page let a
   * server answering each just under it hold startup for PAGE_LIMIT of them (50 minutes), and every
   * other upstream's tools with it, since the bridge answers initialize once each has started.
   */
  async #list(client: Client): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    let weight = 0;
    const deadline = Date.now() + CONNECT_TIMEOUT;
    for (let page = 0; page < PAGE_LIMIT; page++) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(listingTimeoutMessage(CONNECT_TIMEOUT, page));
      // Page by page, each checked before the next is read: the SDK's listTools without a cursor
      // would read every page before any bound here could refuse one.
      const answer = await client
        .request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, TOOLS_PAGE, {
          timeout: left,
        })
        .catch((error: unknown) => {
          if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)
            throw new Error(listingTimeoutMessage(CONNECT_TIMEOUT, page));
          throw error;
        });
      for (const tool of answer.tools) {
        if (tool.name.length > NAME_LIMIT)
          throw new Error(toolNameTooLongMessage(this.key, tool.name.length, NAME_LIMIT));
      }
      weight += listingWeight(answer.tools, LISTING_WEIGHT_LIMIT - weight);
      if (weight > LISTING_WEIGHT_LIMIT)
        throw new Error(listingTooLargeMessage(this.key, LISTING_WEIGHT_LIMIT));
      tools.push(...(answer.tools as Tool[]));
      if (tools.length > TOOL_LIMIT) throw new Error(tooManyToolsMessage(this.key, TOOL_LIMIT));
      cursor = answer.nextCursor;
      if (cursor === undefined) break;
    }
    // Refused here, before any of them is offered: two tools under one name hide one.
    functionNames(
      this.key,
      tools.map((tool) => tool.name),
    );
    return tools;
  }

  /**
   * Lists again on list_changed. Notifications that arrive while a listing runs are coalesced into
   * one more listing after it: a burst of them costs two listings, not one each.
   */
  async #refresh(client: Client): Promise<void> {
    if (this.#listing) {
      this.#listAgain = true;
      return;
    }
    this.#listing = true;
    try {
      do {
        this.#listAgain = false;
        try {
          this.#tools = await this.#list(client);
          this.#options.onChange();
        } catch (error) {
          this.#options.log(
            `the tools of ${this.key} could not be listed again, the earlier list stays: ${this.#reason(error)}`,
          );
        }
      } while (this.#listAgain && this.#client === client);
    } finally {
      this.#listing = false;
    }
  }

  #down(generation: number, reason: string): void {
    // A close noticed late must not mark a newer connection down.
    if (generation !== this.#generation) return;
    reason = cutText(reason, REASON_LIMIT, 'REASON_LIMIT');
    this.#state = { kind: 'down', reason };
    this.#client = undefined;
    this.#options.log(`the MCP server ${this.key} is down (${reason}); restarting in ${this.#backoff} ms`);
    this.#options.onChange();
    if (this.#closed || this.#restart !== undefined) return;
    const delay = this.#backoff;
    this.#backoff = Math.min(this.#backoff * 2, BACKOFF_CAP);
    this.#restart = setTimeout(() => {
      this.#restart = undefined;
      if (generation !== this.#generation || this.#closed) return;
      this.start().then(
        () => this.#options.log(`the MCP server ${this.key} is back`),
        () => {},
      );
    }, delay);
    this.#restart.unref();
  }

  /** Why the connection closed, once the server's stderr has been read to its end (a second at most). */
  async #closeReason(): Promise<string> {
    await Promise.race([this.#stderrEnded, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
    const recent = this.#lastError !== undefined && Date.now() - this.#lastError.at < LAST_ERROR_WINDOW;
    const after = recent ? ` after ${this.#lastError?.message}` : '';
    const stderr = this.#stderr.trim().split('\n').at(-1);
    return `its connection closed${after}${stderr ? `; its last words on stderr: ${stderr}` : ''}`;
  }

  #reason(error: unknown): string {
    const message = cutText(
      error instanceof Error ? error.message : String(error),
      REASON_LIMIT,
      'REASON_LIMIT',
    );
    if (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed)
      return 'its connection closed';
    if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)
      return connectTimeoutMessage(CONNECT_TIMEOUT);
    if (error instanceof SdkError && error.code === SdkErrorCode.ClientHttpAuthentication)
      return refusedAfterRefreshMessage(this.key, this.#options.configFile);
    return message;
  }

  /**
   * Calls one tool by its upstream name; resolves to the raw result, rejects with a sentence naming
   * the server.
   */
  async call(
    tool: string,
    args: Readonly<Record<string, unknown>>,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const client = this.#client;
    if (this.#state.kind !== 'ready' || client === undefined) {
      const reason = this.#state.kind === 'down' ? this.#state.reason : 'it is still starting';
      throw new Error(upstreamDownMessage(this.key, reason));
    }
    let result: Record<string, unknown>;
    try {
      // Aborting `signal` cancels the call upstream: the SDK sends notifications/cancelled.
      result = (await client.callTool(
        { name: tool, arguments: { ...args } },
        { timeout: this.#options.timeout, ...(signal !== undefined ? { signal } : {}) },
      )) as Record<string, unknown>;
    } catch (error) {
      if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
        throw new Error(upstreamTimeoutMessage(this.key, tool, this.#options.timeout));
      }
      if (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) {
        throw new Error(upstreamDownMessage(this.key, await this.#closeReason()));
      }
      if (error instanceof SdkError && error.code === SdkErrorCode.ClientHttpAuthentication) {
        throw new Error(refusedAfterRefreshMessage(this.key, this.#options.configFile));
      }
      // No token this connection can send: down until a login leaves one (each restart reads the file).
      if (error instanceof LoginNeededError || error instanceof TokenFileError) {
        if (this.#client === client) {
          this.#down(this.#generation, error.message);
          void client.close().catch(() => {});
        }
        throw new Error(error.message);
      }
      throw new Error(upstreamCallFailedMessage(this.key, tool, this.#reason(error)));
    }
    const schema = this.#tools.find((listed) => listed.name === tool)?.outputSchema;
    if (schema !== undefined && result.structuredContent !== undefined && result.isError !== true) {
      const mismatch = outputMismatch(await this.#schemaCheck.check(schema, result.structuredContent));
      if (mismatch !== undefined) {
        throw new Error(
          upstreamCallFailedMessage(this.key, tool, cutText(mismatch, REASON_LIMIT, 'REASON_LIMIT')),
        );
      }
    }
    return result;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#schemaCheck.close();
    clearTimeout(this.#restart);
    const client = this.#client;
    this.#client = undefined;
    await client?.close().catch(() => {});
  }
}
