/**
 * The client side of the approval rounds (issue 30), as approval-rounds.test.ts and
 * approval-attacks.test.ts both drive it: the bridge's config with the misbehaving upstream's
 * `echo` and `touch` asking for approval, one durable key every bridge of a file holds, clients on
 * the current revision over stdio or Streamable HTTP, and `execute` called with a retry's state
 * and answers, its input_required answer handed back as it is. Written once so the two files meet
 * the bridge the same way.
 */
import { randomBytes } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { BIN, misbehaving } from './mcp-process.ts';

/** One fresh key, as CODEMODE_DURABLE_KEYS reads it: a state moved between a file's bridges is refused for what it is bound to, not for the key. */
export const KEYS = `k1=${randomBytes(32).toString('base64')}`;

/** The answer that approves a question. */
export const ACCEPT = { action: 'accept', content: {} };

/** A bridge's config: the misbehaving upstream as `bad`, its `echo` and `touch` asked for, and `more`. */
export function approvalConfig(more: Record<string, unknown> = {}) {
  return {
    mcpServers: { bad: misbehaving() },
    approvals: { 'bad.echo': 'ask', 'bad.touch': 'ask' },
    ...more,
  };
}

/** What execute answers, input_required included. */
export interface Answer {
  readonly content?: readonly { type: string; text?: string }[];
  readonly isError?: boolean;
  readonly structuredContent?: unknown;
  readonly resultType?: string;
  readonly inputRequests?: Record<string, { method: string; params: { message: string; mode: string } }>;
  readonly requestState?: string;
}

/**
 * A client on the current revision that can answer questions: in manual mode every input_required
 * answer comes back to the test, otherwise the client fulfils the rounds itself.
 */
export function approvalClient(name: string, manual: boolean): Client {
  return new Client(
    { name, version: '1.0.0' },
    {
      versionNegotiation: { mode: 'auto' },
      capabilities: { elicitation: { form: {} } },
      ...(manual ? { inputRequired: { autoFulfill: false } } : {}),
    },
  );
}

/** The bridge with `config`, spawned over stdio, holding KEYS. */
export function stdioBridge(config: string): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--config', config],
    env: { ...(process.env as Record<string, string>), CODEMODE_DURABLE_KEYS: KEYS },
    stderr: 'ignore',
  });
}

/** The bridge at `url` over Streamable HTTP, with `token` as the bearer token. */
export function httpBridge(url: string, token: string): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
}

/**
 * execute on `client` with `code` (and any `extra` arguments), with a retry's state and answers
 * when given; input_required comes back as it is.
 */
export async function call(
  client: Client,
  code: string,
  retry?: { readonly state: string; readonly responses?: unknown },
  extra: Record<string, unknown> = {},
): Promise<Answer> {
  const params = {
    name: 'execute',
    arguments: { code, ...extra },
    ...(retry === undefined
      ? {}
      : { requestState: retry.state, ...(retry.responses ? { inputResponses: retry.responses } : {}) }),
  };
  return (await client.callTool(
    params as never,
    { allowInputRequired: true, timeout: 60_000 } as never,
  )) as Answer;
}

/** The answer's first text block. */
export function text(answer: Answer): string {
  const block = answer.content?.[0];
  return block?.type === 'text' ? (block.text ?? '') : '';
}
