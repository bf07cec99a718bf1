/**
 * The mcp command's config file: the `mcpServers` object MCP clients already use, one entry per
 * upstream (`{ command, args?, env?, cwd? }` over stdio, `{ url, headers? }` over Streamable HTTP
 * with the legacy SSE transport as fallback), plus this project's keys beside it. Every key is
 * checked; a file that does not hold is refused with a sentence naming the key (docs/mcp.md).
 */

import { dirname, resolve } from 'node:path';
import { readTextFile, UsageError } from '@supolka/codemode-executor/cli';
import { CONSOLE_FORMATS } from '@supolka/codemode-protocol';
import { z } from 'zod';
import { ambiguousReadings } from './approvals.ts';
import {
  ambiguousRuleMessage,
  configKeyMessage,
  configNotJsonMessage,
  noServersMessage,
  OAUTH_AND_HEADER_RULE,
} from './texts.ts';

/** A config is a few kilobytes; a megabyte is far past any real one and bounds what parsing costs. */
export const CONFIG_BYTES_LIMIT = 1024 * 1024;

/** Upstreams one command serves: each is a process or a connection this one holds. */
export const SERVER_LIMIT = 64;

const text = z.string().max(64 * 1024);
const stringRecord = z.record(text, text).refine((record) => Object.keys(record).length <= 1000, {
  message: 'must hold at most 1000 entries',
});
const wholeNumber = (min: number, max: number) => z.int().min(min).max(max);
/** How long one upstream call may take, in ms: the top-level key, or one server's own. */
const upstreamTimeout = wholeNumber(1, 3_600_000);

const stdioServer = z.strictObject({
  type: z.literal('stdio').optional(),
  command: text.min(1),
  args: z.array(text).max(1000).optional(),
  env: stringRecord.optional(),
  cwd: text.optional(),
  /** Desktop clients' switch for an entry kept but not started. */
  disabled: z.boolean().optional(),
  /** This server's own bound on one call, over the top-level upstreamTimeout. */
  upstreamTimeout: upstreamTimeout.optional(),
});

/**
 * A person's authorization for an HTTP server, as `codemode-mcp login` obtains it (login.ts): the
 * file its tokens are kept in, and what the authorization server needs when it registers no client
 * on its own (a client id made for this bridge, the scope to ask for, the loopback port it allows).
 */
const oauth = z.strictObject({
  /** Absolute, or relative to the config file; created with mode 0600. */
  tokenFile: text.min(1),
  clientId: text.min(1).optional(),
  scope: text.min(1).optional(),
  redirectPort: wholeNumber(1, 65_535).optional(),
});

const httpServer = z.strictObject({
  type: z.enum(['http', 'streamable-http', 'sse']).optional(),
  url: z.url({ protocol: /^https?$/ }),
  headers: stringRecord.optional(),
  oauth: oauth.optional(),
  disabled: z.boolean().optional(),
  upstreamTimeout: upstreamTimeout.optional(),
});

const decision = z.enum(['allow', 'deny', 'ask']);
/** Rules of approvals, a server's tools counted one each. */
const RULE_LIMIT = 1000;

function ruleCount(record: Readonly<Record<string, unknown>>): number {
  let count = 0;
  for (const value of Object.values(record))
    count += typeof value === 'string' ? 1 : Object.keys(value ?? {}).length;
  return count;
}

