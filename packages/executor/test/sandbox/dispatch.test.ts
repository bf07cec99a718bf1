/**
 * The four frames of the dispatch reference, in the order installDispatch tests them, and the proxy
 * that turns frames back into results and throws.
 */
import {
  DISPATCH_OUTSIDE_ENVELOPE_MESSAGE,
  EXECUTION_COMPLETED_MESSAGE,
  PAYLOAD_LIMIT,
  payloadTooLargeMessage,
  toolNotFoundMessage,
} from '@supolka/codemode-protocol';
import { describe, expect, test } from 'vitest';
import { createDispatchState, hostDispatch } from '../../src/sandbox/dispatch.ts';
import { serve, useSandbox, withTools } from '../helpers.ts';

const sandbox = useSandbox();

describe('the host reference', () => {
  test('a call arriving after the run settled is thrown with the pinned text', async () => {
    const state = createDispatchState();
    state.dispatch = async () => '{"result":1}';
    state.completed = true;
    expect(await hostDispatch(state)('p', 't', '[]')).toStrictEqual([
      'thrown',
      'Execution has already completed.',
    ]);
    expect(EXECUTION_COMPLETED_MESSAGE).toBe('Execution has already completed.');
  });

  test('a call past PAYLOAD_LIMIT is thrown with the payload text for the tool call', async () => {
    const state = createDispatchState();
    state.dispatch = async () => '{"result":1}';
    const args = 'x'.repeat(PAYLOAD_LIMIT);
    expect(await hostDispatch(state)('p', 't', args)).toStrictEqual([
      'thrown',
      payloadTooLargeMessage('tool call', PAYLOAD_LIMIT + 2, PAYLOAD_LIMIT),
    ]);
  });

  test('a request that declared no dispatch function answers the unknown-tool envelope', async () => {
    expect(await hostDispatch(createDispatchState())('files', 'read', '[]')).toStrictEqual([
      'returned',
      JSON.stringify({ error: toolNotFoundMessage('files', 'read'), errorKind: 'tool-not-found' }),
    ]);
  });

  test('any other call returns what the function returned, or throws its failure as text', async () => {
    const state = createDispatchState();
    state.dispatch = async (_p, tool) => {
      if (tool === 'bad') throw new Error('the tool broke');
      if (tool === 'odd') return 42 as unknown as string;
      return '{"result":"ok"}';
    };
    const call = hostDispatch(state);
    expect(await call('p', 'good', '[]')).toStrictEqual(['returned', '{"result":"ok"}']);
    expect(await call('p', 'bad', '[]')).toStrictEqual(['thrown', 'the tool broke']);
    expect(await call('p', 'odd', '[]')).toStrictEqual([
      'thrown',
      'The dispatch function answered a number, not the result envelope as JSON text.',
    ]);
  });

  test('never rejects, whatever the function does', async () => {
    const state = createDispatchState();
    state.dispatch = () => {
      throw Object.assign(Object.create(null), { toString: undefined });
    };
    await expect(hostDispatch(state)('p', 't', '[]')).resolves.toStrictEqual([
      'thrown',
      'The call failed with a value that cannot be turned into text.',
    ]);
  });
});

