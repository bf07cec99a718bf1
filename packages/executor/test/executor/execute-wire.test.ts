/**
 * IsolateExecutor.executeWire: a wire execute request a server received, run with the client's
 * functions as its host part, through the real pool. The executor's defaults apply as to the
 * object form; an outbound mode left out is disabled whatever the executor's default, and the
 * host's outbound function serves a proxied run only.
 */
import {
  type DispatchFunction,
  type ExecuteRequest,
  OUTBOUND_DISABLED_MESSAGE,
} from '@supolka/codemode-protocol';
import { afterAll, describe, expect, test } from 'vitest';
import { IsolateExecutor } from '../../src/executor/isolate-executor.ts';
import type { OutboundFunction } from '../../src/pool/execution.ts';

/** Every default an executor has that a wire request could meet: modules, a bound, native or proxied fetch. */
const proxiedByDefault: OutboundFunction = () => {
  throw new Error('the default outbound function served a wire request');
};
const native = new IsolateExecutor({
  poolSize: 1,
  timeout: 3000,
  modules: { shared: 'export const answer = 42' },
  outbound: undefined,
});
const proxied = new IsolateExecutor({ poolSize: 1, outbound: proxiedByDefault });
afterAll(() => Promise.all([native.dispose(), proxied.dispose()]));

const FETCH = `async () => {
  try {
    const response = await fetch('http://upstream.test/')
    return await response.text()
  } catch (error) {
    return error.message
  }
}`;

const reply: OutboundFunction = () => ({
  status: 200,
  statusText: 'OK',
  headers: [],
  body: new TextEncoder().encode('from the host part'),
});

describe('executeWire', () => {
  test("takes the executor's modules and bound, and serves tool calls from the host part", async () => {
    const calls: string[] = [];
    const dispatch: DispatchFunction = (provider, tool, args) => {
      calls.push(`${provider}.${tool}(${args})`);
      return '{"result":1}';
    };
    const request: ExecuteRequest = {
      code: `import { answer } from 'shared'
        async () => answer + await remote.one(2)`,
      providers: [{ name: 'remote' }],
    };
    const envelope = await native.executeWire(request, { dispatch });
    expect(envelope).toMatchObject({ result: 43, logs: [] });
    expect(calls).toStrictEqual(['remote.one([2])']);
    const bounded = await native.executeWire({ code: 'async () => { for (;;) {} }' });
    expect(bounded.code).toBe('TIMEOUT');
    expect(bounded.error).toContain('3000 ms');
  });

  test("a request without an outbound mode has no network, whatever the executor's default", async () => {
    for (const executor of [native, proxied]) {
      const envelope = await executor.executeWire({ code: FETCH }, { outbound: reply });
      expect(envelope.result).toBe(OUTBOUND_DISABLED_MESSAGE);
    }
  });

  test("the host part's outbound function serves a proxied run, and no other", async () => {
    expect(
      (await proxied.executeWire({ code: FETCH, outbound: 'proxied' }, { outbound: reply })).result,
    ).toBe('from the host part');
    const disabled = await proxied.executeWire({ code: FETCH, outbound: 'disabled' }, { outbound: reply });
    expect(disabled.result).toBe(OUTBOUND_DISABLED_MESSAGE);
    // Proxied with nothing on this side to serve it: refused as disabled, not sent to the default.
    const unserved = await proxied.executeWire({ code: FETCH, outbound: 'proxied' });
    expect(unserved.result).toBe(OUTBOUND_DISABLED_MESSAGE);
  });

  test('a request the schema refuses comes back BAD_REQUEST, naming the field', async () => {
    const envelope = await native.executeWire({ code: 'async () => 1', timeout: 0 });
    expect(envelope).toMatchObject({
      code: 'BAD_REQUEST',
      error: 'Invalid execute request: timeout must be at least 1 ms.',
    });
  });

  test("the host part's signal cancels the run, and its options are checked as execute's are", async () => {
    const controller = new AbortController();
    const running = native.executeWire(
      { code: 'async () => { for (;;) {} }' },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(new Error('enough')), 200);
    expect(await running).toMatchObject({ code: 'CANCELLED', error: 'Execution was cancelled: enough' });
    expect(await native.executeWire({ code: 'async () => 1' }, { onConsole: 'no' as never })).toMatchObject({
      code: 'BAD_REQUEST',
      error: 'options.onConsole must be a function.',
    });
  });
});
