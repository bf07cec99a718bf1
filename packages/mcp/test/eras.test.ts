/**
 * Clients of both protocol eras against the real command, over stdio and Streamable HTTP: the 1.x
 * SDK's Client, which speaks only the handshake revisions, and the 2.x SDK's Client negotiating
 * (`versionNegotiation: 'auto'`), which lands on the current revision (2026-07-28). Upstreams are
 * the filesystem, memory and everything servers from npm, the misbehaving server, and a server of
 * the current revision over stdio and over HTTP, whose `era` tool says which revision the bridge's
 * connection to it speaks. The matrix is four cases (two clients, two transports) over three
 * commands (one per stdio client, one HTTP command both clients share).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  Client as CurrentClient,
  StreamableHTTPClientTransport as CurrentHttpTransport,
  PROTOCOL_VERSION_META_KEY,
} from '@modelcontextprotocol/client';
import { StdioClientTransport as CurrentStdioTransport } from '@modelcontextprotocol/client/stdio';
import { Client as HandshakeClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as HandshakeStdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HandshakeHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { TOOL_LIST_TTL } from '../src/served.ts';
import { noElicitationMessage } from '../src/texts.ts';
import {
  BIN,
  misbehaving,
  npmServer,
  removeScratch,
  scratch,
  startHttp,
  stopHttp,
  writeConfig,
} from './mcp-process.ts';

const CURRENT_SERVER = new URL('./fixtures/current-revision-server.mjs', import.meta.url).pathname;
const TOKEN = 'a-token-for-both-eras-of-client';

/** What a test needs of a client of either SDK: the calls, and word of a changed tool list. */
interface EraClient {
  readonly era: 'handshake' | 'current';
  callTool(name: string, args: Record<string, unknown>, onprogress?: () => void): Promise<Answer>;
  listTools(): Promise<{ name: string; description?: string | undefined }[]>;
  /** Resolves on the next notifications/tools/list_changed. */
  listChanged(): Promise<void>;
  close(): Promise<void>;
}

interface Answer {
  readonly content: readonly { type: string; text?: string }[];
  readonly isError?: boolean | undefined;
  readonly structuredContent?: unknown;
}

type Transport = 'stdio' | 'http';

let files: string;
let httpUpstream: ChildProcess;
let remoteUrl: string;
let httpCommand: ChildProcess | undefined;
let httpUrl: string;
let stdioConfig: string;
const clients = new Map<string, EraClient>();
const CASES = ['1.x stdio', '2.x stdio', '1.x http', '2.x http'] as const;

/** The current-revision server over HTTP (on `port`, or one the system picks), once it listens. */
async function startCurrentHttpServer(port = 0): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [CURRENT_SERVER], {
    env: { ...process.env, HTTP: '1', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      const found = /listening (\d+)/.exec(chunk.toString('utf8'));
      if (found) resolve(`http://127.0.0.1:${found[1]}/mcp`);
    });
    child.once('exit', (code) => reject(new Error(`the current-revision server exited ${code}`)));
  });
  return { child, url };
}

function handshakeClient(transport: Transport): Promise<EraClient> {
  const client = new HandshakeClient({ name: 'codemode-eras-1x', version: '1.0.0' });
  let changed: () => void = () => {};
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed());
  const wire =
    transport === 'stdio'
      ? new HandshakeStdioTransport({
          command: process.execPath,
          args: [BIN, 'mcp', '--config', stdioConfig],
          stderr: 'ignore',
          // Passed on beside the few variables the transport keeps (mcp-process.ts says why).
          env: { CODEMODE_CACHE: process.env.CODEMODE_CACHE ?? '' },
        })
      : new HandshakeHttpTransport(new URL(httpUrl), {
          requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
        });
  return client.connect(wire).then(() => ({
    era: 'handshake',
    callTool: async (name, args, onprogress) =>
      (await client.callTool({ name, arguments: args }, undefined, {
        timeout: 60_000,
        ...(onprogress ? { onprogress, resetTimeoutOnProgress: true } : {}),
      })) as Answer,
    listTools: async () => (await client.listTools()).tools,
    listChanged: () => new Promise((resolve) => (changed = resolve)),
    close: () => client.close(),
  }));
}