describe('tool calls from a program', () => {
  test('spread and single-object conventions', async () => {
    const seen: string[] = [];
    const envelope = await sandbox.execute({
      providers: [{ name: 'spread' }, { name: 'single', positionalArgs: false }],
      dispatch: async (provider, tool, args) => {
        seen.push(`${provider}.${tool} ${args}`);
        return JSON.stringify({ result: true });
      },
      code: 'async () => { await spread.a(1, "b"); await spread.none(); await single.c({ x: 1 }); await single.none(); return seen }',
    });
    expect(envelope.result).toBeUndefined();
    expect(seen).toStrictEqual(['spread.a [1,"b"]', 'spread.none []', 'single.c {"x":1}', 'single.none {}']);
  });

  test('a tool error is an ordinary catchable throw, and uncaught it is the run error', async () => {
    const tools = {
      db: {
        query: () => {
          throw new Error('no such table');
        },
      },
    };
    expect(
      await sandbox.execute(
        withTools(tools, {
          code: 'async () => { try { await db.query() } catch (e) { return "caught: " + e.message } }',
        }),
      ),
    ).toStrictEqual({ result: 'caught: no such table', logs: [] });
    expect(await sandbox.execute(withTools(tools, { code: 'async () => db.query()' }))).toStrictEqual({
      result: undefined,
      error: 'no such table',
      logs: [],
      errorKind: 'tool-failed',
      errorName: 'Error',
      // Which call failed, and where (issue 26 item 4).
      errorProvider: 'db',
      errorTool: 'query',
      errorAt: 'executor.js:1:16',
    });
  });

  test('a thrown frame reaches user code as an Error with its text and no host stack', async () => {
    const envelope = await sandbox.execute({
      providers: [{ name: 'p' }],
      dispatch: () => {
        throw new Error('host secret path /etc/shadow');
      },
      code: 'async () => { try { await p.t() } catch (e) { return [e instanceof Error, e.message, e.stack.includes("node:")] } }',
    });
    expect(envelope.result).toStrictEqual([true, 'host secret path /etc/shadow', false]);
  });

  test('an answer outside the envelope is refused with the pinned text', async () => {
    for (const answer of ['not json', '42', 'null', '"text"']) {
      const envelope = await sandbox.execute({
        providers: [{ name: 'p' }],
        dispatch: async () => answer,
        code: 'async () => p.t()',
      });
      expect(envelope.error, answer).toBe(DISPATCH_OUTSIDE_ENVELOPE_MESSAGE);
    }
  });

  test('an unknown tool with no dispatch function throws the unknown-tool text', async () => {
    const envelope = await sandbox.execute({
      providers: [{ name: 'files' }],
      code: 'async () => files.read()',
    });
    expect(envelope.error).toBe(toolNotFoundMessage('files', 'read'));
  });

  test('a tool call whose arguments pass PAYLOAD_LIMIT is refused inside the program', async () => {
    const envelope = await sandbox.execute({
      memoryLimit: 512,
      providers: [{ name: 'p' }],
      dispatch: serve({ p: { t: () => 'never' } }),
      code: `async () => { try { await p.t('x'.repeat(${PAYLOAD_LIMIT})) } catch (e) { return e.message } }`,
    });
    expect(envelope.result).toBe(payloadTooLargeMessage('tool call', PAYLOAD_LIMIT + 6, PAYLOAD_LIMIT));
  });

  test('the namespace: own properties first, undefined for symbols and then, so it is not thenable', async () => {
    const envelope = await sandbox.execute({
      providers: [{ name: 'ns', prelude: 'ns.helper = () => "helped"' }],
      // biome-ignore lint/suspicious/noThenProperty: a tool named then is exactly what the namespace must not expose.
      dispatch: serve({ ns: { then: () => 'called then', tool: () => 'tool' } }),
      code: 'async () => [ns.helper(), typeof ns.then, typeof ns[Symbol.iterator], (await ns) === ns, await ns.tool()]',
    });
    expect(envelope.result).toStrictEqual(['helped', 'undefined', 'undefined', true, 'tool']);
  });

  test('a proxySource replaces the generated namespace verbatim', async () => {
    const envelope = await sandbox.execute({
      providers: [{ name: 'custom', proxySource: 'const custom = { hello: () => "from proxySource" };' }],
      code: 'async () => custom.hello()',
    });
    expect(envelope.result).toBe('from proxySource');
  });

  test('a prelude reaches its own namespace and every other one', async () => {
    const envelope = await sandbox.execute({
      providers: [{ name: 'a', prelude: 'const fromA = await b.value()' }, { name: 'b' }],
      dispatch: serve({ b: { value: () => 'b value' } }),
      code: 'async () => fromA',
    });
    expect(envelope.result).toBe('b value');
  });
});
