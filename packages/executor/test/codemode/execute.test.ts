/**
 * The Code Mode form, `execute(code, providersOrFns, options?)`, through real children: the
 * contract's result shape, providers and the deprecated fns record, preludes, connectors, the
 * sanitized names, imports, the failures a program can meet, and bad arguments answered as error
 * results. The real package drives the same executor in packages.test.ts.
 */
import type { Executor } from '@cloudflare/codemode';
import { normalizeCode } from '@cloudflare/codemode';
import { afterAll, describe, expect, test } from 'vitest';
import {
  CONNECTORS_MESSAGE,
  connectorMessage,
  EMPTY_ERROR_MESSAGE,
  OPTIONS_MESSAGE,
  PROVIDERS_MESSAGE,
  providerMessage,
} from '../../src/codemode/errors.ts';
import { IsolateExecutor } from '../../src/executor/isolate-executor.ts';

const executor = new IsolateExecutor({
  poolSize: 1,
  timeout: 2000,
  modules: { 'units.js': 'export const cents = (n) => Math.round(n * 100); export default "EUR"' },
});
afterAll(() => executor.dispose());

// Type-level: the contract's own interface accepts this executor as it is.
const asExecutor: Executor = executor;

describe('the result', () => {
  test('{ result, logs } with logs as strings, warnings and errors prefixed', async () => {
    const outcome = await asExecutor.execute(
      `async () => { console.log('a', 1, { b: 2 }); console.warn('careful'); console.error('bad', 'worse'); return [1, 'two'] }`,
      [],
    );
    expect(outcome).toStrictEqual({
      result: [1, 'two'],
      logs: ['a 1 [object Object]', '[warn] careful', '[error] bad worse'],
    });
  });

  test('a run that returns nothing still has its result key', async () => {
    const outcome = await executor.execute('async () => {}', []);
    expect(Object.hasOwn(outcome, 'result')).toBe(true);
    expect(outcome).toStrictEqual({ result: undefined, logs: [] });
  });
});

describe('providers', () => {
  test('several namespaces, each with its fns; a prelude adds to its namespace', async () => {
    const outcome = await executor.execute(
      `async () => [await math.add(2, 3), await db.get('k'), await math.square(4)]`,
      [
        {
          name: 'math',
          fns: { add: async (...args: unknown[]) => (args[0] as number) + (args[1] as number) },
          prelude: `math.square = async (x) => (await math.add(x * x, 0));`,
        },
        { name: 'db', fns: { get: async (...args: unknown[]) => ({ key: args[0] }) } },
      ],
    );
    expect(outcome).toStrictEqual({ result: [5, { key: 'k' }, 16], logs: [] });
  });

  test('a bare record of fns (deprecated in the contract) is served as codemode', async () => {
    const outcome = await executor.execute(`async () => codemode.hello('you')`, {
      hello: async (...args: unknown[]) => `hello ${args[0]}`,
    });
    expect(outcome).toStrictEqual({ result: 'hello you', logs: [] });
  });

  test('raw tool names are called under their sanitized names, and only under those', async () => {
    const outcome = await executor.execute(
      `async () => [await codemode.get_stock({ sku: 'a1' }), await codemode.delete_(), await codemode._3d()]
        .concat(await codemode['get-stock']().catch((error) => error.message))`,
      [
        {
          name: 'codemode',
          fns: {
            'get-stock': async (...args: unknown[]) => (args[0] as { sku: string }).sku,
            delete: async () => 'deleted',
            '3d': async () => 'three',
          },
        },
      ],
    );
    expect(outcome.result).toStrictEqual([
      'a1',
      'deleted',
      'three',
      'Tool codemode.get-stock does not exist: no provider serves it.',
    ]);
  });
});