async function currentClient(transport: Transport): Promise<EraClient> {
  let changed: () => void = () => {};
  const client = new CurrentClient(
    { name: 'codemode-eras-2x', version: '1.0.0' },
    {
      versionNegotiation: { mode: 'auto' },
      // On the current revision this opens a subscriptions/listen stream; on the handshake it
      // takes the unasked notifications.
      listChanged: { tools: { autoRefresh: false, onChanged: () => changed() } },
    },
  );
  const wire =
    transport === 'stdio'
      ? new CurrentStdioTransport({
          command: process.execPath,
          args: [BIN, 'mcp', '--config', stdioConfig],
          stderr: 'ignore',
          // Passed on beside the few variables the transport keeps (mcp-process.ts says why).
          env: { CODEMODE_CACHE: process.env.CODEMODE_CACHE ?? '' },
        })
      : new CurrentHttpTransport(new URL(httpUrl), {
          requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
        });
  await client.connect(wire);
  expect(client.getProtocolEra()).toBe('modern');
  expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
  return {
    era: 'current',
    callTool: async (name, args, onprogress) =>
      (await client.callTool(
        { name, arguments: args },
        { timeout: 60_000, ...(onprogress ? { onprogress, resetTimeoutOnProgress: true } : {}) },
      )) as Answer,
    listTools: async () => (await client.listTools(undefined, { cacheMode: 'refresh' })).tools,
    listChanged: () => new Promise((resolve) => (changed = resolve)),
    close: () => client.close(),
  };
}

beforeAll(async () => {
  files = scratch();
  writeFileSync(join(files, 'note.txt'), 'both eras');
  ({ child: httpUpstream, url: remoteUrl } = await startCurrentHttpServer());
  const upstreams = {
    memory: npmServer('server-memory', [], { MEMORY_FILE_PATH: join(scratch(), 'memory.jsonl') }),
    bad: misbehaving(),
    current: { command: process.execPath, args: [CURRENT_SERVER] },
    remote: { url: remoteUrl },
  };
  const common = { approvals: { 'bad.touch': 'ask' }, progressInterval: 200 };
  // Each stdio client starts a command of its own (and the 2.x client's probe one more, which
  // the SDK starts and ends): those serve fewer upstreams. The HTTP command both clients share
  // serves the filesystem and everything servers too.
  stdioConfig = writeConfig({ mcpServers: upstreams, ...common });
  const httpConfig = writeConfig({
    mcpServers: {
      ...upstreams,
      filesystem: npmServer('server-filesystem', [files]),
      everything: npmServer('server-everything', ['stdio']),
    },
    ...common,
  });
  const overHttp = startHttp(httpConfig, { CODEMODE_EXECUTOR_TOKEN: TOKEN }).then(({ process, url }) => {
    httpCommand = process;
    httpUrl = url;
    return Promise.all([handshakeClient('http'), currentClient('http')]);
  });
  const made = (await Promise.all([handshakeClient('stdio'), currentClient('stdio'), overHttp])).flat();
  for (const [index, name] of CASES.entries()) clients.set(name, made[index] as EraClient);
}, 90_000);

afterAll(async () => {
  await Promise.all([...clients.values()].map((client) => client.close().catch(() => {})));
  httpUpstream?.kill('SIGTERM');
  await stopHttp(httpCommand);
  removeScratch();
});

function text(answer: Answer): string {
  const block = answer.content[0];
  return block?.type === 'text' ? (block.text ?? '') : '';
}

/**
 * Whether the client is offered `call` (namespace.function): in execute's declarations, or, past
 * DESCRIPTION_CUTOVER, by the search tool.
 */
async function offers(client: EraClient, call: string): Promise<boolean> {
  const tools = await client.listTools();
  if (!tools.some((tool) => tool.name === 'search')) {
    const [namespace, name] = call.split('.') as [string, string];
    const description = tools[0]?.description ?? '';
    return description.includes(`declare const ${namespace}: {`) && description.includes(`  ${name}(args`);
  }
  return text(await client.callTool('search', { query: call })).startsWith(`${call}: `);
}

