/**
 * Approvals through the real command: `ask` goes to the client as an elicitation before the call
 * leaves; a client that approves gets the call made, one that declines or never answers gets a
 * throw in the program, and one without elicitation a refusal; `deny` never asks. While the
 * question waits, progress notifications keep the client's request alive.
 */
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  approvalQuestion,
  approvalTimeoutReason,
  declinedMessage,
  deniedMessage,
  noElicitationMessage,
  unansweredMessage,
} from '../../src/mcp/texts.ts';
import { type Connected, connect, firstText, misbehaving, removeScratch } from './mcp-process.ts';

const config = {
  mcpServers: { bad: misbehaving() },
  approvals: { 'bad.*': 'allow', 'bad.echo': 'ask', 'bad.f*': 'deny' },
  approvalTimeout: 1500,
  progressInterval: 200,
};
const elicitation = { capabilities: { elicitation: { form: {} } } };
/** How long the approving client thinks before it answers: longer than its request timeout. */
const THINKING = 4000;

let approving: Connected;
let declining: Connected;
let silent: Connected;
let incapable: Connected;
const questions: string[] = [];

beforeAll(async () => {
  [approving, declining, silent, incapable] = await Promise.all([
    connect({ ...config, approvalTimeout: 60_000 }, elicitation),
    connect(config, elicitation),
    connect(config, elicitation),
    connect(config),
  ]);
  approving.client.setRequestHandler(ElicitRequestSchema, async (request) => {
    questions.push(request.params.message);
    await new Promise((resolve) => setTimeout(resolve, THINKING));
    return { action: 'accept', content: {} };
  });
  declining.client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'decline' }));
  silent.client.setRequestHandler(ElicitRequestSchema, () => new Promise(() => {}));
}, 60_000);

afterAll(async () => {
  await Promise.all([approving, declining, silent, incapable].map((served) => served?.close()));
  removeScratch();
});

const PROGRAM = `async () => { try { return await bad.echo({ value: 1 }); } catch (error) { return error.message; } }`;

async function run(served: Connected, onprogress?: () => void, timeout = 60_000): Promise<unknown> {
  const answer = await served.client.callTool({ name: 'execute', arguments: { code: PROGRAM } }, undefined, {
    timeout,
    ...(onprogress ? { onprogress, resetTimeoutOnProgress: true } : {}),
  });
  const text = firstText(answer as never);
  expect((answer as { isError?: boolean }).isError, text).toBeUndefined();
  return JSON.parse(text);
}

describe('approvals', () => {
  test('a client that approves gets the call made; progress kept its request alive while it thought', async () => {
    let progress = 0;
    // The request would time out long before the answer, but for the progress notifications.
    const answer = await run(approving, () => progress++, THINKING / 2);
    expect(answer).toEqual({ value: 1 });
    expect(progress).toBeGreaterThan(0);
    expect(questions).toEqual([approvalQuestion('bad.echo', '{"value":1}')]);
  });

  test('a client that declines gets a throw the model can act on', async () => {
    expect(await run(declining)).toBe(declinedMessage('bad.echo'));
  });

  test('a client that never answers gets a throw once approvalTimeout passes', async () => {
    expect(await run(silent)).toBe(unansweredMessage('bad.echo', approvalTimeoutReason(1500)));
  });

  test('a client without elicitation is refused with a clear sentence', async () => {
    expect(await run(incapable)).toBe(noElicitationMessage('bad.echo'));
  });

  test('deny wins over allow for the tools it names, and never asks', async () => {
    const answer = await incapable.client.callTool({
      name: 'execute',
      arguments: {
        code: `async () => { try { await bad.fail({}); } catch (error) { return error.message; } }`,
      },
    });
    expect(JSON.parse(firstText(answer as never))).toBe(deniedMessage('bad.fail', 'bad.f*'));
  });
});
