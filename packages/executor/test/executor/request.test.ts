import { BadRequestError, echoList } from '@supolka/codemode-protocol';
/**
 * How a request is split into the wire half and the host half, and the outbound rule (docs/protocol.md): an
 * explicit `outbound` decides the mode, a missing key takes the executor's configured default.
 */
import { describe, expect, test } from 'vitest';
import { resolveOptions } from '../../src/executor/options.ts';
import { splitRequest } from '../../src/executor/request.ts';

/** The split as a promise, so a refusal reads the same whether the fast check or the schema made it. */
const split = async (...args: Parameters<typeof splitRequest>) => splitRequest(...args);

const proxy = async () => ({ status: 200, statusText: 'OK', headers: [], body: null });

describe('the outbound mode of a request', () => {
  const disabledByDefault = resolveOptions({ poolSize: 1 });
  test.each([
    ['null disables', { outbound: null }, 'disabled'],
    ['explicit undefined performs natively', { outbound: undefined }, 'native'],
    ['a function proxies', { outbound: proxy }, 'proxied'],
    ['no key takes the default, which is disabled', {}, 'disabled'],
  ])('%s', async (_, fields, mode) => {
    const { wire, host } = await splitRequest({ code: 'async () => 1', ...fields }, disabledByDefault);
    expect(wire.outbound).toBe(mode);
    expect(host.outbound).toBe(mode === 'proxied' ? proxy : undefined);
  });

  test('no key takes a configured default, native or proxied', async () => {
    expect((await splitRequest({ code: '' }, resolveOptions({ outbound: undefined }))).wire.outbound).toBe(
      'native',
    );
    expect((await splitRequest({ code: '' }, resolveOptions({ outbound: proxy }))).wire.outbound).toBe(
      'proxied',
    );
    expect(
      (await splitRequest({ code: '', outbound: null }, resolveOptions({ outbound: proxy }))).wire.outbound,
    ).toBe('disabled');
  });

  test('anything else is refused', async () => {
    await expect(split({ code: '', outbound: 'native' as never }, disabledByDefault)).rejects.toThrow(
      'Invalid execute request: outbound must be null (disabled), a function (proxied) or undefined (native).',
    );
  });
});

describe('the wire half', () => {
  test('takes the executor defaults for timeout and memory limit, and merges modules under the request', async () => {
    const defaults = resolveOptions({
      timeout: 5000,
      memoryLimit: 64,
      modules: { a: 'export default 1', b: 'export default 2' },
    });
    const { wire } = await splitRequest({ code: 'x', modules: { b: 'export default 3' } }, defaults);
    expect(wire).toStrictEqual({
      code: 'x',
      modules: { a: 'export default 1', b: 'export default 3' },
      providers: [],
      timeout: 5000,
      memoryLimit: 64,
      outbound: 'disabled',
    });
    expect((await splitRequest({ code: 'x', timeout: 10, memoryLimit: 8 }, defaults)).wire).toMatchObject({
      timeout: 10,
      memoryLimit: 8,
    });
  });

  test('carries provider descriptors without their functions', async () => {
    const { wire, host } = await splitRequest(
      {
        code: 'x',
        providers: [{ name: 'db', positionalArgs: false, prelude: 'db.x = 1', fns: { get: () => 1 } }],
      },
      resolveOptions(),
    );
    expect(wire.providers).toStrictEqual([{ name: 'db', positionalArgs: false, prelude: 'db.x = 1' }]);
    expect(typeof host.dispatch).toBe('function');
  });

  test.each([
    ['a misspelt field', { code: 'x', timout: 1 }, "Invalid execute request: 'timout' is not a known field."],
    ['code that is not text', { code: 1 }, 'Invalid execute request: code must be a string of source code.'],
    [
      'a misspelt provider field',
      { code: 'x', providers: [{ name: 'a', tools: {} }] },
      "'tools' is not a known field in providers[0]",
    ],
    [
      'a tool that is not a function',
      { code: 'x', providers: [{ name: 'a', fns: { t: 1 } }] },
      'providers[0].fns.t must be a function',
    ],
    ['a dispatch that is not a function', { code: 'x', dispatch: 'no' }, 'dispatch must be a function'],
    ['a bad timeout', { code: 'x', timeout: -1 }, 'timeout must be at least 1 ms'],
  ])('refuses %s naming it', async (_, request, message) => {
    await expect(split(request as never, resolveOptions())).rejects.toThrow(message);
  });

  test('names unknown fields of megabytes each by their starts, five of them, and counts the rest', async () => {
    const names = Array.from({ length: 7 }, (_, index) => `${index}${'f'.repeat(512 * 1024)}`);
    const request = Object.fromEntries([['code', 'x'], ...names.map((name) => [name, 1])]);
    await expect(split(request as never, resolveOptions())).rejects.toThrow(
      new BadRequestError(`Invalid execute request: ${echoList(names)} are not known fields.`),
    );
    expect(echoList(names).length).toBeLessThan(1000);
  });
});
