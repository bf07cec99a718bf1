/**
 * The MCP server this command offers its client: `execute`, whose description carries the
 * generated declarations of every upstream tool, and, once those pass DESCRIPTION_CUTOVER,
 * `search` and `describe` beside it. One instance per unit the SDK's serving entries ask for: a
 * stdio connection, a Streamable HTTP session of a handshake-era client, or one request of a
 * client on the current revision (2026-07-28), which has no sessions. All of them share the
 * catalog, the policy and the executor; an instance knows which era it serves, since only the
 * handshake era can put a question to the user mid-call: the current one is asked by answering
 * the call with the question and resuming on the retry (approval-rounds.ts).
 */
import {
  type CallToolResult,
  type InputRequiredResult,
  SdkError,
  SdkErrorCode,
  Server,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import type { AllowedPackage, IsolateExecutor } from '@supolka/codemode-executor';
import { cutText, packagesLine, safeText } from '@supolka/codemode-executor/serving';
import { canElicit, runApprovalRound } from './approval-rounds.ts';
import type { ApprovalPolicy } from './approvals.ts';
import { type Catalog, DESCRIPTION_CUTOVER } from './catalog.ts';
import { type AskUser, type Execution, type ExecutionLimits, runExecution } from './execution.ts';
import type { JournalStore } from './journal-store.ts';
import {
  approvalTimeoutReason,
  executeArgumentsMessage,
  notInCatalogMessage,
  unknownToolMessage,
} from './texts.ts';
import { packageVersion } from './version.ts';

export interface McpHost {
  readonly catalog: Catalog;
  readonly policy: ApprovalPolicy;
  readonly executor: IsolateExecutor;
  /** The npm packages programs may import (the config's `packages`), which the description lists. */
  readonly packages?: readonly AllowedPackage[];
  readonly limits: ExecutionLimits & {
    readonly progressInterval: number;
    readonly approvalTimeout: number;
  };
  /** Settles once the upstreams have started or failed to: listing and calls wait for it. */
  readonly ready?: Promise<void>;
  /**
   * Who a client is, for the approvals of the current revision, when its transport does not say
   * per request: over stdio, this process's connection (docs/mcp.md, "Approvals").
   */
  readonly identity?: string;
  /** Where tokens too large for a requestState wait, and approvals are claimed once (journal-store.ts). */
  readonly journalStore?: JournalStore;
}

/** The identity of a client that names none: everyone reaching an unauthenticated loopback port. */
export const UNAUTHENTICATED_IDENTITY = 'unauthenticated loopback';

const EXECUTE_PREAMBLE = `Runs a JavaScript or TypeScript program in a sandbox (a fresh V8 isolate, no network unless configured) and returns its result. The program is an async arrow function, \`async () => { ... }\`, or statements with a \`return\`. Every MCP server below is a namespace and each of its tools an async function taking one arguments object: call them, combine and filter their results in the program, and return only what is needed. console.log lines come back as a second block. Tool results are the tool's structured content when it has one, else its text parsed as JSON when it parses, else the text; images and audio are { type, mimeType, data: Uint8Array }. A tool that reports an error throws.`;

function executeTool(host: McpHost): Tool {
  const declarations = host.catalog.declarations();
  const unavailable = host.catalog.unavailable();
  const down = unavailable.length === 0 ? '' : `\n\nNot available now: ${unavailable.join('; ')}.`;
  const large = declarations.length > DESCRIPTION_CUTOVER;
  const body = large
    ? `The catalog is too large to list here; find tools with search and read their declarations with describe. Namespaces: ${host.catalog.upstreams.map((u) => `${u.namespace} (${u.tools.length} tools)`).join(', ')}.`
    : `\`\`\`ts\n${declarations}\n\`\`\``;
  return {
    name: 'execute',
    description: `${EXECUTE_PREAMBLE}${packagesParagraph(host)}\n\n${body}${down}\n\n${policyLine(host)}`,
    inputSchema: {
      type: 'object',
      properties: { code: { type: 'string', description: 'The program: async () => { ... }' } },
      required: ['code'],
      additionalProperties: false,
    },
  };
}

/** The allowed packages as a paragraph of the description, or nothing when none are. */
function packagesParagraph(host: McpHost): string {
  const line = packagesLine(host.packages ?? []);
  return line === '' ? '' : `\n\n${line}`;
}

/** Characters of the approval policy the description shows: the operator's rules, up to 1000 of them. */
export const POLICY_LIMIT = 4000;

function policyLine(host: McpHost): string {
  return safeText(cutText(host.policy.describe(), POLICY_LIMIT, 'POLICY_LIMIT')).replaceAll('\n', ' ');
}

const SEARCH_TOOL: Tool = {
  name: 'search',
  description:
    'Finds tools of the execute sandbox by words in their names and descriptions; answers each match as namespace.function with its description. Read one with describe.',
  inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
};

const DESCRIBE_TOOL: Tool = {
  name: 'describe',
  description:
    'The TypeScript declaration of tools of the execute sandbox, named as search answers them (namespace.function).',
  inputSchema: {
    type: 'object',
    properties: { names: { type: 'array', items: { type: 'string' }, maxItems: 50 } },
    required: ['names'],
  },
};

function offeredTools(host: McpHost): Tool[] {
  const execute = executeTool(host);
  return host.catalog.declarations().length > DESCRIPTION_CUTOVER
    ? [execute, SEARCH_TOOL, DESCRIBE_TOOL]
    : [execute];
}

/**
 * How long a client on the current revision may serve the tool list from its cache. The list
 * changes only when an upstream's tools change or it goes down or comes back, and each of those
 * is also announced (notifications/tools/list_changed, on a subscriptions/listen stream for such
 * a client), which evicts the entry sooner; the list is the same for every caller of this command.
 */
export const TOOL_LIST_TTL = 60_000;

/** Which protocol model an instance serves: the handshake revisions, or 2026-07-28's per-request one. */
export type Era = 'legacy' | 'modern';

/** Numbers each session's caller id: unique in the process, as a caller id must be per executor. */
let nextSession = 0;

/** A caller id of its own, for a unit that is not a session (one connection of per-request clients). */
export function newCallerId(kind = 'session'): string {
  return `${kind} ${nextSession++}`;
}

export function createServedServer(
  host: McpHost,
  era: Era = 'legacy',
  caller?: string,
  identity: string = host.identity ?? UNAUTHENTICATED_IDENTITY,
): Server {
  // Sessions share the executor's lanes and children by turns (docs/pool.md, "Fair queues").
  const callerId = caller ?? newCallerId();
  const server = new Server(
    { name: 'codemode-executor', version: packageVersion() },
    {
      capabilities: { tools: { listChanged: true } },
      cacheHints: { 'tools/list': { ttlMs: TOOL_LIST_TTL, cacheScope: 'public' } },
    },
  );
  server.setRequestHandler('tools/list', async () => {
    await host.ready;
    return { tools: offeredTools(host) };
  });
  server.setRequestHandler('tools/call', async (request, ctx) => {
    await host.ready;
    const { name, arguments: args = {} } = request.params;
    switch (name) {
      case 'execute': {
        // Refused before the run waits its turn: whatever else the arguments hold is kept with the
        // request until the run ends, and JSON of empty arrays weighs twenty times its bytes as
        // values (4 MiB requests held 65 to 90 MB each, 256 of them a queue, measured).
        const refused = executeArgumentsRefusal(args);
        if (refused !== undefined) return textResult(refused, true);
        return execute(server, host, args, ctx, { callerId, era, identity });
      }
      case 'search':
        return search(host, String(args.query ?? ''));
      case 'describe':
        return describe(host, Array.isArray(args.names) ? args.names.slice(0, 50).map(String) : []);
      default:
        return textResult(
          unknownToolMessage(
            name,
            offeredTools(host).map((tool) => tool.name),
          ),
          true,
        );
    }
  });
  return server;
}

/** Why `execute` cannot take `args`: it takes one argument, `code`, a string. */
function executeArgumentsRefusal(args: Readonly<Record<string, unknown>>): string | undefined {
  const others = Object.keys(args).filter((key) => key !== 'code');
  if (others.length > 0) return executeArgumentsMessage(others);
  if (typeof args.code !== 'string') return executeArgumentsMessage([]);
  return undefined;
}

async function execute(
  server: Server,
  host: McpHost,
  args: Readonly<Record<string, unknown>>,
  ctx: ServerContext,
  served: { readonly callerId: string; readonly era: Era; readonly identity: string },
): Promise<CallToolResult | InputRequiredResult> {
  let status = 'running';
  const token = ctx.mcpReq._meta?.progressToken;
  let progress = 0;
  // Progress keeps a client's request timeout from ending a run that is still working.
  const ticker =
    token === undefined
      ? undefined
      : setInterval(() => {
          void ctx.mcpReq
            .notify({
              method: 'notifications/progress',
              params: { progressToken: token, progress: ++progress, message: status },
            })
            .catch(() => {});
        }, host.limits.progressInterval);
  const execution: Execution = {
    code: args.code as string,
    catalog: host.catalog,
    policy: host.policy,
    limits: host.limits,
    executor: host.executor,
    ask: served.era === 'legacy' ? askUser(server, host, ctx) : undefined,
    signal: ctx.mcpReq.signal,
    callerId: served.callerId,
    waiting: (what) => {
      status = what ?? 'running';
    },
  };
  try {
    // A client on the current revision is asked by a round trip, which needs a durable run; one
    // that cannot elicit, or a policy that never asks, runs as before. A retry carrying a state
    // resumes its run whatever the policy says now: its earlier calls are not made again.
    const rounds =
      served.era === 'modern' &&
      (ctx.mcpReq.requestState() !== undefined || (host.policy.mayAsk && canElicit(ctx)));
    if (!rounds) return await runExecution(execution);
    return await runApprovalRound(execution, ctx, {
      identity: served.identity,
      args,
      store: host.journalStore,
    });
  } finally {
    clearInterval(ticker);
  }
}

/**
 * The handshake era's question: an elicitation request to the client, answered while the run
 * waits. The current revision has no request from server to client (approval-rounds.ts).
 */
function askUser(server: Server, host: McpHost, ctx: ServerContext): AskUser {
  // Deprecated by the SDK for the current revision only; this path serves the handshake era.
  if (server.getClientCapabilities()?.elicitation === undefined) return undefined;
  const timeout = host.limits.approvalTimeout;
  return async (question, ended) => {
    try {
      const answer = await ctx.mcpReq.elicitInput(
        { mode: 'form', message: question, requestedSchema: { type: 'object', properties: {} } },
        // Related to the execute request, so over HTTP the question travels on its stream; withdrawn
        // when the request is cancelled or the execution ends, so no answer can send a call later.
        { timeout, signal: AbortSignal.any([ctx.mcpReq.signal, ended]) },
      );
      return answer.action;
    } catch (error) {
      if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
        throw new Error(approvalTimeoutReason(timeout));
      }
      throw error;
    }
  };
}

/** Characters of a tool's first description line that search answers. */
export const SEARCH_LINE_LIMIT = 300;

function search(host: McpHost, query: string): CallToolResult {
  const found = host.catalog.search(query);
  if (found.length === 0) return textResult(`No tool matches ${JSON.stringify(query)}.`);
  const lines = found.map(
    ({ call, tool }) =>
      `${call}: ${safeText(cutText((tool.description ?? '').split('\n')[0] ?? '', SEARCH_LINE_LIMIT, 'SEARCH_LINE_LIMIT'))}`,
  );
  return textResult(lines.join('\n'));
}

function describe(host: McpHost, names: readonly string[]): CallToolResult {
  const parts = names.map((name) => {
    const entry = host.catalog.find(name);
    return entry === undefined ? `// ${notInCatalogMessage(name)}` : host.catalog.describe(entry);
  });
  return textResult(parts.join('\n\n'));
}

function textResult(text: string, isError = false): CallToolResult {
  return { content: [{ type: 'text', text }], ...(isError ? { isError: true } : {}) };
}