describe('failures come back as errors', () => {
  test('a tool that throws: the program meets its message, and an uncaught one fails the run', async () => {
    const fns = {
      fail: async () => {
        throw new Error('the database is down');
      },
    };
    expect(
      (
        await executor.execute(
          `async () => codemode.fail().catch((error) => 'caught: ' + error.message)`,
          fns,
        )
      ).result,
    ).toBe('caught: the database is down');
    expect(
      await executor.execute(`async () => { console.log('before'); await codemode.fail() }`, fns),
    ).toStrictEqual({
      result: undefined,
      error: 'the database is down',
      logs: ['before'],
      errorKind: 'tool-failed',
      errorName: 'Error',
      // Which call failed, at the model's position (issue 26 item 4).
      errorProvider: 'codemode',
      errorTool: 'fail',
      errorAt: 'executor.js:1:53',
    });
  });

  // An Error has a name and a frame as well (docs/codemode.md, "Errors").
  const anError = { errorName: 'Error', errorStack: '    at executor.js:1:21' };
  test.each([
    ['a string', `throw 'plain text'`, 'plain text', {}],
    ['undefined', 'throw undefined', 'undefined', {}],
    ['an object', 'throw { reason: 1 }', '[object Object]', { errorJson: '{"reason":1}' }],
    ['an Error without a message', 'throw new Error()', EMPTY_ERROR_MESSAGE, anError],
    ['an empty string', `throw ''`, EMPTY_ERROR_MESSAGE, {}],
  ])('a thrown %s is an error, never a success', async (_what, statement, error, details) => {
    const outcome = await executor.execute(`async () => { ${statement} }`, []);
    expect(outcome).toStrictEqual({ result: undefined, error, logs: [], errorKind: 'thrown', ...details });
  });

  test('a run past the bound ends with TIMEOUT, keeping what it logged', async () => {
    const outcome = await executor.execute(`async () => { console.log('spinning'); for (;;) {} }`, []);
    expect(outcome).toMatchObject({ result: undefined, code: 'TIMEOUT', logs: ['spinning'] });
    expect(outcome.error).toContain('2000 ms');
  });

  test("options.signal, this executor's addition, ends the run with CANCELLED when aborted", async () => {
    const controller = new AbortController();
    const started = executor.execute(
      `async () => { await tools.started(); await new Promise(() => {}); }`,
      [{ name: 'tools', fns: { started: async () => controller.abort() } }],
      { signal: controller.signal },
    );
    const outcome = await started;
    expect(outcome.code).toBe('CANCELLED');
    expect(outcome.result).toBeUndefined();
  });

  test('an options.signal that is no AbortSignal is BAD_REQUEST', async () => {
    const outcome = await executor.execute('async () => 1', [], { signal: 'stop' as never });
    expect(outcome).toMatchObject({ code: 'BAD_REQUEST', error: 'options.signal must be an AbortSignal.' });
  });

  test('fetch has no network, as with the contract executor default of globalOutbound null', async () => {
    const outcome = await executor.execute(
      `async () => fetch('http://127.0.0.1:9/').catch((error) => error.message)`,
      [],
    );
    expect(outcome.result).toBe(
      'Outbound network access is disabled for this execution, so fetch cannot reach the network.',
    );
  });
});

describe('connectors', () => {
  test('each call goes to binding.callTool(tool, first argument), unsanitized', async () => {
    const calls: unknown[] = [];
    const outcome = await executor.execute(
      `async () => github['list-issues']({ repo: 'x' }, 'ignored')`,
      [],
      {
        connectors: [
          {
            name: 'github',
            binding: {
              callTool: async (method: string, args: unknown) => {
                calls.push([method, args]);
                return [{ number: 1 }];
              },
            },
          },
        ],
      },
    );
    expect(outcome).toStrictEqual({ result: [{ number: 1 }], logs: [] });
    expect(calls).toStrictEqual([['list-issues', { repo: 'x' }]]);
  });

  test('a rejection, and an error or pause control value, reach the program as thrown errors', async () => {
    const outcome = await executor.execute(
      `async () => Promise.all(['reject', 'control', 'pause'].map((tool) => svc[tool]().catch((error) => error.message)))`,
      { helper: async () => 1 },
      {
        connectors: [
          {
            name: 'svc',
            binding: {
              callTool: async (method: string) => {
                if (method === 'reject') throw new Error('rejected');
                if (method === 'control') return { __codemode_control__: 'error', message: 'denied' };
                return { __codemode_control__: 'pause' };
              },
            },
          },
        ],
      },
    );
    expect(outcome.result).toStrictEqual(['rejected', 'denied', '__CODEMODE_PAUSE__']);
  });
});

