/**
 * `mcp --http`: Streamable HTTP at /mcp with the token and origin rules of `serve`, driven by the
 * official SDK's Client over its Streamable HTTP transport, with the filesystem and memory servers
 * from npm as upstreams.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cli } from '../../executor/test/cli/cli-process.ts';
import { notLoopbackServeMessage, originRefusedMessage } from '../../server/src/texts.ts';
import { SESSION_LIMIT, UNAUTHORIZED_MESSAGE } from '../src/http-serve.ts';
import {
  execute,
  firstText,
  misbehaving,
  npmServer,
  scratch,
  startHttp,
  stopHttp,
  writeConfig,
} from './mcp-process.ts';

const TOKEN = 'an-http-token-of-enough-length';
let files: string;
let memoryFile: string;
let command: ChildProcess;
let url: string;

async function connectHttp(
  headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` },
): Promise<Client> {
  const client = new Client({ name: 'codemode-mcp-http-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

beforeAll(async () => {
  files = scratch();
  writeFileSync(join(files, 'a.txt'), 'one');
  memoryFile = join(scratch(), 'memory.jsonl');
  const config = writeConfig({
    mcpServers: {
      filesystem: npmServer('server-filesystem', [files]),
      memory: npmServer('server-memory', [], { MEMORY_FILE_PATH: memoryFile }),
      bad: misbehaving(),
    },
    progressInterval: 200,
  });
  ({ process: command, url } = await startHttp(config, { CODEMODE_EXECUTOR_TOKEN: TOKEN }));
}, 60_000);

afterAll(() => stopHttp(command));

describe('mcp --http', () => {
  test('a client with the token reads through one server and writes through another', async () => {
    const client = await connectHttp();
    try {
      const answer = await execute(
        client,
        `async () => {
          const { content } = await filesystem.read_text_file({ path: ${JSON.stringify(join(files, 'a.txt'))} });
          await memory.create_entities({ entities: [{ name: 'a', entityType: 'file', observations: [content] }] });
          return memory.read_graph({});
        }`,
      );
      expect(answer.structuredContent).toEqual({
        entities: [{ name: 'a', entityType: 'file', observations: ['one'] }],
        relations: [],
      });
      expect(readFileSync(memoryFile, 'utf8')).toContain('"observations":["one"]');
    } finally {
      await client.close();
    }
  });

  test('progress notifications keep a long run alive past the client request timeout', async () => {
    const client = await connectHttp();
    try {
      let progress = 0;
      const answer = await client.callTool(
        {
          name: 'execute',
          arguments: {
            code: 'async () => { await new Promise((r) => setTimeout(r, 4000)); return "done"; }',
          },
        },
        undefined,
        { timeout: 2000, resetTimeoutOnProgress: true, onprogress: () => progress++ },
      );
      expect(firstText(answer as never)).toBe('"done"');
      expect(progress).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  test('a request without the token is refused', async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
    });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      UNAUTHORIZED_MESSAGE,
    );
    await expect(connectHttp({})).rejects.toThrow(UNAUTHORIZED_MESSAGE);
  });

  test('a browser origin not allowed is refused', async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        origin: 'https://evil.example',
        'content-type': 'application/json',
      },
      body: '{}',
    });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      originRefusedMessage('https://evil.example'),
    );
  });

  test('without a token only a loopback host is served', () => {
    const config = writeConfig({ mcpServers: { bad: misbehaving() } });
    const run = cli(['mcp', '--config', config, '--http', '0', '--host', '0.0.0.0']);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`codemode-executor mcp: ${notLoopbackServeMessage('0.0.0.0')}\n`);
  });
});

describe('sessions', () => {
  /** A session's first request, as a client sends it; resolves to its session id. */
  async function initialize(): Promise<string> {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
    });
    await response.text();
    return response.headers.get('mcp-session-id') as string;
  }

  async function ping(session: string): Promise<number> {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
    });
    await response.text();
    return response.status;
  }

  test('past SESSION_LIMIT, the session used least recently is ended to make room', async () => {
    const first = await initialize();
    const second = await initialize();
    expect(await ping(first)).toBe(200);
    // Clients that vanish without closing: one more than the places left, so one session must end.
    const others: string[] = [];
    for (let index = 0; index < SESSION_LIMIT - 1; index++) others.push(await initialize());
    expect(await ping(second)).toBe(404);
    expect(await ping(first)).toBe(200);
    expect(await ping(others.at(-1) as string)).toBe(200);
  });
});
