/**
 * The envelope's errorKind, errorName and errorStack through a real server and ExecutorClient:
 * tools served on the client's side, the pool's child in between, and the client's schema on the
 * way back (docs/protocol.md, "The result envelope").
 */
import { OUTBOUND_DISABLED_MESSAGE, toolNotFoundMessage } from '@supolka/codemode-protocol';
import { describe, expect, test } from 'vitest';
import { connect, useServer } from './helpers.ts';

const setup = useServer();

const kv = {
  name: 'kv',
  fns: {
    get: () => {
      throw new Error('kv is down');
    },
  },
};

describe('over the socket', () => {
  test("a tool that threw on the client's side is tool-failed; an unknown one is tool-not-found", async () => {
    const client = await connect(setup.server);
    expect(await client.execute({ code: 'async () => kv.get()', providers: [kv] })).toStrictEqual({
      result: undefined,
      error: 'kv is down',
      logs: [],
      errorKind: 'tool-failed',
      errorName: 'Error',
      // Which call, and where (issue 26 item 4): a client of version 3 gets them.
      errorProvider: 'kv',
      errorTool: 'get',
      errorAt: 'executor.js:1:16',
    });
    expect(await client.execute({ code: 'async () => kv.nope()', providers: [kv] })).toStrictEqual({
      result: undefined,
      error: toolNotFoundMessage('kv', 'nope'),
      logs: [],
      errorKind: 'tool-not-found',
      errorName: 'Error',
      errorProvider: 'kv',
      errorTool: 'nope',
      errorAt: 'executor.js:1:16',
    });
    client.close();
  });

  test('a syntax error reads at the line the author wrote; a throw carries its frames', async () => {
    const client = await connect(setup.server);
    expect(await client.execute({ code: 'async () => {\n  let y x\n}' })).toStrictEqual({
      result: undefined,
      error: "Unexpected identifier 'x' [executor.js:2:9]",
      logs: [],
      errorKind: 'syntax',
      errorName: 'SyntaxError',
    });
    expect(
      await client.execute({ code: 'async () => {\n  await null\n  throw new RangeError("far")\n}' }),
    ).toStrictEqual({
      result: undefined,
      error: 'far',
      logs: [],
      errorKind: 'thrown',
      errorName: 'RangeError',
      errorStack: '    at executor.js:3:9',
    });
    client.close();
  });

  test('disabled fetch and a missing module keep their kinds across the child and the socket', async () => {
    const client = await connect(setup.server);
    expect(await client.execute({ code: 'async () => fetch("https://example.com/")' })).toMatchObject({
      error: OUTBOUND_DISABLED_MESSAGE,
      errorKind: 'outbound-disabled',
    });
    expect(await client.execute({ code: 'import x from "./gone.js"\nasync () => x' })).toMatchObject({
      errorKind: 'module-not-found',
    });
    client.close();
  });

  test('a forged kind is a throw, and a coded envelope has no kind', async () => {
    const client = await connect(setup.server);
    const forged = await client.execute({
      code: `async () => { const e = new Error('x'); e.name = 'SyntaxError'; e.errorKind = 'syntax'; throw e }`,
    });
    expect(forged).toMatchObject({ errorKind: 'thrown', errorName: 'SyntaxError' });
    const timedOut = await client.execute({ code: 'async () => new Promise(() => {})', timeout: 200 });
    expect(timedOut.code).toBe('TIMEOUT');
    expect(timedOut).not.toHaveProperty('errorKind');
    client.close();
  });
});