describe('code', () => {
  test("createCodeTool's wrapper around imports is undone: the module map serves them", async () => {
    const code = normalizeCode(
      `import currency, { cents } from 'units.js';\nasync () => cents(await codemode.price()) + ' ' + currency`,
    );
    const outcome = await executor.execute(code, { price: async () => 12.5 });
    expect(outcome).toStrictEqual({ result: '1250 EUR', logs: [] });
  });

  test('statements as a model writes them run as the body of an arrow', async () => {
    const outcome = await executor.execute(
      '```js\nconst price = await codemode.price();\nconsole.log(price);\nprice * 2\n```',
      { price: async () => 21 },
    );
    expect(outcome).toStrictEqual({ result: 42, logs: ['21'] });
  });

  test('TypeScript is erased by default', async () => {
    const outcome = await executor.execute('const n: number = 4;\nreturn (n as number) * 2', []);
    expect(outcome).toStrictEqual({ result: 8, logs: [] });
  });

  // Issue 26 item 6: imports with a top-level return read neither as a module nor inside a
  // function, so only the TypeScript shape with both failed; each neighbour runs alike.
  test.each([
    [
      'TypeScript statements with an import and a top-level return',
      "import c from 'units.js';\nconst n: number = 4;\nreturn c + n",
    ],
    ['the same without the return', "import c from 'units.js';\nconst n: number = 4;\nc + n"],
    ['the same without the import', "const c: string = 'EUR';\nconst n: number = 4;\nreturn c + n"],
    ['the same in JavaScript', "import c from 'units.js';\nconst n = 4;\nreturn c + n"],
    [
      'a type-only import beside it',
      "import type { X } from 'x.ts';\nimport c from 'units.js';\nconst n: X = 4;\nreturn c + n",
    ],
    [
      'an import after the statements',
      "const n: number = 4;\nimport c from 'units.js';\nif (n > 9) return 'no';\nreturn c + n",
    ],
  ])('%s', async (_what, code) => {
    expect(await executor.execute(code, [])).toStrictEqual({ result: 'EUR4', logs: [] });
  });
});

describe('bad arguments are error results with BAD_REQUEST, never a rejection', () => {
  test.each([
    ['providers that are null', null, undefined, PROVIDERS_MESSAGE],
    ['providers that are a string', 'codemode', undefined, PROVIDERS_MESSAGE],
    ['a provider without fns', [{ name: 'x' }], undefined, providerMessage(0)],
    ['a provider without a name', [{ name: 'ok', fns: {} }, { fns: {} }], undefined, providerMessage(1)],
    ['options that are not an object', [], 'fast', OPTIONS_MESSAGE],
    ['connectors that are not a list', [], { connectors: {} }, CONNECTORS_MESSAGE],
    ['a connector without callTool', [], { connectors: [{ name: 'x', binding: {} }] }, connectorMessage(0)],
    [
      'a connector named like a provider',
      [{ name: 'x', fns: {} }],
      { connectors: [{ name: 'x', binding: { callTool: () => 1 } }] },
      'Provider name "x" is declared twice; each provider needs its own name.',
    ],
    [
      'a provider name that is not an identifier',
      [{ name: 'my-tools', fns: {} }],
      undefined,
      'Provider name "my-tools" is not a valid JavaScript identifier, so code could not call name.tool().',
    ],
  ])('%s', async (_what, providers, options, error) => {
    const outcome = await executor.execute('async () => 1', providers as never, options as never);
    expect(outcome).toStrictEqual({ result: undefined, error, code: 'BAD_REQUEST', logs: [] });
  });
});

test('the object form still answers on the same executor, with its own envelope', async () => {
  const envelope = await executor.execute({ code: `async () => { console.warn('w'); return 1 }` });
  expect(envelope).toStrictEqual({ result: 1, logs: [{ level: 'warn', text: 'w' }] });
});
