/**
 * Tools that need approval in code mode (docs/codemode.md, "Tools that need approval"), with the
 * real `@cloudflare/codemode` package: its createCodeTool drops every AI SDK tool with
 * `needsApproval`, so the program could never call one. The documented way keeps them: each such
 * tool is handed to createCodeTool without the flag and with an execute that pauses the run when
 * approval is needed (a function-valued `needsApproval` is asked with the real arguments), and
 * createCodeTool is given an executor that runs the Code Mode form durably. A pause comes back
 * with the pending call; the application asks the person, runs the tool itself when they approve,
 * and resumes the paused run with its result (or with their refusal), through the Code Mode form.
 */
import { randomBytes } from 'node:crypto';
import { createCodeTool } from '@cloudflare/codemode/ai';
import { type Tool, type ToolExecutionOptions, type ToolSet, tool } from 'ai';
import { afterAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import type { CodeModeProviders, CodeModeResult } from '../../src/codemode/contract.ts';
import { DurableKeyRing } from '../../src/durable/keys.ts';
import { pause } from '../../src/durable/pause.ts';
import { IsolateExecutor } from '../../src/executor/isolate-executor.ts';

const executor = new IsolateExecutor({
  poolSize: 1,
  timeout: 5000,
  durable: { keys: new DurableKeyRing({ keys: [{ id: 'k1', key: randomBytes(32) }] }) },
});
afterAll(() => executor.dispose());

/** The docs' helper: every tool that needs approval kept, its execute pausing when approval is needed. */
function keepForApproval(tools: ToolSet): ToolSet {
  const kept: ToolSet = {};
  for (const [name, original] of Object.entries(tools)) {
    const { needsApproval, execute, ...rest } = original as Tool & { needsApproval?: unknown };
    if (needsApproval === undefined || needsApproval === false || execute === undefined) {
      kept[name] = original;
      continue;
    }
    kept[name] = {
      ...rest,
      execute: async (input: unknown, options: ToolExecutionOptions<unknown>) => {
        const needed = typeof needsApproval === 'function' ? await needsApproval(input, options) : true;
        if (needed) pause({ tool: name, input }, { reason: 'approval' });
        return execute(input as never, options as never);
      },
    } as Tool;
  }
  return kept;
}

/** How the AI SDK calls a tool: what createCodeTool's own execute is called with here. */
const CALL = { toolCallId: 'call-1', messages: [], context: undefined } as ToolExecutionOptions<unknown>;

const refunds: unknown[] = [];
const shopTools = {
  order: tool({
    description: 'An order by id',
    inputSchema: z.object({ id: z.string() }),
    execute: async ({ id }) => ({ id, total: id === 'A-1' ? 40 : 400 }),
  }),
  refund: tool({
    description: 'Refunds an order',
    inputSchema: z.object({ id: z.string(), amount: z.number() }),
    needsApproval: true,
    execute: async ({ id, amount }) => {
      refunds.push([id, amount]);
      return { refunded: amount };
    },
  }),
  credit: tool({
    description: 'Credits a customer; above 100 a person approves',
    inputSchema: z.object({ amount: z.number() }),
    needsApproval: async ({ amount }) => amount > 100,
    execute: async ({ amount }) => ({ credited: amount }),
  }),
};

/** createCodeTool's executor: the Code Mode form run durably for one user, each pause kept for the application. */
function durableExecutor(
  principal: string,
  pauses: { code: string; providers: CodeModeProviders; result: CodeModeResult }[],
) {
  return {
    execute: async (code: string, providers: CodeModeProviders) => {
      const result = await executor.execute(code, providers, { durable: true, principal });
      if (result.paused) pauses.push({ code, providers, result });
      return result;
    },
  };
}

const PROGRAM = `async () => {
  const order = await shop.order({ id: 'A-1' });
  const credit = await shop.credit({ amount: 20 });
  const refund = await shop.refund({ id: order.id, amount: order.total });
  return { order, credit, refund };
}`;

describe('tools that need approval in code mode', () => {
  test('createCodeTool drops them unless they are kept, and offers the kept ones to the program', async () => {
    const dropped = createCodeTool({ tools: [{ name: 'shop', tools: shopTools }], executor });
    expect(dropped.description).not.toContain('refund');
    const kept = createCodeTool({ tools: [{ name: 'shop', tools: keepForApproval(shopTools) }], executor });
    expect(kept.description).toContain('refund');
  });

  test('a kept tool pauses the durable run; approved, the application runs it and the run resumes to its end', async () => {
    const pauses: { code: string; providers: CodeModeProviders; result: CodeModeResult }[] = [];
    const codeTool = createCodeTool({
      tools: [{ name: 'shop', tools: keepForApproval(shopTools) }],
      executor: durableExecutor('user-7', pauses),
    });
    refunds.length = 0;
    const first = await codeTool.execute?.({ code: PROGRAM }, CALL);
    expect(first).toMatchObject({ result: undefined });
    expect(pauses).toHaveLength(1);
    const { code, providers, result } = pauses[0] as (typeof pauses)[number];
    // The credit of 20 needed no approval; the refund did, and has not happened.
    expect(result.paused?.data).toStrictEqual({ tool: 'refund', input: { id: 'A-1', amount: 40 } });
    const pending = result.paused?.pending[0];
    expect([pending?.provider, pending?.tool]).toStrictEqual(['shop', 'refund']);
    expect(refunds).toStrictEqual([]);
    // The person approves: the application runs the tool with the pending call's arguments.
    const [input] = JSON.parse(pending?.args as string) as [{ id: string; amount: number }];
    const done = await shopTools.refund.execute?.(input, CALL as never);
    const resumed = await executor.resume(
      result.paused?.token,
      { [pending?.sequence as number]: { result: done } },
      code,
      providers,
      { principal: 'user-7' },
    );
    expect(resumed.error).toBeUndefined();
    expect(resumed.result).toStrictEqual({
      order: { id: 'A-1', total: 40 },
      credit: { credited: 20 },
      refund: { refunded: 40 },
    });
    expect(refunds).toStrictEqual([['A-1', 40]]);
  });

  test('refused, the program sees the tool fail with the refusal; another principal cannot resume it', async () => {
    const pauses: { code: string; providers: CodeModeProviders; result: CodeModeResult }[] = [];
    const codeTool = createCodeTool({
      tools: [{ name: 'shop', tools: keepForApproval(shopTools) }],
      executor: durableExecutor('user-8', pauses),
    });
    await codeTool.execute?.(
      {
        code: `async () => {
          try { return await shop.credit({ amount: 500 }); } catch (error) { return 'not credited: ' + error.message; }
        }`,
      },
      CALL,
    );
    const { code, providers, result } = pauses[0] as (typeof pauses)[number];
    expect(result.paused?.data).toStrictEqual({ tool: 'credit', input: { amount: 500 } });
    const sequence = result.paused?.pending[0]?.sequence as number;
    const answers = { [sequence]: { error: 'The person declined.' } };
    const stranger = await executor.resume(result.paused?.token, answers, code, providers, {
      principal: 'user-9',
    });
    expect(stranger.code).toBe('TOKEN_MISMATCH');
    const refused = await executor.resume(result.paused?.token, answers, code, providers, {
      principal: 'user-8',
    });
    expect(refused.result).toBe('not credited: The person declined.');
  });

  test('without durable, the Code Mode form runs as before: a kept tool that needs approval fails the call', async () => {
    const outcome = await executor.execute(
      'async () => { try { return await shop.refund({ id: "A-1", amount: 1 }); } catch (e) { return e.message; } }',
      [{ name: 'shop', fns: { refund: keepForApproval(shopTools).refund?.execute as never } }],
    );
    expect(outcome.paused).toBeUndefined();
    expect(outcome.result).toMatch(/^The tool asked to pause the run, but the run is not durable/);
  });
});
