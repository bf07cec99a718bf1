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
} from '../src/texts.ts';
import { type Connected, connect, firstText, misbehaving, removeScratch } from './mcp-process.ts';

const APPROVAL_TIMEOUT = 3000;
const config = {
  mcpServers: { bad: misbehaving() },
  approvals: { 'bad.*': 'allow', 'bad.echo': 'ask', 'bad.f*': 'deny' },
  approvalTimeout: APPROVAL_TIMEOUT,
  progressInterval: 200,
};
/** How long the user thinks before approving: longer than the request timeout, within approvalTimeout. */
const THINKING = 2000;

/** One client with elicitation, whose user answers by the value the call carries. */
let asking: Connected;
let incapable: Connected;
const questions: string[] = [];

beforeAll(async () => {
  [asking, incapable] = await Promise.all([
    connect(config, { capabilities: { elicitation: { form: {} } } }),
    connect(config),
  ]);
  asking.client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const message = request.params.message;
    questions.push(message);
    if (message.includes('"value": "approve"')) {
      await new Promise((resolve) => setTimeout(resolve, THINKING));
      return { action: 'accept', content: {} };
    }
    if (message.includes('"value": "decline"')) return { action: 'decline' };
    return new Promise(() => {});
  });
}, 60_000);

afterAll(async () => {
  await Promise.all([asking?.close(), incapable?.close()]);
  removeScratch();
});

const program = (value: string) =>
  `async () => { try { return await bad.echo({ value: '${value}' }); } catch (error) { return error.message; } }`;

async function run(
  served: Connected,
  value: string,
  onprogress?: () => void,
  timeout = 60_000,
): Promise<unknown> {
  const answer = await served.client.callTool(
    { name: 'execute', arguments: { code: program(value) } },
    undefined,
    {
      timeout,
      ...(onprogress ? { onprogress, resetTimeoutOnProgress: true } : {}),
    },
  );
  const text = firstText(answer as never);
  expect((answer as { isError?: boolean }).isError, text).toBeUndefined();
  return JSON.parse(text);
}

describe('approvals', () => {
  test('a client that approves gets the call made; progress kept its request alive while it thought', async () => {
    let progress = 0;
    // The request would time out before the answer, but for the progress notifications.
    const answer = await run(asking, 'approve', () => progress++, THINKING / 2);
    expect(answer).toEqual({ value: 'approve' });
    expect(progress).toBeGreaterThan(0);
    expect(questions).toEqual([approvalQuestion('"bad"', '"echo"', [], ['  "value": "approve"'])]);
  });

  test('a client that declines gets a throw the model can act on', async () => {
    expect(await run(asking, 'decline')).toBe(declinedMessage('bad.echo'));
  });

  test('a client that never answers gets a throw once approvalTimeout passes', async () => {
    expect(await run(asking, 'silence')).toBe(
      unansweredMessage('bad.echo', approvalTimeoutReason(APPROVAL_TIMEOUT)),
    );
  });

  test('a client without elicitation is refused with a clear sentence', async () => {
    expect(await run(incapable, 'approve')).toBe(noElicitationMessage('bad.echo'));
  });

  test('deny wins over allow for the tools it names, and never asks', async () => {
    const answer = await incapable.client.callTool({
      name: 'execute',
      arguments: {
        code: `async () => { try { await bad.fail({}); } catch (error) { return error.message; } }`,
      },
    });
    expect(JSON.parse(firstText(answer as never))).toBe(deniedMessage('bad.fail', '"bad.f*": deny'));
  });
});