describe.each(CASES)('a %s client', (name) => {
  const client = () => clients.get(name) as EraClient;
  const http = name.endsWith('http');

  test('is offered every upstream and runs one program across all of them', async () => {
    const namespaces = ['memory', 'bad', 'current', 'remote', ...(http ? ['filesystem', 'everything'] : [])];
    const [execute] = await client().listTools();
    expect(execute?.name).toBe('execute');
    for (const namespace of namespaces) {
      expect(execute?.description).toMatch(
        new RegExp(`declare const ${namespace}: \\{|\\b${namespace} \\(\\d+ tools\\)`),
      );
    }
    const label = `case ${name}`;
    const answer = await client().callTool('execute', {
      code: `async () => {
        await memory.create_entities({ entities: [{ name: ${JSON.stringify(label)}, entityType: 'case', observations: ['stored'] }] });
        const graph = await memory.read_graph({});
        return {
          stored: graph.entities.find((entity) => entity.name === ${JSON.stringify(label)}).observations,
          bad: await bad.echo({ value: ${JSON.stringify(label)} }),
          current: await current.era({}),
          remote: await remote.era({}),
          ${
            http
              ? `file: (await filesystem.read_text_file({ path: ${JSON.stringify(join(files, 'note.txt'))} })).content,
          echo: await everything.echo({ message: ${JSON.stringify(label)} }),`
              : ''
          }
        };
      }`,
    });
    expect(answer.isError, text(answer)).toBeUndefined();
    // The bridge speaks the current revision to both upstreams that offer it, whatever its client speaks.
    expect(answer.structuredContent).toEqual({
      stored: ['stored'],
      bad: { value: label },
      current: 'modern',
      remote: 'modern',
      ...(http ? { file: 'both eras', echo: `Echo: ${label}` } : {}),
    });
  });

  test('hears of a tool an upstream adds, and the program can call it', async () => {
    const tool = `added_${name.replace(/\W/g, '_')}`;
    const changed = client().listChanged();
    expect(
      text(await client().callTool('execute', { code: `async () => current.add_tool({ name: '${tool}' })` })),
    ).toBe('"added"');
    await changed;
    expect(await offers(client(), `current.${tool}`)).toBe(true);
    expect(text(await client().callTool('execute', { code: `async () => current.${tool}({})` }))).toBe(
      '"new tool answers"',
    );
  });

  test('gets progress while a program runs', async () => {
    let progress = 0;
    const answer = await client().callTool(
      'execute',
      { code: 'async () => { await new Promise((r) => setTimeout(r, 700)); return "waited"; }' },
      () => progress++,
    );
    expect(text(answer)).toBe('"waited"');
    expect(progress).toBeGreaterThan(0);
  });

  test('an ask it cannot answer is refused, saying why', async () => {
    const answer = await client().callTool('execute', {
      code: `async () => { try { await bad.touch({ path: ${JSON.stringify(join(files, 'never'))} }); return 'made'; } catch (error) { return error.message; } }`,
    });
    // Neither client declares elicitation, which a question needs in either era: on the current
    // revision it would come back as an InputRequiredResult (approvals-rounds.test.ts).
    expect(JSON.parse(text(answer))).toBe(noElicitationMessage('bad.touch'));
  });
});

test('a current-revision upstream over HTTP that restarts is listened to again, and its changes are heard', async () => {
  const client = clients.get('2.x http') as EraClient;
  const exited = new Promise((resolve) => httpUpstream.once('exit', resolve));
  httpUpstream.kill('SIGTERM');
  await exited;
  // The bridge's subscriptions/listen stream to it ended with it; nothing else tells the bridge.
  ({ child: httpUpstream } = await startCurrentHttpServer(Number(new URL(remoteUrl).port)));
  expect(
    text(
      await client.callTool('execute', { code: "async () => remote.add_tool({ name: 'after_restart' })" }),
    ),
  ).toBe('"added"');
  let offered = await offers(client, 'remote.after_restart');
  for (let attempt = 0; attempt < 200 && !offered; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    offered = await offers(client, 'remote.after_restart');
  }
  expect(offered).toBe(true);
  expect(text(await client.callTool('execute', { code: 'async () => remote.after_restart({})' }))).toBe(
    '"new tool answers"',
  );
});

describe('the current revision over HTTP, on the wire', () => {
  const envelope = {
    [PROTOCOL_VERSION_META_KEY]: '2026-07-28',
    [CLIENT_INFO_META_KEY]: { name: 'raw', version: '1' },
    [CLIENT_CAPABILITIES_META_KEY]: {},
  };
  const post = (method: string, header: string) =>
    fetch(httpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': header,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { _meta: envelope } }),
    });

  test('server/discover and tools/list answer without a session, the list with its cache hint', async () => {
    const discovered = await post('server/discover', 'server/discover');
    expect(discovered.headers.get('mcp-session-id')).toBeNull();
    const { result: discovery } = (await discovered.json()) as { result: { supportedVersions: string[] } };
    expect(discovery.supportedVersions).toContain('2026-07-28');
    const listed = await post('tools/list', 'tools/list');
    expect(listed.headers.get('mcp-session-id')).toBeNull();
    const { result } = (await listed.json()) as {
      result: { tools: { name: string }[]; ttlMs: number; cacheScope: string };
    };
    expect(result.tools[0]?.name).toBe('execute');
    expect([result.ttlMs, result.cacheScope]).toEqual([TOOL_LIST_TTL, 'public']);
  });

  test('a request whose Mcp-Method header names another method than its body is refused', async () => {
    const refused = await post('tools/list', 'tools/call');
    expect(refused.status).toBe(400);
    const { error } = (await refused.json()) as { error: { code: number; message: string } };
    expect(error.code).toBe(-32020);
    expect(error.message).toContain('Mcp-Method header names tools/call');
  });

  test('without the token it is refused as a session is', async () => {
    const refused = await fetch(httpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'mcp-method': 'tools/list' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope } }),
    });
    expect(refused.status).toBe(401);
  });
});
