/**
 * Upstream calls belong to the execution that made them, through the real command: calls a
 * program leaves running are cancelled upstream with notifications/cancelled when it answers or its
 * client cancels it, the answer names them, and a call whose approval comes after the answer never
 * leaves. The upstream counts what it holds and what was cancelled.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { callsInFlightMessage } from '../src/texts.ts';
import {
  type Connected,
  connect,
  execute,
  firstText,
  misbehaving,
  removeScratch,
  scratch,
} from './mcp-process.ts';

let served: Connected;
let release: () => void = () => {};
const approvals: string[] = [];

beforeAll(async () => {
  served = await connect(
    { mcpServers: { bad: misbehaving() }, approvals: { 'bad.touch': 'ask' }, upstreamTimeout: 600_000 },
    { capabilities: { elicitation: { form: {} } } },
    // Two children: the test asks the upstream what it holds while another execution waits on it.
    ['--pool-size', '2'],
  );
  served.client.setRequestHandler(ElicitRequestSchema, async (request) => {
    approvals.push(request.params.message);
    await new Promise<void>((resolve) => {
      release = resolve;
    });
    return { action: 'accept', content: {} };
  });
}, 60_000);

afterAll(async () => {
  await served?.close();
  removeScratch();
});

interface Held {
  readonly arrived: number;
  readonly held: number;
  readonly cancelled: number;
}

/**
 * What hang calls reached the upstream, what it holds now and what it had cancelled, asked through
 * a program of its own. The upstream reads its pipe in order, so a call that left before this one
 * is counted in it.
 */
async function held(client = served.client): Promise<Held> {
  return JSON.parse(firstText(await execute(client, 'async () => bad.held({})')));
}

/**
 * Since `before`, every hang call that reached the upstream was cancelled and none is held. A call
 * whose execution ended before the SDK sent it is withdrawn unsent (the SDK sends no request whose
 * signal has aborted), so fewer than the program made may arrive: each that did is cancelled.
 */
function everyArrivedCallCancelled(before: Held, now: Held): void {
  expect(now.held).toBe(0);
  expect(now.cancelled - before.cancelled).toBe(now.arrived - before.arrived);
}

describe('upstream calls of an execution', () => {
  test('calls the program left running are cancelled when it answers, and the answer names them', async () => {
    const before = await held();
    const answer = await execute(
      served.client,
      'async () => { for (let i = 0; i < 5; i++) bad.hang({}).catch(() => {}); return "answered"; }',
    );
    expect(answer.content.map((block) => (block.type === 'text' ? block.text : block.type))).toEqual([
      '"answered"',
      callsInFlightMessage(['bad.hang (5)']),
    ]);
    everyArrivedCallCancelled(before, await held());
  });

  test("a client's cancellation of execute cancels the calls it was waiting on", async () => {
    const before = await held();
    const controller = new AbortController();
    const running = served.client
      .callTool(
        {
          name: 'execute',
          arguments: { code: 'async () => Promise.all([bad.hang({}), bad.hang({}), bad.hang({})])' },
        },
        undefined,
        { signal: controller.signal, timeout: 600_000 },
      )
      .catch((error: Error) => error.name);
    for (let attempt = 0; attempt < 200 && (await held()).held < 3; attempt++);
    expect((await held()).held).toBe(3);
    controller.abort();
    await running;
    // The cancellation reaches the command, which ends the run and cancels its calls upstream.
    let now = await held();
    for (let attempt = 0; attempt < 200 && now.held > 0; attempt++) now = await held();
    expect(now).toEqual({ arrived: before.arrived + 3, held: 0, cancelled: before.cancelled + 3 });
  });

  test('executions that each leave maxUpstreamCalls calls running never pile them up upstream', async () => {
    const capped = await connect({ mcpServers: { bad: misbehaving() }, maxUpstreamCalls: 5 });
    try {
      for (let round = 0; round < 4; round++) {
        const before = await held(capped.client);
        const answer = await execute(
          capped.client,
          'async () => { for (let i = 0; i < 6; i++) bad.hang({}).catch(() => {}); return "answered"; }',
        );
        // The sixth call is refused by the cap; the five that left are cancelled with the answer.
        expect(answer.content.at(-1)).toEqual({ type: 'text', text: callsInFlightMessage(['bad.hang (5)']) });
        everyArrivedCallCancelled(before, await held(capped.client));
      }
    } finally {
      await capped.close();
    }
  });

  test('a call approved after its execution answered is never made', async () => {
    const path = join(scratch(), 'late-write');
    const answer = await execute(
      served.client,
      `async () => { bad.touch({ path: ${JSON.stringify(path)} }).catch(() => {}); return 'answered'; }`,
    );
    expect(firstText(answer)).toBe('"answered"');
    expect(approvals).toHaveLength(1);
    release();
    // Anything the approval set off would reach the upstream before this later call does.
    expect(
      JSON.parse(firstText(await execute(served.client, "async () => bad.echo({ value: 'after' })"))),
    ).toEqual({
      value: 'after',
    });
    expect(existsSync(path)).toBe(false);
  });
});
