/**
 * The one split of a caller's request into its wire part and its host part, in both forms that use
 * it: IsolateExecutor's (a raw `dispatch`, the executor's defaults, unknown fields refused first)
 * and the client's (neither). Every field of the schema travels from both with no edit of the
 * split, and each refusal reads as errors.ts spells it.
 */
import { describe, expect, test } from 'vitest';
import { splitRequest } from './check-request.ts';
import { parseForDispatch } from './codec.ts';
import { BadRequestError, toolNotFoundEnvelope } from './errors.ts';
import { ExecuteRequestSchema } from './schemas/request.ts';
import { type RequestDefaults, type RequestForm, withDefaults } from './split-request.ts';

type Proxy = () => never;

const defaults: RequestDefaults<Proxy> = {
  modules: {},
  timeout: 5000,
  memoryLimit: 64,
  typescript: true,
  outbound: null,
};
const executorForm: RequestForm<Proxy> = { dispatch: true, defaults };
const clientForm: RequestForm<Proxy> = {};
const forms = [
  ['IsolateExecutor', executorForm],
  ['the client', clientForm],
] as const;

/** A valid value of every field of the wire request: a field the schema gains needs one here. */
const SAMPLES: Record<string, unknown> = {
  code: 'async () => 1',
  modules: { a: 'export default 2' },
  providers: [{ name: 'db', positionalArgs: false, prelude: 'db.x = 1', proxySource: 'const db = {}' }],
  timeout: 1000,
  memoryLimit: 32,
  outbound: 'native',
  retainHandles: true,
  countHostWaits: true,
  typescript: false,
  consoleFormat: 'inspect',
  durable: true,
};

describe('the wire part', () => {
  test('the samples name every field of the schema', () => {
    expect(Object.keys(SAMPLES).sort()).toStrictEqual(Object.keys(ExecuteRequestSchema.shape).sort());
  });

  test.each(forms)('every field travels from the form of %s as the caller wrote it', (_, form) => {
    for (const [field, value] of Object.entries(SAMPLES)) {
      // outbound is the one field spelled differently by a caller: `undefined` written out is native.
      const request =
        field === 'outbound' ? { code: 'x', outbound: undefined } : { code: 'x', [field]: value };
      const { wire } = splitRequest(request, form);
      expect((wire as Record<string, unknown>)[field]).toStrictEqual(value);
    }
  });

  test('the client form adds nothing the caller left out', () => {
    expect(splitRequest({ code: 'x' }, clientForm)).toStrictEqual({
      wire: { code: 'x', providers: [] },
      host: { dispatch: undefined, outbound: undefined },
    });
  });

  test("IsolateExecutor's form fills in its defaults and merges the modules under the request's", () => {
    const { wire } = splitRequest(
      { code: 'x', modules: { mine: 'export default 3' } },
      { ...executorForm, defaults: { ...defaults, modules: { shared: 'export default 1' } } },
    );
    expect(wire).toStrictEqual({
      code: 'x',
      modules: { shared: 'export default 1', mine: 'export default 3' },
      providers: [],
      timeout: 5000,
      memoryLimit: 64,
      outbound: 'disabled',
    });
  });

  test('a field left undefined is left out, and a `code` left undefined is required', () => {
    expect(splitRequest({ code: 'x', retainHandles: undefined }, clientForm).wire).toStrictEqual({
      code: 'x',
      providers: [],
    });
    for (const [, form] of forms) {
      expect(() => splitRequest({ code: undefined }, form)).toThrow(
        'Invalid execute request: code is required.',
      );
    }
  });

  test('typescript travels only when off, with the defaults applied', () => {
    expect(withDefaults({ code: 'x', typescript: true }, defaults)).not.toHaveProperty('typescript');
    expect(withDefaults({ code: 'x' }, { ...defaults, typescript: false })).toMatchObject({
      typescript: false,
    });
  });
});

test("a key spelled __proto__ is an unknown field in both forms, never the wire part's prototype", () => {
  const parsed = JSON.parse('{"code":"async () => 1","__proto__":{"timeout":5,"durable":true}}');
  for (const [, form] of forms) {
    expect(() => splitRequest(parsed, form)).toThrow("'__proto__' is not a known field");
  }
});

