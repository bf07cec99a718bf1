/**
 * The real `@cloudflare/codemode` (0.5.x, from npm) driving IsolateExecutor: `createCodeTool` of
 * `/ai` (loaded through the vitest alias of `cloudflare:workers`) and of `/tanstack-ai`,
 * `codeMcpServer` of `/mcp` through a real MCP client, and the root entry's `runCode`, which is
 * how every one of them calls the executor, for what only the executor's arguments can carry
 * (a prelude, connectors).
 */
import { runCode } from '@cloudflare/codemode';
import { createCodeTool as createAiCodeTool } from '@cloudflare/codemode/ai';
import { codeMcpServer } from '@cloudflare/codemode/mcp';
import { createCodeTool as createTanstackCodeTool, tanstackTools } from '@cloudflare/codemode/tanstack-ai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { NESTING_LIMIT } from '@supolka/codemode-protocol';
import { type Tool as TanstackTool, toolDefinition } from '@tanstack/ai';
import { tool } from 'ai';
import { afterAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { IsolateExecutor } from '../../src/executor/isolate-executor.ts';
import { CODE_NAME, nestingMessage } from '../../src/sandbox/sources/nesting-scan.ts';

const executor = new IsolateExecutor({
  poolSize: 1,
  timeout: 2000,
  modules: { 'format.js': "export const money = (n) => n.toFixed(2) + ' EUR'" },
});
afterAll(() => executor.dispose());

const forecasts: Record<string, number> = { Oslo: -3, Lisbon: 19 };

describe('@cloudflare/codemode/ai createCodeTool', () => {
  const codeTool = createAiCodeTool({
    executor,
    tools: [
      {
        name: 'weather',
        tools: {
          'get-forecast': tool({
            description: 'Tomorrow in a city',
            inputSchema: z.object({ city: z.string() }),
            execute: async ({ city }) => ({ city, celsius: forecasts[city] ?? null }),
          }),
        },
      },
      {
        tools: {
          add: tool({
            inputSchema: z.object({ a: z.number(), b: z.number() }),
            execute: async ({ a, b }) => a + b,
          }),
          explode: tool({
            inputSchema: z.object({}),
            execute: async (): Promise<string> => {
              throw new Error('the reactor tripped');
            },
          }),
        },
      },
    ],
  });
  const run = (code: string) =>
    (codeTool.execute as (input: { code: string }, options: unknown) => Promise<unknown>)(
      { code },
      { toolCallId: 'call-1', messages: [], context: {} },
    );

  test('the model is told the sanitized names, and calls under them reach the raw-named tools', async () => {
    expect(codeTool.description).toContain('get_forecast: (input: GetForecastInput)');
    await expect(
      run(`async () => {
        const oslo = await weather.get_forecast({ city: 'Oslo' });
        console.log('Oslo is', oslo.celsius);
        console.warn('cold');
        return codemode.add({ a: oslo.celsius, b: 10 });
      }`),
    ).resolves.toStrictEqual({ result: 7, logs: ['Oslo is -3', '[warn] cold'] });
  });

  test('a failing tool, and input its schema refuses, fail the call with their text and the logs', async () => {
    await expect(
      run(`async () => { console.error('about to'); return codemode.explode({}) }`),
    ).rejects.toThrow('Code execution failed: the reactor tripped\n\nConsole output:\n[error] about to');
    await expect(run(`async () => codemode.add({ a: 'one' })`)).rejects.toThrow(
      /^Code execution failed: .*number/s,
    );
  });

  test('a timeout fails the call', async () => {
    await expect(run('async () => { for (;;) {} }')).rejects.toThrow(
      /^Code execution failed: Execution timed out at its 2000 ms bound/,
    );
  });

  test('imports at the top survive its normalizeCode: the module map serves them', async () => {
    await expect(
      run(`import { money } from 'format.js';\nasync () => money(await codemode.add({ a: 1, b: 0.5 }))`),
    ).resolves.toStrictEqual({ result: '1.50 EUR' });
  });

  test('statements, as a model often writes them, run too', async () => {
    await expect(run(`const r = await codemode.add({ a: 2, b: 2 });\nr * 10`)).resolves.toStrictEqual({
      result: 40,
    });
  });

  // Its normalizeCode cannot read TypeScript and wraps an annotated arrow whole, uncalled: the
  // result was undefined, silently, until the wrapper was recognised.
  test('a TypeScript-annotated arrow runs: generics, as, satisfies, interfaces and type-only imports', async () => {
    await expect(
      run(
        'async (): Promise<number> => { const n: number = await codemode.add({ a: 1, b: 2 }); return n * 2 }',
      ),
    ).resolves.toStrictEqual({ result: 6 });
    await expect(
      run(`import type { Forecast } from 'types.ts';
interface Reading { city: string; celsius: number | null }
async <T extends string>(): Promise<string> => {
  const city = 'Lisbon' as T;
  const reading = (await weather.get_forecast({ city })) satisfies Reading;
  return \`\${reading.city}: \${reading.celsius as number}\`;
}`),
    ).resolves.toStrictEqual({ result: 'Lisbon: 19' });
    await expect(
      run(
        `import { money } from 'format.js';\nasync (): Promise<string> => money((await codemode.add({ a: 1, b: 1 })) as number)`,
      ),
    ).resolves.toStrictEqual({ result: '2.00 EUR' });
  });

  test('annotated statements run, their last expression the result, as without the annotations', async () => {
    await expect(
      run('const r: number = await codemode.add({ a: 2, b: 2 });\n(r as number) * 10'),
    ).resolves.toStrictEqual({ result: 40 });
  });

  test('annotated code nested past NESTING_LIMIT is refused before any parser in this process reads it', async () => {
    const deep = `async (): Promise<number> => ${'('.repeat(NESTING_LIMIT + 1)}1${')'.repeat(NESTING_LIMIT + 1)}`;
    await expect(run(deep)).rejects.toThrow(`Code execution failed: ${nestingMessage(CODE_NAME, 2)}`);
  });
});

describe('@cloudflare/codemode/tanstack-ai createCodeTool', () => {
  const lookup = toolDefinition({
    name: 'find-product',
    description: 'A product by its id',
    inputSchema: z.object({ id: z.string() }),
  }).server(async ({ id }) => ({ id, price: 12.5 }));
  const stock = toolDefinition({
    name: 'stock.count',
    description: 'Units in stock',
    inputSchema: z.object({ id: z.string() }),
  }).server(async () => 3);
  // TanStack's server tools are not its own Tool type under this project's exactOptionalPropertyTypes.
  const asTools = (...tools: unknown[]) => tools as TanstackTool[];
  const codeTool = createTanstackCodeTool({
    executor,
    tools: [tanstackTools(asTools(lookup), 'shop'), tanstackTools(asTools(stock))],
  });
  const run = (code: string) => (codeTool.execute as (input: { code: string }) => Promise<unknown>)({ code });

  test('several providers, sanitized names, console output', async () => {
    expect(codeTool.description).toContain('find_product');
    await expect(
      run(`async () => {
        const product = await shop.find_product({ id: 'p1' });
        const count = await codemode.stock_count({ id: 'p1' });
        console.log('in stock:', count);
        return product.price * count;
      }`),
    ).resolves.toStrictEqual({ result: 37.5, logs: ['in stock: 3'] });
  });

  test('a thrown non-Error fails the call instead of passing as a success', async () => {
    await expect(run(`async () => { throw 'not an Error' }`)).rejects.toThrow(
      'Code execution failed: not an Error',
    );
  });
});

describe('@cloudflare/codemode/mcp codeMcpServer, through a real MCP client', () => {
  async function connect(): Promise<Client> {
    const upstream = new McpServer({ name: 'stocks', version: '1.0.0' });
    upstream.registerTool(
      'get-stock',
      { description: 'The price of a stock', inputSchema: { symbol: z.string() } },
      async ({ symbol }) => ({ content: [{ type: 'text', text: JSON.stringify({ symbol, price: 101 }) }] }),
    );
    upstream.registerTool('halt-trading', { inputSchema: {} }, async () => ({
      isError: true,
      content: [{ type: 'text', text: 'trading is closed' }],
    }));
    const server = await codeMcpServer({ server: upstream, executor });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(clientSide);
    return client;
  }
  const text = (answer: Awaited<ReturnType<Client['callTool']>>) =>
    (answer.content as { type: string; text: string }[]).map((part) => part.text).join('');

  test('one code tool, whose program calls the upstream tools by their sanitized names', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map(({ name }) => name)).toStrictEqual(['code']);
    expect(tools[0]?.description).toContain('codemode.get_stock(');
    const answer = await client.callTool({
      name: 'code',
      arguments: { code: `async () => (await codemode.get_stock({ symbol: 'NET' })).price * 2` },
    });
    expect(answer.isError).toBeFalsy();
    expect(text(answer)).toBe('202');
    await client.close();
  });

  test('raw statements (which it passes on unnormalized), a failing tool, a timeout', async () => {
    const client = await connect();
    const call = (code: string) => client.callTool({ name: 'code', arguments: { code } });
    expect(text(await call(`const s = await codemode.get_stock({ symbol: 'A' });\ns.symbol + s.price`))).toBe(
      'A101',
    );
    const failed = await call('async () => codemode.halt_trading({})');
    expect([failed.isError, text(failed)]).toStrictEqual([true, 'Error: trading is closed']);
    const timedOut = await call('async () => { for (;;) {} }');
    expect(timedOut.isError).toBe(true);
    expect(text(timedOut)).toMatch(/^Error: Execution timed out at its 2000 ms bound/);
    await client.close();
  });
});

describe("the root entry's runCode, for what only the executor's arguments carry", () => {
  test('a prelude: local helpers on the namespace, beside the dispatched tools', async () => {
    const outcome = await runCode({
      executor,
      code: 'async () => codemode.step("double", async () => (await codemode.base()) * 2)',
      providers: [
        {
          name: 'codemode',
          fns: { base: async () => 21 },
          prelude: 'codemode.step = async (name, fn) => { console.log("step", name); return fn(); };',
        },
      ],
    });
    expect(outcome).toStrictEqual({ result: 42, logs: ['step double'] });
  });

  test('connectors: each call reaches binding.callTool', async () => {
    const outcome = await runCode({
      executor,
      code: `async () => github.search_issues({ q: 'bug' })`,
      providers: [],
      connectors: [{ name: 'github', binding: { callTool: async (method, args) => ({ method, args }) } }],
    });
    expect(outcome).toStrictEqual({ result: { method: 'search_issues', args: { q: 'bug' } } });
  });
});
