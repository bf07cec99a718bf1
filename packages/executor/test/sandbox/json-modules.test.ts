/**
 * A json module has JSON semantics: its default export is JSON.parse of its value's JSON text,
 * so an own "__proto__" key is a data property at any depth and never sets a prototype, and a
 * value without JSON text is refused naming the module.
 */
import { errorText } from '@supolka/codemode-protocol';
import { describe, expect, test } from 'vitest';
import { jsonModuleMessage } from '../../src/sandbox/modules/module-source.ts';
import { useSandbox } from '../helpers.ts';

const sandbox = useSandbox();

/** Runs `body` (an expression over `value`) against a json module holding JSON.parse(text). */
async function probe(text: string, body: string): Promise<unknown> {
  const envelope = await sandbox.execute({
    modules: { m: { json: JSON.parse(text) } },
    code: `import value from 'm'
async () => ${body}`,
  });
  if (envelope.error !== undefined) throw new Error(envelope.error);
  return envelope.result;
}

describe('an own __proto__ key stays a data property', () => {
  test('at the top', async () => {
    const text = '{"__proto__":{"polluted":1},"x":2}';
    expect(
      await probe(
        text,
        `[Object.getPrototypeOf(value) === Object.prototype, Object.hasOwn(value, '__proto__'),
          value.polluted === undefined, ({}).polluted === undefined, Object.keys(value), JSON.stringify(value) === ${JSON.stringify(text)}]`,
      ),
    ).toStrictEqual([true, true, true, true, ['__proto__', 'x'], true]);
  });

  test('nested', async () => {
    const text = '{"a":{"__proto__":{"polluted":1}}}';
    expect(
      await probe(
        text,
        `[Object.getPrototypeOf(value.a) === Object.prototype, Object.hasOwn(value.a, '__proto__'),
          value.a.polluted === undefined, JSON.stringify(value) === ${JSON.stringify(text)}]`,
      ),
    ).toStrictEqual([true, true, true, true]);
  });

  test('a null __proto__ does not make a null-prototype object', async () => {
    expect(
      await probe(
        '{"__proto__":null}',
        `[Object.getPrototypeOf(value) === Object.prototype, value.__proto__]`,
      ),
    ).toStrictEqual([true, null]);
  });

  test('an array __proto__ inside an array does not make an array', async () => {
    const text = '[{"__proto__":[1,2]},[{"__proto__":{"length":3}}]]';
    expect(
      await probe(
        text,
        `[Array.isArray(value[0]), typeof value[0].map, value[1][0].length === undefined,
          Object.getPrototypeOf(value[1][0]) === Object.prototype, JSON.stringify(value) === ${JSON.stringify(text)}]`,
      ),
    ).toStrictEqual([false, 'undefined', true, true, true]);
  });
});

describe('any JSON value', () => {
  test.each([
    ['a string with quotes, escapes and separators', '"a \\"b\\" \\\\ \\u2028 \\u0000 </script>"'],
    ['a number', '-1.5e300'],
    ['null', 'null'],
    ['an empty array', '[]'],
    ['deep nesting', `${'['.repeat(500)}${']'.repeat(500)}`],
  ])('%s round-trips', async (_, text) => {
    expect(await probe(text, `JSON.stringify(value)`)).toBe(JSON.stringify(JSON.parse(text)));
  });

  test('a module of several MB compiles and reads back whole', async () => {
    const rows = Array.from({ length: 100_000 }, (_, index) => ({ id: index, name: `row "${index}"` }));
    const text = JSON.stringify(rows);
    expect(text.length).toBeGreaterThan(2_000_000);
    expect(
      await probe(text, `[value.length, value[99_999].name, JSON.stringify(value).length]`),
    ).toStrictEqual([100_000, 'row "99999"', text.length]);
  });
});

describe('a value with no JSON text is refused, naming the module', () => {
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const reasonOf = (value: unknown): string => {
    try {
      JSON.stringify(value);
    } catch (error) {
      return errorText(error);
    }
    throw new Error('expected JSON.stringify to throw');
  };
  test.each([
    ['a BigInt', { n: 1n }, reasonOf({ n: 1n })],
    ['a cycle', cyclic, reasonOf(cyclic)],
    ['a function', () => 1, 'JSON.stringify gives undefined for a function'],
    ['a symbol', Symbol('s'), 'JSON.stringify gives undefined for a symbol'],
  ])('%s', async (_, json, reason) => {
    const envelope = await sandbox.execute({
      modules: { 'data.json': { json } },
      code: `import value from './data.json'
async () => value`,
    });
    expect(envelope).toStrictEqual({
      result: undefined,
      error: jsonModuleMessage('data.json', reason),
      code: 'BAD_REQUEST',
      logs: [],
    });
  });
});