describe('the outbound setting', () => {
  const proxy: Proxy = () => {
    throw new Error('not called');
  };

  test.each(forms)('an explicit key decides, in the form of %s', (_, form) => {
    expect(splitRequest({ code: 'x', outbound: null }, form).wire.outbound).toBe('disabled');
    expect(splitRequest({ code: 'x', outbound: undefined }, form).wire.outbound).toBe('native');
    const proxied = splitRequest({ code: 'x', outbound: proxy }, form);
    expect(proxied.wire.outbound).toBe('proxied');
    expect(proxied.host.outbound).toBe(proxy);
  });

  test('no key takes the default, which may be a function; with no default, no mode travels', () => {
    const proxied = splitRequest({ code: 'x' }, { defaults: { ...defaults, outbound: proxy } });
    expect(proxied.wire.outbound).toBe('proxied');
    expect(proxied.host.outbound).toBe(proxy);
    expect(splitRequest({ code: 'x' }, clientForm).wire).not.toHaveProperty('outbound');
  });
});

describe('the host part', () => {
  test("one dispatch serves the providers' fns, and a raw dispatch the namespaces without them", async () => {
    const raw = (provider: string, tool: string) => JSON.stringify({ result: `${provider}.${tool}` });
    const { wire, host } = splitRequest(
      {
        code: 'x',
        providers: [{ name: 'math', fns: { add: (a: number, b: number) => a + b } }, { name: 'remote' }],
        dispatch: raw,
      },
      executorForm,
    );
    expect(wire.providers).toStrictEqual([{ name: 'math' }, { name: 'remote' }]);
    const dispatch = host.dispatch;
    if (dispatch === undefined) throw new Error('the fns are served');
    expect(parseForDispatch(await dispatch('math', 'add', '[1,2]'))).toStrictEqual({ result: 3 });
    expect(await dispatch('remote', 'get', '[]')).toBe('{"result":"remote.get"}');
    expect(await dispatch('math', 'toString', '[]')).toBe(toolNotFoundEnvelope('math', 'toString'));
  });

  test('no fns and no raw dispatch: no dispatch, so every tool is unknown', () => {
    expect(splitRequest({ code: 'x', providers: [{ name: 'a' }] }, clientForm).host.dispatch).toBeUndefined();
  });
});

describe('refusals, as errors.ts spells them', () => {
  test.each(forms)('the shared ones, in the form of %s', (_, form) => {
    const refusals: [unknown, string][] = [
      [null, 'The execute request must be an object with a `code` string.'],
      [['code'], 'The execute request must be an object with a `code` string.'],
      [{ code: 'x', providers: {} }, 'Invalid execute request: providers must be a list.'],
      [{ code: 'x', providers: [1] }, 'Invalid execute request: providers[0] must be an object.'],
      [
        { code: 'x', providers: [{ name: 'a', fns: 1 }] },
        'Invalid execute request: providers[0].fns must be an object of functions.',
      ],
      [
        { code: 'x', providers: [{ name: 'a', fns: { t: 1 } }] },
        'Invalid execute request: providers[0].fns.t must be a function.',
      ],
      [
        { code: 'x', outbound: 'native' },
        'Invalid execute request: outbound must be null (disabled), a function (proxied) or undefined (native).',
      ],
    ];
    for (const [request, message] of refusals) expect(() => splitRequest(request, form)).toThrow(message);
  });

  test("IsolateExecutor's form refuses an unknown field first and alone; the client's leaves it to the schema", () => {
    expect(() => splitRequest({ code: 1, extra: 1 }, executorForm)).toThrow(
      new BadRequestError("Invalid execute request: 'extra' is not a known field."),
    );
    expect(() => splitRequest({ code: 1, extra: 1 }, clientForm)).toThrow(
      new BadRequestError(
        "Invalid execute request: code must be a string of source code; 'extra' is not a known field.",
      ),
    );
  });

  test("`dispatch` is IsolateExecutor's field only", () => {
    expect(() => splitRequest({ code: 'x', dispatch: 'no' }, executorForm)).toThrow(
      'Invalid execute request: dispatch must be a function.',
    );
    expect(() => splitRequest({ code: 'x', dispatch: () => '' }, clientForm)).toThrow(
      "Invalid execute request: 'dispatch' is not a known field.",
    );
  });

  test('a null `providers` is none to IsolateExecutor, as it always was, and no list to the client', () => {
    expect(splitRequest({ code: 'x', providers: null }, executorForm).wire.providers).toStrictEqual([]);
    expect(() => splitRequest({ code: 'x', providers: null }, clientForm)).toThrow(
      'Invalid execute request: providers must be a list.',
    );
  });
});