const configSchema = z.strictObject({
  /** Keys become namespaces the model reads: as long as a tool name may be, no longer. */
  mcpServers: z.record(z.string().min(1).max(128), z.union([stdioServer, httpServer])),
  /**
   * Server and tool globs to a decision, as `"server.tool"`, `"server"` or `"server": { "tool": ... }`;
   * the most specific rule wins (approvals.ts).
   */
  approvals: z
    .record(text.min(1), z.union([decision, z.record(text.min(1), decision)]))
    .refine((record) => ruleCount(record) <= RULE_LIMIT, {
      message: `must hold at most ${RULE_LIMIT} rules`,
    })
    .optional(),
  /** The decision for a call no rule of approvals names. */
  defaultApproval: decision.optional(),
  /** The run bound of one execution, in ms. */
  timeout: wholeNumber(1, 3_600_000).optional(),
  /**
   * Wall-clock time one execution may take, in ms, waits on upstreams included and approval
   * questions not (IsolateExecutor's option: at least 120000 by default).
   */
  wallClockLimit: wholeNumber(1, 2_147_483_647).optional(),
  /** The isolate's memory limit, in MB. */
  memoryLimit: wholeNumber(8, 4096).optional(),
  /** Whether a program's fetch reaches the network. */
  outbound: z.enum(['disabled', 'native']).optional(),
  /** How the console block's lines are written: the protocol's String rule, or workerd's format. */
  consoleFormat: z.enum(CONSOLE_FORMATS).optional(),
  /** Characters of an answer's text past which it is cut, with a marker saying so. */
  maxResultLength: wholeNumber(100, 10_000_000).optional(),
  /** How long one upstream call may take, in ms, for every server that names no bound of its own. */
  upstreamTimeout: upstreamTimeout.optional(),
  /** Upstream calls one execution may make. */
  maxUpstreamCalls: wholeNumber(1, 1_000_000).optional(),
  /** How long an `ask` waits for the user's answer, in ms. */
  approvalTimeout: wholeNumber(1, 3_600_000).optional(),
  /** How often a running execute reports progress, in ms. */
  progressInterval: wholeNumber(10, 600_000).optional(),
  /**
   * The file of the durable key ring approvals on the current revision are sealed with (the
   * executor's id=base64 text, docs/durable.md), relative to this file's folder; the environment's
   * CODEMODE_DURABLE_KEYS or CODEMODE_DURABLE_KEYS_FILE when absent.
   */
  durableKeysFile: text.min(1).optional(),
  /**
   * A folder bridge instances share, relative to this file's folder: tokens too large for a
   * requestState, and the claims that let each approval resume its run once (docs/mcp.md, "Approvals").
   */
  journalStore: text.min(1).optional(),
  /**
   * The bytes the journal store's kept states may take together (journal-store.ts,
   * DEFAULT_STORE_BYTES): at least 1 MiB, since a state is kept there only past that.
   */
  journalStoreBytes: wholeNumber(1024 * 1024, 2 ** 40).optional(),
  /**
   * npm packages programs may import (the executor's docs/packages.md): names, found from this
   * file's folder, or name → directory, relative to it. The bundler checks each name.
   */
  packages: z
    .union([z.array(text.min(1)).max(1000), z.record(text.min(1), text.min(1))])
    .refine((list) => (Array.isArray(list) ? list.length : Object.keys(list).length) <= 1000, {
      message: 'must name at most 1000 packages',
    })
    .optional(),
});

export type McpConfig = z.infer<typeof configSchema>;
export type UpstreamConfig = McpConfig['mcpServers'][string];
export type StdioUpstreamConfig = z.infer<typeof stdioServer>;
export type HttpUpstreamConfig = z.infer<typeof httpServer>;
export type OAuthConfig = z.infer<typeof oauth>;
export type Decision = z.infer<typeof decision>;
export type ApprovalRules = NonNullable<McpConfig['approvals']>;

export function isStdio(config: UpstreamConfig): config is StdioUpstreamConfig {
  return 'command' in config;
}

/** Where an upstream's tokens are kept: `oauth.tokenFile`, a relative one from the config file's folder. */
export function tokenFilePath(configFile: string, oauth: OAuthConfig): string {
  return resolve(dirname(resolve(configFile)), oauth.tokenFile);
}

/** Reads and checks the file; a UsageError names the file and the key. */
export async function readConfig(file: string): Promise<McpConfig> {
  return parseConfig(await readTextFile(file, CONFIG_BYTES_LIMIT, file), file);
}

