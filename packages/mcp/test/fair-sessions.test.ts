/**
 * Sessions of the served MCP server share its executor's reading lanes by turns (docs/pool.md,
 * "Fair queues"): one session's flood of slow TypeScript programs holds another session's typed
 * program only until one lane frees. Two real sessions over the SDK's in-memory transport, one
 * real executor; no upstream is needed for a program that calls no tool.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { IsolateExecutor } from '@supolka/codemode-executor';
import { executionTimeoutMessage } from '@supolka/codemode-protocol';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { NORMALIZER_LANES } from '../../executor/src/codemode/normalize-lanes.ts';
import { ApprovalPolicy } from '../src/approvals.ts';
import { Catalog } from '../src/catalog.ts';
import { createServedServer, type McpHost } from '../src/served.ts';

vi.setConfig({ testTimeout: 60_000 });

const executor = new IsolateExecutor({ poolSize: 1, timeout: 1500 });
/** Programs handed to the executor, so the test can send the other session's once the flood is in. */
let handed = 0;
const executeOnce = executor.execute.bind(executor) as (...args: unknown[]) => unknown;
executor.execute = ((...args: unknown[]) => {
  handed++;
  return executeOnce(...args);
}) as unknown as IsolateExecutor['execute'];
const host: McpHost = {
  catalog: new Catalog([]),
  policy: new ApprovalPolicy(),
  executor,
  limits: {
    maxUpstreamCalls: 10,
    maxResultLength: 10_000,
    progressInterval: 60_000,
    approvalTimeout: 60_000,
  },
};
const clients: Client[] = [];
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await executor.dispose();
});

/** A session of its own: a served server and the SDK's client, joined in memory. */
async function session(): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createServedServer(host).connect(serverSide);
  const client = new Client({ name: 'fair-sessions-test', version: '1.0.0' });
  await client.connect(clientSide);
  clients.push(client);
  return client;
}

/** The first text block of the execute tool's answer. */
async function execute(client: Client, code: string): Promise<string> {
  const result = await client.callTool({ name: 'execute', arguments: { code } }, undefined, {
    timeout: 60_000,
  });
  return (result.content as { text: string }[])[0]?.text as string;
}

/** Seconds of amaro per few lines, refused by the engine as JavaScript (test/codemode/normalize-lanes.test.ts). */
const slowToErase = () => `${`let x = ${'a < (b'.repeat(120)}${')'.repeat(120)};\n`.repeat(400)}x`;

describe('two sessions of the served MCP server', () => {
  test("one session's flood of slow reads holds another's typed program only until one lane frees", async () => {
    const flooding = await session();
    const other = await session();
    expect(await execute(other, 'async () => 0')).toBe('0');
    const settled: string[] = [];
    const track = (name: string, answer: Promise<string>) =>
      answer.then((text) => {
        settled.push(name);
        return text;
      });
    const before = handed;
    const flood = Array.from({ length: 2 * NORMALIZER_LANES }, () =>
      track('a', execute(flooding, slowToErase())),
    );
    // Every read of the flood is in a lane or waiting for one before the other session asks.
    await vi.waitFor(() => expect(handed - before).toBe(2 * NORMALIZER_LANES), { timeout: 10_000 });
    const typed = track('b', execute(other, 'const n: number = 2;\nreturn n * 3'));
    expect(await typed).toBe('6');
    for (const text of await Promise.all(flood))
      expect(text).toBe(`${executionTimeoutMessage(1500)} [TIMEOUT]`);
    // The first lane to free went to b, which held none, though in arrival order b came last: the
    // NORMALIZER_LANES reads that were waiting when b asked all settled after it (each takes its
    // 1500 ms bound in a lane). Handed out in arrival order, b would have waited for one of them
    // and at most one read could settle after it. A read that was in a lane when b asked may settle
    // on either side of b, by how far apart the machine let the two lanes start.
    const after = settled.slice(settled.indexOf('b') + 1);
    expect(after.every((name) => name === 'a')).toBe(true);
    expect(after.length).toBeGreaterThanOrEqual(NORMALIZER_LANES);
  });
});
