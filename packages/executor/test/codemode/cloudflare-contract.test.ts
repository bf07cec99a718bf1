/**
 * What @cloudflare/codemode's own tests ask of an executor (its executor.test.ts and
 * e2e/executor.spec.ts for DynamicWorkerExecutor, its mcp.test.ts for codeMcpServer and
 * openApiMcpServer; what its tool.test.ts asks of createCodeTool over a real executor is in
 * packages.test.ts), asked here of IsolateExecutor in this project's words, through real children
 * and the real package. Where the answer differs on purpose, the test pins this executor's answer
 * and docs/codemode.md ("Checked against the package's own tests") lists it with its reason.
 */
import { codeMcpServer, openApiMcpServer } from '@cloudflare/codemode/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { IsolateExecutor } from '../../src/executor/isolate-executor.ts';

const executor = new IsolateExecutor({ poolSize: 1, timeout: 2000 });
afterAll(() => executor.dispose());

type Fn = (...args: unknown[]) => Promise<unknown>;

/** A tool that records every argument list it is called with, and answers with `answer`. */
function recorded(answer: (...args: unknown[]) => unknown): Fn & { calls: unknown[][] } {
  const calls: unknown[][] = [];
  const fn = async (...args: unknown[]) => {
    calls.push(args);
    return answer(...args);
  };
  return Object.assign(fn, { calls });
}

