/**
 * Sandbox.execute of the request as it travels: the wire part as the pool's child receives it and
 * the host part beside it. The wire's outbound mode decides, and the host's function serves a
 * proxied run only; the one-object form reads the same as the pair.
 */
import { type ExecuteRequest, OUTBOUND_DISABLED_MESSAGE } from '@supolka/codemode-protocol';
import { describe, expect, test } from 'vitest';
import type { OutboundFunction } from '../../src/sandbox/fetch.ts';
import { serve, useSandbox } from '../helpers.ts';

const sandbox = useSandbox();

const FETCH = `async () => {
  try {
    return await (await fetch('http://upstream.test/')).text()
  } catch (error) {
    return error.message
  }
}`;

const reply: OutboundFunction = () => ({
  status: 200,
  statusText: 'OK',
  headers: [],
  body: new TextEncoder().encode('proxied'),
});

describe('the pair form', () => {
  test('runs the wire request with the tools the host part serves', async () => {
    const wire: ExecuteRequest = {
      code: 'async () => math.add(1, 2)',
      providers: [{ name: 'math' }],
      timeout: 5000,
      memoryLimit: 64,
      outbound: 'disabled',
    };
    const envelope = await sandbox.execute(wire, {
      dispatch: serve({ math: { add: (a: number, b: number) => a + b } }),
    });
    expect(envelope).toStrictEqual({ result: 3, logs: [] });
  });

  test.each([
    ['proxied', true, 'proxied'],
    ['proxied', false, OUTBOUND_DISABLED_MESSAGE],
    ['disabled', true, OUTBOUND_DISABLED_MESSAGE],
    [undefined, true, OUTBOUND_DISABLED_MESSAGE],
  ] as const)('mode %s, a host function %s: the fetch reads %s', async (mode, given, read) => {
    const wire: ExecuteRequest = { code: FETCH, ...(mode !== undefined ? { outbound: mode } : {}) };
    expect((await sandbox.execute(wire, given ? { outbound: reply } : {})).result).toBe(read);
  });

  test('the one-object form reads as the pair it is split into', async () => {
    expect((await sandbox.execute({ code: FETCH, outbound: reply })).result).toBe('proxied');
    expect((await sandbox.execute({ code: FETCH, outbound: null })).result).toBe(OUTBOUND_DISABLED_MESSAGE);
    expect((await sandbox.execute({ code: FETCH })).result).toBe(OUTBOUND_DISABLED_MESSAGE);
  });
});
