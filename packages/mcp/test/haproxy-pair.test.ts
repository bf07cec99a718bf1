/**
 * Two bridges (`mcp --http`) behind HAProxy, on loopback, with deploy/haproxy/codemode-mcp.cfg as
 * an operator would run it, both serving one HTTP upstream (fixtures/gate-upstream.mjs) that says
 * which bridge called it. A client of the current revision (2026-07-28) has no session, so its
 * requests are balanced one by one with no affinity: consecutive calls land on both bridges. With
 * calls held in flight on both, one bridge is killed (SIGKILL): exactly its calls fail, with the
 * balancer's sentence saying to send them again; the other bridge's calls finish, and each failed
 * call sent again is served by the bridge still up. A handshake-era client's session is routed back
 * to the bridge that answered its initialize. An approval paused on one bridge is answered through
 * the other: the bridges share a durable key and a journal store, so the retry resumes the run
 * wherever it lands, its earlier upstream call served from the journal, and a state sent again is
 * refused by either; approvals paused on the bridge that is killed are answered after it, through
 * the balancer, by the one still up. HAProxy is installed from Debian's packages when it is
 * missing (as the server's deployment test does); when it cannot be, the test fails saying so.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  Client as CurrentClient,
  SdkHttpError,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { Client as HandshakeClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HandshakeHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ensureHaproxy, freePort } from '../../server/test/deploy/haproxy.ts';
import { removeScratch, scratch, startHttp } from './mcp-process.ts';

const CONFIG = new URL('../../../deploy/haproxy/codemode-mcp.cfg', import.meta.url).pathname;
const GATE = new URL('./fixtures/gate-upstream.mjs', import.meta.url).pathname;
const TOKEN = 'a-token-both-bridges-share-0123456789';
const KEYS = `pair=${randomBytes(32).toString('base64')}`;
/** The balancer's answer for a bridge that died mid-request, as the config writes it. */
const WENT_AWAY =
  'The MCP bridge serving this request went away before it answered, so the request may or may not have run; send it again and another bridge serves it.';

const bridges = new Map<string, ChildProcess>();
/** Each bridge's own endpoint, past the balancer. */
const bridgeUrls = new Map<string, string>();
let gate: ChildProcess;
let gateUrl: string;
let haproxy: ChildProcess;
let haproxyOutput = '';
let endpoint: string;
const clients: { close(): Promise<void> }[] = [];

interface Answer {
  readonly content: readonly { type: string; text?: string }[];
  readonly structuredContent?: Record<string, unknown>;
  readonly isError?: boolean;
}