export function parseConfig(source: string, file: string): McpConfig {
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (error) {
    throw new UsageError(configNotJsonMessage(file, (error as Error).message));
  }
  const parsed = configSchema.safeParse(value);
  if (!parsed.success) {
    const issue = innermost(parsed.error.issues[0] as z.core.$ZodIssue, value);
    throw new UsageError(configKeyMessage(file, keyPath(issue.path), ruleOf(issue)));
  }
  const servers = Object.keys(parsed.data.mcpServers);
  if (servers.length === 0) throw new UsageError(noServersMessage(file));
  if (servers.length > SERVER_LIMIT) {
    throw new UsageError(configKeyMessage(file, 'mcpServers', `must hold at most ${SERVER_LIMIT} servers`));
  }
  for (const [key, entry] of Object.entries(parsed.data.mcpServers)) {
    // Two sources of one header: the file's would be sent with the token the login obtained.
    const authorization = Object.keys((!isStdio(entry) && entry.oauth && entry.headers) || {}).find(
      (name) => name.toLowerCase() === 'authorization',
    );
    if (authorization !== undefined) {
      throw new UsageError(
        configKeyMessage(file, keyPath(['mcpServers', key, 'headers', authorization]), OAUTH_AND_HEADER_RULE),
      );
    }
  }
  for (const [key, value] of Object.entries(parsed.data.approvals ?? {})) {
    const readings = typeof value === 'string' ? ambiguousReadings(key, servers) : undefined;
    if (readings !== undefined) {
      throw new UsageError(
        configKeyMessage(file, keyPath(['approvals', key]), ambiguousRuleMessage(readings, value as string)),
      );
    }
  }
  return parsed.data;
}

/** `mcpServers["my server"].args[0]`, as a reader finds it in the file. */
function keyPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(the top level)';
  let written = '';
  for (const key of path) {
    if (typeof key === 'number') written += `[${key}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(String(key)))
      written += written === '' ? String(key) : `.${String(key)}`;
    else written += `[${JSON.stringify(String(key))}]`;
  }
  return written;
}

/**
 * An entry of mcpServers that holds neither form fails as a union; the branch its keys point at
 * (command: stdio, url: HTTP) names the key that is wrong, with the path from the top.
 */
function innermost(issue: z.core.$ZodIssue, root: unknown): z.core.$ZodIssue {
  if (issue.code !== 'invalid_union' || issue.errors.length !== 2) return issue;
  let entry: unknown = root;
  for (const key of issue.path) entry = (entry as Record<PropertyKey, unknown>)?.[key];
  // A rule of approvals is a decision (string) or a server's tools (object).
  if (issue.path[0] === 'approvals') {
    const branch =
      typeof entry === 'string' ? 0 : typeof entry === 'object' && entry !== null ? 1 : undefined;
    const inner = branch === undefined ? undefined : issue.errors[branch]?.[0];
    return inner === undefined ? issue : { ...inner, path: [...issue.path, ...inner.path] };
  }
  if (typeof entry !== 'object' || entry === null) return issue;
  const branch = Object.hasOwn(entry, 'command') ? 0 : Object.hasOwn(entry, 'url') ? 1 : undefined;
  const inner = branch === undefined ? undefined : issue.errors[branch]?.[0];
  return inner === undefined ? issue : { ...inner, path: [...issue.path, ...inner.path] };
}

/** What the key must be, in words that do not depend on which branch of a union zod tried last. */
function ruleOf(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') {
    return `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((key) => JSON.stringify(key)).join(', ')}; https://github.com/supolka/codemode/blob/main/docs/mcp.md lists the keys.`;
  }
  if (issue.code === 'invalid_union' && issue.path[0] === 'approvals') {
    return 'must be "allow", "deny" or "ask", or an object of tool globs to one of them.';
  }
  if (issue.code === 'invalid_union') {
    return 'must be a stdio server { command, args?, env?, cwd? } or an HTTP server { url, headers? }.';
  }
  return `${issue.message}.`;
}
