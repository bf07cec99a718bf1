/**
 * The wall-clock bound through the real mcp command (docs/mcp.md, "Limits"): a program that keeps
 * catching upstream calls that time out, which the run clock never charges, is ended at the bound
 * and frees the only child (issue 24); a person answering an approval question is not counted.
 */
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { executionPastWallClockMessage } from '@supolka/codemode-executor';
import { afterAll, describe, expect, test } from 'vitest';
import { type Connected, connect, execute, firstText, misbehaving, removeScratch } from './mcp-process.ts';

const opened: Connected[] = [];

afterAll(async () => {
  await Promise.all(opened.map((served) => served.close()));
  removeScratch();
});

describe('the mcp command under wallClockLimit', () => {
  test('ends a program that keeps catching timed-out upstream calls, and serves the next', async () => {
    const served = await connect({
      mcpServers: { bad: misbehaving() },
      upstreamTimeout: 200,
      timeout: 1000,
      wallClockLimit: 3000,
    });
    opened.push(served);
    const answer = await execute(
      served.client,
      'async () => { for (;;) { try { await bad.hang({}) } catch {} } }',
    );
    expect(answer.isError).toBe(true);
    // Between two calls nothing is pending, for a moment; the bound almost always finds one waiting.
    expect([
      `${executionPastWallClockMessage(3000, 'tool call bad.hang', 0)} [TIMEOUT]`,
      `${executionPastWallClockMessage(3000, undefined, 0)} [TIMEOUT]`,
    ]).toContain(firstText(answer));
    expect(firstText(await execute(served.client, 'async () => 1 + 1'))).toBe('2');
  }, 60_000);

  test('does not count the time a person takes to answer an approval', async () => {
    const served = await connect(
      {
        mcpServers: { bad: misbehaving() },
        approvals: { 'bad.echo': 'ask' },
        approvalTimeout: 10_000,
        wallClockLimit: 1000,
      },
      { capabilities: { elicitation: { form: {} } } },
    );
    opened.push(served);
    served.client.setRequestHandler(ElicitRequestSchema, async () => {
      // Twice the bound: a clock that ran on would have ended the run while the person thought.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      return { action: 'accept', content: {} };
    });
    const answer = await execute(served.client, `async () => bad.echo({ value: 'approved' })`);
    expect(answer.isError, firstText(answer)).toBeUndefined();
    expect(JSON.parse(firstText(answer))).toStrictEqual({ value: 'approved' });
  }, 60_000);
});