beforeAll(async () => {
  const binary = ensureHaproxy();
  const dir = scratch();
  gate = spawn(process.execPath, [GATE], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(gate.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
  gateUrl = `http://127.0.0.1:${/listening (\d+)/.exec(line.toString())?.[1]}`;
  // One config each, alike but for the header that tells the upstream which bridge called.
  const started = await Promise.all(
    ['a', 'b'].map(async (name) => {
      const config = join(dir, `bridge-${name}.json`);
      writeFileSync(
        config,
        JSON.stringify({
          mcpServers: { gate: { url: `${gateUrl}/mcp`, headers: { 'X-Bridge': name } } },
          approvals: { 'gate.stamp': 'ask' },
          // One folder for both: states too large to hand out, and each approval claimed once.
          journalStore: 'journal',
        }),
      );
      // Two children each, so each bridge runs two of the test's calls at once.
      const { process: child, url } = await startHttp(
        config,
        { CODEMODE_EXECUTOR_TOKEN: TOKEN, CODEMODE_DURABLE_KEYS: KEYS },
        ['--pool-size', '2'],
      );
      bridges.set(name, child);
      bridgeUrls.set(name, url);
      return new URL(url).host;
    }),
  );
  const port = await freePort();
  haproxy = spawn(binary, ['-db', '-f', CONFIG], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      CODEMODE_MCP_LB_BIND: `127.0.0.1:${port}`,
      HAPROXY_STATS_SOCKET: join(dir, 'haproxy.sock'),
      MCP_A: started[0],
      MCP_B: started[1],
    },
  });
  for (const stream of [haproxy.stdout, haproxy.stderr]) {
    stream?.setEncoding('utf8').on('data', (chunk: string) => {
      haproxyOutput += chunk;
    });
  }
  endpoint = `http://127.0.0.1:${port}/mcp`;
  // Listening once the bridges' own refusal of a request without the token comes through.
  for (let attempt = 0; ; attempt++) {
    const status = await fetch(endpoint).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 401) break;
    if (attempt > 100 || haproxy.exitCode !== null)
      throw new Error(`HAProxy did not serve:\n${haproxyOutput}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}, 90_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => {})));
  const ends = [haproxy, gate, ...bridges.values()]
    .filter((child) => child !== undefined && child.exitCode === null && child.signalCode === null)
    .map((child) => {
      const ended = once(child, 'exit');
      child.kill('SIGTERM');
      return ended;
    });
  await Promise.all(ends);
  removeScratch();
});

async function currentClient(manual = false, url = endpoint): Promise<CurrentClient> {
  const client = new CurrentClient(
    { name: 'haproxy-pair', version: '1.0.0' },
    {
      versionNegotiation: { mode: 'auto' },
      // Manual rounds: the test sends each retry itself, to see which bridge answers it.
      ...(manual
        ? { capabilities: { elicitation: { form: {} } }, inputRequired: { autoFulfill: false } }
        : {}),
    },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
  clients.push(client);
  expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
  return client;
}

async function run(client: CurrentClient, code: string): Promise<Answer> {
  return (await client.callTool({ name: 'execute', arguments: { code } }, { timeout: 60_000 })) as Answer;
}

async function holds(): Promise<{ id: string; bridge: string }[]> {
  return (await (await fetch(`${gateUrl}/holds`)).json()) as { id: string; bridge: string }[];
}

test('a client of the current revision is served by both bridges, one call here and the next there', async () => {
  const client = await currentClient();
  const served: unknown[] = [];
  for (let call = 0; call < 4; call++)
    served.push((await run(client, 'async () => gate.where()')).structuredContent);
  expect(new Set(served.map((answer) => JSON.stringify(answer)))).toEqual(
    new Set([JSON.stringify({ bridge: 'a' }), JSON.stringify({ bridge: 'b' })]),
  );
});

test('a handshake-era session stays with the bridge that answered its initialize', async () => {
  const client = new HandshakeClient({ name: 'haproxy-pair-1x', version: '1.0.0' });
  await client.connect(
    new HandshakeHttpTransport(new URL(endpoint), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
  clients.push(client);
  const served = new Set<string>();
  for (let call = 0; call < 4; call++) {
    const answer = (await client.callTool({
      name: 'execute',
      arguments: { code: 'async () => gate.where()' },
    })) as Answer;
    served.add(JSON.stringify(answer.structuredContent));
  }
  expect(served.size).toBe(1);
});

/** The pair's asked program: `before` is a call made before the ask, `after` the asked call. */
const STAMPED =
  'async () => { const before = await gate.where(); const after = await gate.stamp(); return { before, after }; }';
const ACCEPTED = { 'approve-2': { action: 'accept', content: {} } };

/** STAMPED on a client in manual rounds: its first answer, or, given a state, the resumed one. */
function stamped(
  client: CurrentClient,
  requestState?: string,
): Promise<Answer & { resultType?: string; requestState?: string }> {
  const retry = requestState === undefined ? {} : { requestState, inputResponses: ACCEPTED };
  return client.callTool(
    { name: 'execute', arguments: { code: STAMPED }, ...retry } as never,
    {
      allowInputRequired: true,
      timeout: 60_000,
    } as never,
  ) as Promise<Answer & { resultType?: string; requestState?: string }>;
}

type Stamps = { before: { bridge: string }; after: { bridge: string } };

test('an approval paused on one bridge is answered through the other, its state kept in the store they share, and claimed once', async () => {
  // Straight to each bridge, past the balancer, to know which pauses and which resumes.
  const [onA, onB] = await Promise.all([
    currentClient(true, bridgeUrls.get('a')),
    currentClient(true, bridgeUrls.get('b')),
  ]);
  // A megabyte of arguments to the call before the ask: the token passes 1 MiB, so the client
  // holds a reference, and the token waits in the journal store both bridges read.
  const code = `async () => { const before = await gate.where({ pad: 'x'.repeat(1100000) }); const after = await gate.stamp(); return { before, after }; }`;
  const paused = (await onA.callTool({ name: 'execute', arguments: { code } }, {
    allowInputRequired: true,
    timeout: 60_000,
  } as never)) as Answer & { resultType?: string; requestState?: string };
  expect(paused.resultType).toBe('input_required');
  expect(paused.requestState).toMatch(/^cma1\.2a\.r[A-Za-z0-9_-]{22}$/);
  const retry = { requestState: paused.requestState, inputResponses: ACCEPTED };
  const resume = (client: CurrentClient) =>
    client.callTool(
      { name: 'execute', arguments: { code }, ...retry } as never,
      {
        allowInputRequired: true,
        timeout: 60_000,
      } as never,
    ) as Promise<Answer>;
  const answer = await resume(onB);
  // `before` is bridge a's call, served from the journal; `after` the call bridge b made.
  expect(answer.structuredContent).toEqual({ before: { bridge: 'a' }, after: { bridge: 'b' } });
  const again = await resume(onA);
  expect(again.isError).toBe(true);
  expect(again.content[0]?.text).toMatch(/could not resume its program \(TOKEN_REPLAYED: /);
});

test('a bridge killed with calls in flight fails exactly those calls, with a sentence to send them again; sent again, the other bridge serves them', async () => {
  const client = await currentClient();
  // Approvals paused before the kill, spread over both bridges: those of the killed bridge are
  // answered after it, through the one still up.
  const approver = await currentClient(true);
  const pausedStates: string[] = [];
  for (let pause = 0; pause < 4; pause++) pausedStates.push((await stamped(approver)).requestState as string);
  const ids = ['h1', 'h2', 'h3', 'h4'];
  const calls = ids.map((id) =>
    run(client, `async () => gate.hold({ id: '${id}' })`).then(
      (answer) => ({ answer }),
      (error: unknown) => ({ error }),
    ),
  );
  let held: { id: string; bridge: string }[] = [];
  for (let attempt = 0; held.length < ids.length; attempt++) {
    if (attempt > 200) throw new Error(`the holds did not all arrive: ${JSON.stringify(held)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    held = await holds();
  }
  // Balanced one by one: each bridge holds two of the four calls.
  expect(held.filter((hold) => hold.bridge === 'a')).toHaveLength(2);
  const lost = held.filter((hold) => hold.bridge === 'a').map((hold) => hold.id);

  const killed = bridges.get('a') as ChildProcess;
  const exited = once(killed, 'exit');
  killed.kill('SIGKILL');
  await exited;
  const failed = await Promise.race([
    Promise.all(lost.map((id) => calls[ids.indexOf(id)])),
    new Promise((resolve) => setTimeout(resolve, 30_000, 'the calls on the killed bridge did not end')),
  ]);
  for (const outcome of failed as { error?: unknown }[]) {
    expect(outcome.error).toBeInstanceOf(SdkHttpError);
    expect((outcome.error as SdkHttpError).data.status).toBe(502);
    expect((outcome.error as SdkHttpError).message).toContain(WENT_AWAY);
  }
  await fetch(`${gateUrl}/release`, { method: 'POST' });
  for (const id of ids.filter((id) => !lost.includes(id))) {
    expect(await calls[ids.indexOf(id)]).toEqual({
      answer: expect.objectContaining({ structuredContent: { id, bridge: 'b' } }),
    });
  }

  // Sent again: whichever bridge the balancer tries first, the one still up serves each.
  const again = lost.map((id) => run(client, `async () => gate.hold({ id: '${id}' })`));
  for (let attempt = 0; (await holds()).length < lost.length; attempt++) {
    if (attempt > 200) throw new Error(`the calls sent again did not arrive:\n${haproxyOutput}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await fetch(`${gateUrl}/release`, { method: 'POST' });
  for (const [index, id] of lost.entries()) {
    expect((await again[index])?.structuredContent).toEqual({ id, bridge: 'b' });
  }

  // Every approval resumes on the bridge still up, those paused on the killed one included.
  const resumed: Stamps[] = [];
  for (const state of pausedStates)
    resumed.push((await stamped(approver, state)).structuredContent as Stamps);
  expect(resumed.map(({ after }) => after.bridge)).toEqual(['b', 'b', 'b', 'b']);
  expect(resumed.map(({ before }) => before.bridge)).toContain('a');
}, 60_000);