describe('the executor contract (executor.test.ts)', () => {
  test('a program that returns a value, with and without providers', async () => {
    expect(await executor.execute('async () => 6 * 7', [{ name: 'codemode', fns: {} }])).toStrictEqual({
      result: 42,
      logs: [],
    });
    expect(await executor.execute('async () => 6 * 7', [])).toStrictEqual({ result: 42, logs: [] });
  });

  test('a tool is called with the object the program passed, and its answer is the value', async () => {
    const sum = recorded((input) => (input as { x: number; y: number }).x + (input as { y: number }).y);
    const outcome = await executor.execute('async () => codemode.sum({ x: 5, y: 8 })', [
      { name: 'codemode', fns: { sum } },
    ]);
    expect(outcome).toStrictEqual({ result: 13, logs: [] });
    expect(sum.calls).toStrictEqual([[{ x: 5, y: 8 }]]);
  });

  test('bytes cross both ways: a Uint8Array in an object, as a positional argument, and an ArrayBuffer', async () => {
    const echo = recorded((...args) => args.at(-1));
    const outcome = await executor.execute(
      `async () => {
        const inObject = await codemode.echo({ bytes: new Uint8Array([7, 8]) });
        const positional = await files.write('/a.bin', new Uint8Array([9]));
        const buffer = await codemode.echo(new Uint8Array([4, 5, 6]).buffer);
        return {
          inObject: [inObject.bytes instanceof Uint8Array, Array.from(inObject.bytes)],
          positional: [positional instanceof Uint8Array, Array.from(positional)],
          buffer: [buffer instanceof ArrayBuffer, Array.from(new Uint8Array(buffer))],
        };
      }`,
      [
        { name: 'codemode', fns: { echo } },
        { name: 'files', fns: { write: echo } },
      ],
    );
    expect(outcome).toStrictEqual({
      result: { inObject: [true, [7, 8]], positional: [true, [9]], buffer: [true, [4, 5, 6]] },
      logs: [],
    });
    expect(echo.calls).toStrictEqual([
      [{ bytes: new Uint8Array([7, 8]) }],
      ['/a.bin', new Uint8Array([9])],
      [new Uint8Array([4, 5, 6]).buffer],
    ]);
  });

  test('a view crosses as the bytes it shows, not its whole buffer', async () => {
    const echo = recorded((input) => (input as { view: Uint8Array }).view);
    const outcome = await executor.execute(
      'async () => Array.from(await codemode.echo({ view: new Uint8Array([1, 2, 3, 4, 5]).subarray(1, 4) }))',
      [{ name: 'codemode', fns: { echo } }],
    );
    expect(outcome).toStrictEqual({ result: [2, 3, 4], logs: [] });
    expect(echo.calls).toStrictEqual([[{ view: new Uint8Array([2, 3, 4]) }]]);
  });

  test('calls in sequence see each other’s answers; calls in Promise.all all answer, in order', async () => {
    const city = recorded(() => ({ name: 'Oslo' }));
    const weather = recorded((input) => `cold in ${(input as { city: string }).city}`);
    const id = async (input: unknown) => input;
    const outcome = await executor.execute(
      `async () => {
        const { name } = await codemode.city({});
        const report = await codemode.weather({ city: name });
        const all = await Promise.all([1, 2, 3].map((n) => codemode.id({ n })));
        return { report, all };
      }`,
      [{ name: 'codemode', fns: { city, weather, id } }],
    );
    expect(outcome).toStrictEqual({
      result: { report: 'cold in Oslo', all: [{ n: 1 }, { n: 2 }, { n: 3 }] },
      logs: [],
    });
    expect([city.calls.length, weather.calls]).toStrictEqual([1, [[{ city: 'Oslo' }]]]);
  });

  test('a thrown Error and a failing tool are the error, by their message', async () => {
    expect(await executor.execute("async () => { throw new Error('kaput') }", [])).toMatchObject({
      result: undefined,
      error: 'kaput',
    });
    const outcome = await executor.execute('async () => tools.fail({})', [
      {
        name: 'tools',
        fns: {
          fail: async () => {
            throw new Error('the tool gave up');
          },
        },
      },
    ]);
    expect(outcome).toMatchObject({ result: undefined, error: 'the tool gave up' });
  });

  test('console output comes back, warnings prefixed; template literals run as written', async () => {
    expect(
      await executor.execute(
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the program's own template literal
        "async () => { console.log('hi'); console.warn('mind'); return `x${1 + 1}y`; }",
        [],
      ),
    ).toStrictEqual({ result: 'x2y', logs: ['hi', '[warn] mind'] });
  });

  test('fetch has no network by default', async () => {
    const outcome = await executor.execute("async () => (await fetch('https://example.com/')).status", []);
    expect(outcome.result).toBeUndefined();
    expect(outcome.error).toEqual(expect.any(String));
  });

  test('a tool keeps the closure it was made in', async () => {
    const token = 'secret-token-7';
    expect(
      await executor.execute('async () => codemode.token({})', [
        { name: 'codemode', fns: { token: async () => ({ token }) } },
      ]),
    ).toStrictEqual({ result: { token }, logs: [] });
  });

  test("the executor's modules are importable, dynamically too; a module named executor.js replaces nothing", async () => {
    const withModules = new IsolateExecutor({
      poolSize: 1,
      timeout: 2000,
      modules: {
        'hello.js': "export const hello = (who) => 'hello ' + who;",
        'executor.js': 'export default class NotTheExecutor {}',
      },
    });
    try {
      expect(
        await withModules.execute("async () => (await import('hello.js')).hello('there')", []),
      ).toStrictEqual({ result: 'hello there', logs: [] });
      expect(await withModules.execute('async () => 1 + 1', [])).toStrictEqual({ result: 2, logs: [] });
    } finally {
      await withModules.dispose();
    }
  });

  test('code is normalized: a fence is dropped, a bare expression is the result', async () => {
    expect(await executor.execute('```js\n2 + 3\n```', [])).toStrictEqual({ result: 5, logs: [] });
    expect(await executor.execute('41 + 1', [])).toStrictEqual({ result: 42, logs: [] });
  });

  test('a tool name the builder already sanitized is called as it is', async () => {
    const list = recorded(() => [{ id: 1 }]);
    expect(
      await executor.execute('async () => codemode.github_list_issues({})', [
        { name: 'codemode', fns: { github_list_issues: list } },
      ]),
    ).toStrictEqual({ result: [{ id: 1 }], logs: [] });
    expect(list.calls).toStrictEqual([[{}]]);
  });

  test('a timer past the bound ends the run with a text that says it timed out', async () => {
    const short = new IsolateExecutor({ poolSize: 1, timeout: 100 });
    try {
      const outcome = await short.execute(
        "async () => { await new Promise((r) => setTimeout(r, 5000)); return 'late' }",
        [],
      );
      expect(outcome.result).toBeUndefined();
      expect(outcome.error).toContain('timed out');
      expect(outcome.code).toBe('TIMEOUT');
    } finally {
      await short.dispose();
    }
  });

  test('named namespaces, several at once, beside codemode; a namespace’s failure is the error', async () => {
    const add = recorded((input) => (input as { a: number }).a + (input as { b: number }).b);
    const ping = recorded((input) => ({ pong: (input as { n: unknown }).n }));
    const outcome = await executor.execute(
      `async () => {
        const n = await codemode.add({ a: 2, b: 2 });
        return [await echo.ping({ n }), await store.get({}), await cache.get({})];
      }`,
      [
        { name: 'codemode', fns: { add } },
        { name: 'echo', fns: { ping } },
        { name: 'store', fns: { get: async () => 'from store' } },
        { name: 'cache', fns: { get: async () => 'from cache' } },
      ],
    );
    expect(outcome).toStrictEqual({ result: [{ pong: 4 }, 'from store', 'from cache'], logs: [] });
    expect([add.calls, ping.calls]).toStrictEqual([[[{ a: 2, b: 2 }]], [[{ n: 4 }]]]);
    const failed = await executor.execute('async () => broken.go({})', [
      {
        name: 'broken',
        fns: {
          go: async () => {
            throw new Error('namespace down');
          },
        },
      },
    ]);
    expect(failed).toMatchObject({ result: undefined, error: 'namespace down' });
  });

  test('a prelude’s own function shadows the dispatch, and runs the host tools it calls', async () => {
    const decide = recorded((step) => (step === 1 ? { replay: 'kept' } : { run: true }));
    const record = recorded(() => true);
    const prelude = `codemode.step = async (n, fn) => {
      const decision = await codemode.decide(n);
      if (decision.replay !== undefined) return decision.replay;
      const value = await fn();
      await codemode.record(value);
      return value;
    };`;
    const outcome = await executor.execute(
      `async () => {
        let ran = 0;
        const fresh = await codemode.step(0, async () => { ran++; return 'made'; });
        const replayed = await codemode.step(1, async () => { ran++; return 'made again'; });
        return { fresh, replayed, ran };
      }`,
      [{ name: 'codemode', fns: { decide, record }, prelude }],
    );
    expect(outcome).toStrictEqual({ result: { fresh: 'made', replayed: 'kept', ran: 1 }, logs: [] });
    expect([decide.calls, record.calls]).toStrictEqual([[[0], [1]], [['made']]]);
  });

  // From its e2e/executor.spec.ts, which drives the same executor contract over a Worker.
  test('a namespace’s failure, caught, leaves the other namespaces working', async () => {
    const outcome = await executor.execute(
      `async () => {
        try {
          await math.divide({ a: 1, b: 0 });
        } catch (error) {
          return { caught: error.message, sum: await codemode.add({ a: 1, b: 2 }) };
        }
      }`,
      [
        {
          name: 'math',
          fns: {
            divide: async () => {
              throw new Error('Division by zero');
            },
          },
        },
        {
          name: 'codemode',
          fns: { add: async (input: unknown) => (input as { a: number }).a + (input as { b: number }).b },
        },
      ],
    );
    expect(outcome).toStrictEqual({ result: { caught: 'Division by zero', sum: 3 }, logs: [] });
  });

  test('a tool called with several arguments receives each of them', async () => {
    const join = recorded((...words) => words.join(' '));
    expect(
      await executor.execute("async () => state.join('one', 'two', 3)", [{ name: 'state', fns: { join } }]),
    ).toStrictEqual({ result: 'one two 3', logs: [] });
    expect(join.calls).toStrictEqual([['one', 'two', 3]]);
  });

  // Deviations (docs/codemode.md): the refusals' texts, and which names are reserved.
  test('a provider name that hides a global, or that the sandbox binds, is refused naming it', async () => {
    for (const name of ['Promise', 'setTimeout', 'Error', 'console', '__startRun']) {
      const outcome = await executor.execute('async () => 1', [{ name, fns: {} }]);
      expect(outcome.error).toMatch(new RegExp(`^Provider name "${name}" is reserved: `));
      expect(outcome.code).toBe('BAD_REQUEST');
    }
    expect((await executor.execute('async () => 1', [{ name: 'Promise', fns: {} }])).error).toBe(
      'Provider name "Promise" is reserved: it would hide the global Promise that programs rely on.',
    );
  });

  test("names the contract executor's harness binds and this sandbox does not are ordinary names", async () => {
    for (const name of ['__stringifyForCodemode', '__dispatchers', '__connectors']) {
      const outcome = await executor.execute(`async () => ${name}.who({})`, [
        { name, fns: { who: async () => name } },
      ]);
      expect(outcome).toStrictEqual({ result: name, logs: [] });
    }
  });

  // Admitted since the rule names the sandbox's own names only: host-side lookups by provider
  // name must not reach Object.prototype's members of the same name.
  test('a `__` name Object.prototype has serves its own tools only, in both forms', async () => {
    for (const name of ['__defineGetter__', '__lookupGetter__', '__']) {
      const fns = { who: async () => name };
      expect(
        await executor.execute(`async () => [typeof ${name}, await ${name}.who({})]`, [{ name, fns }]),
      ).toStrictEqual({
        result: ['object', name],
        logs: [],
      });
      expect(await executor.execute(`async () => ${name}.toString({})`, [{ name, fns }])).toMatchObject({
        error: `Tool ${name}.toString does not exist: no provider serves it.`,
        errorKind: 'tool-not-found',
      });
      expect(
        await executor.execute({ code: `async () => ${name}.who({})`, providers: [{ name, fns }] }),
      ).toStrictEqual({
        result: name,
        logs: [],
      });
    }
  });

  test('two providers of one name, and two tools that sanitize to one name, are refused', async () => {
    const twice = await executor.execute('async () => 1', [
      { name: 'dup', fns: {} },
      { name: 'dup', fns: {} },
    ]);
    expect(twice).toStrictEqual({
      result: undefined,
      error: 'Provider name "dup" is declared twice; each provider needs its own name.',
      code: 'BAD_REQUEST',
      logs: [],
    });
    const collide = await executor.execute('async () => 1', [
      { name: 'codemode', fns: { 'foo-bar': async () => 1, foo_bar: async () => 2 } },
    ]);
    expect(collide).toStrictEqual({
      result: undefined,
      error:
        'Invalid Code Mode request: the tools "foo-bar" and "foo_bar" of provider codemode are both called foo_bar once their names are made identifiers; rename one of them.',
      code: 'BAD_REQUEST',
      logs: [],
    });
  });
});

/** An MCP client connected to `server` over a linked in-memory pair. */
async function connect(server: McpServer, client = new Client({ name: 'test', version: '1.0.0' })) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return client;
}

const text = (answer: Awaited<ReturnType<Client['callTool']>>) =>
  (answer.content as { type: string; text: string }[]).map((part) => part.text).join('');

describe('codeMcpServer (mcp.test.ts)', () => {
  function upstream(): McpServer {
    const server = new McpServer({ name: 'upstream', version: '1.0.0' });
    server.registerTool('multiply', { inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
      content: [{ type: 'text', text: String(a * b) }],
    }));
    server.registerTool('welcome', { inputSchema: { who: z.string() } }, async ({ who }) => ({
      content: [{ type: 'text', text: `Welcome, ${who}.` }],
    }));
    server.registerTool('rows', { inputSchema: {} }, async () => ({
      content: [{ type: 'text', text: JSON.stringify([{ id: 1 }, { id: 2 }]) }],
    }));
    server.registerTool('account', { inputSchema: { id: z.number() } }, async ({ id }) => ({
      content: [{ type: 'text', text: JSON.stringify({ id, owner: 'Ada', open: false }) }],
    }));
    server.registerTool('two_lines', { inputSchema: {} }, async () => ({
      content: [
        { type: 'text', text: 'first' },
        { type: 'text', text: 'second' },
      ],
    }));
    server.registerTool('refuse', { inputSchema: {} }, async () => ({
      isError: true,
      content: [{ type: 'text', text: 'no such account' }],
    }));
    return server;
  }
  async function code(source: string) {
    const client = await connect(await codeMcpServer({ server: upstream(), executor }));
    try {
      return await client.callTool({ name: 'code', arguments: { code: source } });
    } finally {
      await client.close();
    }
  }

  test('one tool, code, whose description declares the upstream tools', async () => {
    const client = await connect(await codeMcpServer({ server: upstream(), executor }));
    const { tools } = await client.listTools();
    expect(tools.map(({ name }) => name)).toStrictEqual(['code']);
    expect(tools[0]?.description).toContain('multiply');
    expect(tools[0]?.description).toContain('welcome');
    await client.close();
  });

  test('upstream calls, chained; undefined and null answer as their names', async () => {
    expect(text(await code('async () => codemode.multiply({ a: 6, b: 7 })'))).toBe('42');
    expect(
      text(
        await code('async () => codemode.welcome({ who: String(await codemode.multiply({ a: 2, b: 3 })) })'),
      ),
    ).toBe('Welcome, 6.');
    expect(text(await code('async () => undefined'))).toBe('undefined');
    expect(text(await code('async () => null'))).toBe('null');
  });

  test('one JSON text part arrives parsed; several text parts arrive joined', async () => {
    expect(
      JSON.parse(text(await code('async () => (await codemode.rows({})).filter((r) => r.id > 1)'))),
    ).toStrictEqual([{ id: 2 }]);
    expect(
      text(
        await code(
          "async () => { const a = await codemode.account({ id: 3 }); return a.owner + (a.open ? ' open' : ' closed') }",
        ),
      ),
    ).toBe('Ada closed');
    expect(text(await code('async () => codemode.two_lines({})'))).toBe('first\nsecond');
  });

  test('a throw and an upstream isError are errors; the program can catch the latter', async () => {
    const thrown = await code("async () => { throw new Error('no luck') }");
    expect([thrown.isError, text(thrown)]).toStrictEqual([true, 'Error: no luck']);
    const refused = await code('async () => codemode.refuse({})');
    expect([refused.isError, text(refused)]).toStrictEqual([true, 'Error: no such account']);
    expect(
      text(
        await code(
          "async () => { try { await codemode.refuse({}) } catch (e) { return 'caught ' + e.message } }",
        ),
      ),
    ).toBe('caught no such account');
  });

  // Deviation (docs/codemode.md): the unknown tool's text is this executor's.
  test('a tool the upstream does not have is an error naming it', async () => {
    const unknown = await code('async () => codemode.missing({})');
    expect([unknown.isError, text(unknown)]).toStrictEqual([
      true,
      'Error: Tool codemode.missing does not exist: no provider serves it.',
    ]);
  });
});

describe('openApiMcpServer (mcp.test.ts)', () => {
  // Two children: the concurrency test holds two executions open at once, each waiting on the
  // other. The default bound, as the contract's tests use theirs: resolving the large spec below
  // is seconds of work on a loaded machine.
  const executor = new IsolateExecutor({ poolSize: 2 });
  afterAll(() => executor.dispose());
  const spec = {
    openapi: '3.0.0',
    paths: {
      '/orders': { get: { summary: 'List orders', tags: ['orders'] }, post: { summary: 'Place an order' } },
      '/orders/{id}': { get: { summary: 'One order', parameters: [{ name: 'id', in: 'path' }] } },
    },
  };
  type Request = Parameters<typeof openApiMcpServer>[0]['request'];
  async function client(
    request: Request = async () => ({}),
    specification: Record<string, unknown> = spec,
    options = {},
  ) {
    return connect(
      openApiMcpServer({ spec: specification, executor, request }),
      new Client({ name: 'test', version: '1.0.0' }, options),
    );
  }
  const call = (c: Client, name: 'search' | 'execute', source: string) =>
    c.callTool({ name, arguments: { code: source } });

  test('two tools, search and execute', async () => {
    const c = await client();
    expect((await c.listTools()).tools.map(({ name }) => name).sort()).toStrictEqual(['execute', 'search']);
    await c.close();
  });

  test('search reads the spec inside the sandbox', async () => {
    const c = await client();
    expect(
      JSON.parse(text(await call(c, 'search', 'async () => Object.keys((await codemode.spec()).paths)'))),
    ).toStrictEqual(['/orders', '/orders/{id}']);
    expect(
      text(await call(c, 'search', "async () => (await codemode.spec()).paths['/orders'].post.summary")),
    ).toBe('Place an order');
    await c.close();
  });

  // The fix: the execute tool passes its request function as a provider named __openapiHost,
  // which this executor refused while it reserved every `__` name.
  test('execute reaches the host request function through the __openapiHost provider', async () => {
    const seen: unknown[] = [];
    const c = await client(async (options) => {
      seen.push(options);
      return { status: 200, orders: [{ id: 'o-1' }], path: options.path };
    });
    const answer = await call(
      c,
      'execute',
      "async () => codemode.request({ method: 'GET', path: '/orders' })",
    );
    expect([answer.isError, JSON.parse(text(answer))]).toStrictEqual([
      undefined,
      { status: 200, orders: [{ id: 'o-1' }], path: '/orders' },
    ]);
    expect(seen).toStrictEqual([{ method: 'GET', path: '/orders' }]);
    await c.close();
  });

  test('execute: the request function’s failure is the error', async () => {
    const c = await client(async () => {
      throw new Error('forbidden');
    });
    const answer = await call(c, 'execute', "async () => codemode.request({ method: 'GET', path: '/x' })");
    expect([answer.isError, text(answer)]).toStrictEqual([true, 'Error: forbidden']);
    await c.close();
  });

  test('the request function gets the context of the tool call that ran it, concurrent calls each their own', async () => {
    const ids = new Map<string, unknown>();
    let arrived = 0;
    let release = () => {};
    const both = new Promise<void>((resolve) => {
      release = resolve;
    });
    const c = await client(async (options, context) => {
      ids.set(options.path, context.requestId);
      if (++arrived === 2) release();
      await both;
      return { path: options.path, id: context.requestId, signal: context.signal instanceof AbortSignal };
    });
    const answers = await Promise.all(
      ['/a', '/b'].map((path) =>
        call(c, 'execute', `async () => codemode.request({ method: 'GET', path: '${path}' })`),
      ),
    );
    expect(ids.get('/a')).not.toBe(ids.get('/b'));
    expect(answers.map((answer) => JSON.parse(text(answer)))).toStrictEqual([
      { path: '/a', id: ids.get('/a'), signal: true },
      { path: '/b', id: ids.get('/b'), signal: true },
    ]);
    await c.close();
  });

  test('the request function can ask the caller a question for the tool call that ran it', async () => {
    let server: McpServer | undefined;
    server = openApiMcpServer({
      spec,
      executor,
      request: async (options, context) =>
        (server as McpServer).server.elicitInput(
          {
            message: `${options.method} ${options.path}?`,
            requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
          },
          { relatedRequestId: context.requestId, signal: context.signal },
        ),
    });
    const questions: string[] = [];
    const c = new Client({ name: 'test', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    c.setRequestHandler(ElicitRequestSchema, async (request) => {
      questions.push(request.params.message);
      return { action: 'accept', content: { ok: true } };
    });
    await connect(server, c);
    const answer = await call(
      c,
      'execute',
      "async () => codemode.request({ method: 'DELETE', path: '/orders/9' })",
    );
    expect(JSON.parse(text(answer))).toStrictEqual({ action: 'accept', content: { ok: true } });
    expect(questions).toStrictEqual(['DELETE /orders/9?']);
    await c.close();
  });

  test('$refs: resolved in place, external kept, missing undefined, cycles marked, results not shared', async () => {
    const withRefs = {
      openapi: '3.0.0',
      paths: {
        '/a': { get: { responses: { '200': { schema: { $ref: '#/components/schemas/Item' } } } } },
        '/b': { get: { responses: { '200': { schema: { $ref: '#/components/schemas/Item' } } } } },
        '/far': { get: { responses: { '200': { schema: { $ref: 'other.json#/Thing' } } } } },
        '/gone': { get: { responses: { '200': { schema: { $ref: '#/components/schemas/Gone' } } } } },
        '/tree': { get: { responses: { '200': { schema: { $ref: '#/components/schemas/Tree' } } } } },
      },
      components: {
        schemas: {
          Item: { type: 'object', properties: { id: { type: 'string' } } },
          Tree: { type: 'object', properties: { next: { $ref: '#/components/schemas/Tree' } } },
        },
      },
    };
    const c = await client(async () => ({}), withRefs);
    const answer = await call(
      c,
      'search',
      `async () => {
        const { paths } = await codemode.spec();
        const schema = (path) => paths[path].get.responses['200'].schema;
        const a = schema('/a');
        a.properties.id.type = 'number';
        return {
          a, separate: a !== schema('/b'), b: schema('/b').properties.id.type,
          far: schema('/far'), gone: String(schema('/gone')), next: schema('/tree').properties.next,
        };
      }`,
    );
    expect(JSON.parse(text(answer))).toStrictEqual({
      a: { type: 'object', properties: { id: { type: 'number' } } },
      separate: true,
      b: 'string',
      far: { $ref: 'other.json#/Thing' },
      gone: 'undefined',
      next: { $circular: '#/components/schemas/Tree' },
    });
    await c.close();
  });

  test('a long search result comes back truncated, saying so', async () => {
    const c = await client();
    const answer = text(await call(c, 'search', "async () => 'y'.repeat(30000)"));
    expect(answer).toContain('--- TRUNCATED ---');
    expect(answer.length).toBeLessThan(30000);
    await c.close();
  });

  // The contract's test has 2000 operations; they pass here too, in 47 s on the shared 2-core
  // machine (the runtime's structuredClone, which the resolver calls per $ref, is the cost:
  // docs/codemode.md). 200 check the same behaviour in a tenth of the time.
  test('a spec of 200 operations that share one large schema is resolved inside the sandbox', async () => {
    const big = {
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: 200 }, (_, i) => [`p${i}`, { type: 'string', description: 'd'.repeat(100) }]),
      ),
    };
    const large = {
      openapi: '3.1.0',
      paths: Object.fromEntries(
        Array.from({ length: 200 }, (_, i) => [
          `/things/${i}`,
          { get: { responses: { '200': { schema: { $ref: '#/components/schemas/Big' } } } } },
        ]),
      ),
      components: { schemas: { Big: big } },
    };
    const c = await client(async () => ({}), large);
    expect(
      text(await call(c, 'search', 'async () => Object.keys((await codemode.spec()).paths).length')),
    ).toBe('200');
    await c.close();
  }, 120_000);
});
