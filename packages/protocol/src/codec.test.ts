import { deepStrictEqual } from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { transformSync } from 'esbuild';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { CodecError, parseForDispatch, stringifyForDispatch } from './codec.ts';
import { CODEC_IDENTIFIERS } from './codec-identifiers.ts';
import { INTERNAL_NAMES } from './generated/internal-names.generated.ts';

/** Binary values compared by kind and bytes, since equality of views is not what we are testing. */
function comparable(value: unknown): unknown {
  // Tags, not instanceof: values decoded in another realm (a vm context) count too.
  if (Object.prototype.toString.call(value) === '[object ArrayBuffer]') {
    return { ArrayBuffer: [...new Uint8Array(value as ArrayBuffer)] };
  }
  if (ArrayBuffer.isView(value)) {
    const kind = Object.prototype.toString.call(value).slice(8, -1);
    return { [kind]: [...new Uint8Array(value.buffer, value.byteOffset, value.byteLength)] };
  }
  if (Array.isArray(value)) return Array.from(value, comparable);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, comparable(item)]));
  }
  return value;
}

/**
 * Same value, binary compared by kind and bytes. node:assert, not toStrictEqual, because vitest
 * compares own `constructor` properties by identity, and a generated object may own one.
 */
function expectSame(actual: unknown, expected: unknown): void {
  deepStrictEqual(comparable(actual), comparable(expected));
}

const bytes = (...values: number[]) => new Uint8Array(values);
/** Past the 0x8000-byte slice the encoder hands String.fromCharCode, and not a multiple of it. */
const large = new Uint8Array(0x8000 * 3 + 17).map((_, index) => (index * 31) & 0xff);

const valueTable: [string, unknown][] = [
  ['null', null],
  ['a number', 42.5],
  ['a string with controls', 'line\n\u0000\u001f"quoted"'],
  ['an empty object', {}],
  ['an empty list', []],
  ['nested data', { a: [1, { b: [true, null, 'x'] }], c: { d: {} } }],
  ['an empty Uint8Array', new Uint8Array(0)],
  ['an ArrayBuffer', bytes(1, 2, 3).buffer],
  ['an empty ArrayBuffer', new ArrayBuffer(0)],
  ['an Int8Array', new Int8Array([-128, 0, 127])],
  ['a Uint8Array', bytes(0, 1, 254, 255)],
  ['a Uint8ClampedArray', new Uint8ClampedArray([0, 128, 255])],
  ['an Int16Array', new Int16Array([-32768, 32767])],
  ['a Uint16Array', new Uint16Array([0, 65535])],
  ['an Int32Array', new Int32Array([-1, 2 ** 31 - 1])],
  ['a Uint32Array', new Uint32Array([2 ** 32 - 1])],
  ['a Float16Array', new Float16Array([1.5, -0])],
  ['a Float32Array', new Float32Array([Math.PI, Number.NaN])],
  ['a Float64Array', new Float64Array([Math.E, Number.NEGATIVE_INFINITY, -0])],
  ['a BigInt64Array', new BigInt64Array([-(2n ** 63n), 2n ** 63n - 1n])],
  ['a BigUint64Array', new BigUint64Array([2n ** 64n - 1n])],
  ['a DataView', new DataView(bytes(9, 8, 7, 6).buffer)],
  ['a view into the middle of a buffer', new Uint16Array(bytes(0, 0, 1, 2, 3, 4, 0, 0).buffer, 2, 2)],
  ['a payload past the slice boundary', large],
  [
    'binary values nested in data',
    { file: { name: 'a.bin', data: bytes(1, 2) }, parts: [new Int32Array([7])] },
  ],
  ['an object owning the binary tag key', { $binary: 'Uint8Array', base64: 'AAEC' }],
  ['an object owning the escape key', { $object: [['a', 1]] }],
  ['an escaped object inside an escaped object', { $object: { $binary: { $object: 1 } } }],
  ['a __proto__ key', JSON.parse('{"__proto__":{"polluted":true}}')],
];

describe('the dispatch codec', () => {
  test.each(valueTable)('%s round-trips', (_, value) => {
    expectSame(parseForDispatch(stringifyForDispatch(value)), value);
  });

  test('a __proto__ key stays an own data property and pollutes nothing', () => {
    const decoded = parseForDispatch(
      stringifyForDispatch({ $object: 1, __proto__x: 2, ...JSON.parse('{"__proto__":5}') }),
    ) as object;
    expect(Object.hasOwn(decoded, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('binary values cross as a tagged base64 envelope', () => {
    expect(stringifyForDispatch({ data: bytes(0, 1, 2) })).toBe(
      '{"data":{"$binary":"Uint8Array","base64":"AAEC"}}',
    );
    expect(stringifyForDispatch(new DataView(bytes(255).buffer))).toBe(
      '{"$binary":"DataView","base64":"/w=="}',
    );
  });

  test('a host Buffer crosses as bytes, not as its toJSON shape', async () => {
    const { Buffer } = await import('node:buffer');
    expect(stringifyForDispatch([Buffer.from('hi')])).toBe('[{"$binary":"Uint8Array","base64":"aGk="}]');
  });

  test('only real binary values are binary: tags, proxies and borrowed prototypes are objects', () => {
    const claimsTag = { [Symbol.toStringTag]: 'ArrayBuffer', a: 1 };
    const proxied = new Proxy(bytes(1, 2), {});
    const borrowed = Object.create(ArrayBuffer.prototype);
    expect(stringifyForDispatch([claimsTag, borrowed])).toBe('[{"a":1},{}]');
    expect(stringifyForDispatch(Object.setPrototypeOf(new ArrayBuffer(1), Array.prototype))).toBe(
      '{"$binary":"ArrayBuffer","base64":"AA=="}',
    );
    expect(stringifyForDispatch(proxied)).toBe('{"0":1,"1":2}');
    // The one loss: a buffer a program stripped of its prototype is no longer recognised.
    const stripped = Object.setPrototypeOf(new ArrayBuffer(2), Object.prototype);
    expect(stringifyForDispatch(stripped)).toBe('{}');
    // A view keeps its slot whatever its prototype says.
    const view = Object.setPrototypeOf(new DataView(bytes(7).buffer), null);
    expect(stringifyForDispatch(view)).toBe('{"$binary":"DataView","base64":"Bw=="}');
  });

  test('decoded views own a fresh buffer of exactly their bytes', () => {
    const decoded = parseForDispatch(
      stringifyForDispatch(new Uint16Array(bytes(0, 0, 1, 2, 3, 4).buffer, 2, 2)),
    );
    expect(decoded).toBeInstanceOf(Uint16Array);
    expect((decoded as Uint16Array).byteOffset).toBe(0);
    expect((decoded as Uint16Array).buffer.byteLength).toBe(4);
  });

  test('top-level undefined becomes null, and undefined members are dropped as JSON drops them', () => {
    expect(stringifyForDispatch(undefined)).toBe('null');
    expect(stringifyForDispatch({ a: undefined, $binary: 1, b: () => 1 })).toBe(
      '{"$object":[["$binary",1]]}',
    );
  });

  test.each([
    ['text that is not JSON', '{nope', /^Malformed JSON: /],
    ['an unknown binary type', '{"$binary":"Uint9Array","base64":""}', /Unknown binary type "Uint9Array"/],
    ['a binary envelope without base64', '{"$binary":"Uint8Array"}', /has no base64 string/],
    ['invalid base64', '{"$binary":"Uint8Array","base64":"*"}', /holds invalid base64/],
    [
      'bytes that do not fill the element size',
      '{"$binary":"Float64Array","base64":"AAEC"}',
      /multiple of 8 bytes; the envelope holds 3/,
    ],
    ['an escape that is not a list', '{"$object":5}', /must hold a list of entries/],
    ['an escape entry that is not a pair', '{"$object":[["a"]]}', /must be a \[key, value\] pair/],
    ['an escape entry with a numeric key', '{"$object":[[1,2]]}', /must be a \[key, value\] pair/],
    ['a tag spelled with escapes', '{"\\u0024binary":"Nope","base64":""}', /Unknown binary type/],
    // The sender's tag is named by its start: whole, a 4 MB tag made a 4 MB error.
    [
      'a binary tag of megabytes',
      `{"$binary":"${'U'.repeat(4 * 1024 * 1024)}","base64":""}`,
      /^Unknown binary type "U{64}"… \(4194304 characters\) in a \$binary envelope\.$/,
    ],
    [
      'a binary tag that is a list',
      `{"$binary":[${'1,'.repeat(100_000)}1],"base64":""}`,
      /^Unknown binary type a list in/,
    ],
    [
      'a binary tag that is an object',
      '{"$binary":{"a":1},"base64":""}',
      /^Unknown binary type an object in/,
    ],
    ['a binary tag that is a number', '{"$binary":5,"base64":""}', /^Unknown binary type 5 in/],
  ])('refuses %s with its own error', (_, text, message) => {
    expect(() => parseForDispatch(text)).toThrow(CodecError);
    expect(() => parseForDispatch(text)).toThrow(message);
  });

  test('refuses a value that is not text', () => {
    expect(() => parseForDispatch(5 as unknown as string)).toThrow(/Expected JSON text, got number/);
  });

  test('is not fooled by a program that replaces JSON or prototypes after the codec loaded', () => {
    const source = codecScript();
    const context = vm.createContext({ btoa, atob });
    vm.runInContext(source, context);
    const outcome = vm.runInContext(
      `const input = { $binary: [new Uint8Array([1, 2, 3])] };
       JSON.stringify = () => '"hijacked"';
       JSON.parse = () => 'hijacked';
       Array.prototype[Symbol.iterator] = function* () { yield 'hijacked'; };
       Object.defineProperty(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag, { get: () => 'Float64Array' });
       Object.defineProperty(Object.getPrototypeOf(Uint8Array.prototype), 'length', { get: () => 0 });
       String.prototype.charCodeAt = () => 0;
       const text = __stringifyForDispatch(input);
       [text, __parseForDispatch(text).$binary[0][2]]`,
      context,
    );
    expect(outcome[0]).toBe('{"$object":[["$binary",[{"$binary":"Uint8Array","base64":"AQID"}]]]}');
    expect(outcome[1]).toBe(3);
  });
});

describe('the codec as source text', () => {
  test('declares exactly CODEC_IDENTIFIERS, each one a reserved internal name', () => {
    const declared = [
      ...readFileSync(new URL('./codec.ts', import.meta.url), 'utf8').matchAll(
        /^(?:const|function|class) (\w+)/gm,
      ),
    ].map((match) => match[1]);
    expect(declared).toStrictEqual([...CODEC_IDENTIFIERS]);
    for (const name of declared) expect(INTERNAL_NAMES).toContain(name);
  });

  test('imports nothing, so it can run as a script inside an isolate', () => {
    expect(readFileSync(new URL('./codec.ts', import.meta.url), 'utf8')).not.toMatch(/^import /m);
  });

  test('a context that holds only the script produces identical wire output over the value table', () => {
    const context = vm.createContext({ btoa, atob });
    vm.runInContext(codecScript(), context);
    for (const [, value] of valueTable) {
      const inside = vm.runInContext('__stringifyForDispatch', context)(value);
      expect(inside).toBe(stringifyForDispatch(value));
      expectSame(vm.runInContext('__parseForDispatch', context)(inside), value);
    }
  });

  test('in a context without btoa it loads, serializes data, and refuses binary with its own error', () => {
    const context = vm.createContext({});
    vm.runInContext(codecScript(), context);
    expect(vm.runInContext('__stringifyForDispatch({ a: [1] })', context)).toBe('{"a":[1]}');
    expect(() => vm.runInContext('__stringifyForDispatch(new Uint8Array(1))', context)).toThrow(/need btoa/);
  });
});

describe('base64 under Node, where the codec decodes with Buffer', () => {
  // The script in a context without Buffer decodes with atob and a loop, as every isolate does; the
  // host's decode must accept exactly what that one accepts and give the same bytes.
  const context = vm.createContext({ btoa, atob });
  vm.runInContext(codecScript(), context);
  const parseWithAtob = vm.runInContext('__parseForDispatch', context) as (text: string) => unknown;
  const outcome = (parse: (text: string) => unknown, base64: string) => {
    try {
      return Array.from(parse(JSON.stringify({ $binary: 'Uint8Array', base64 })) as Uint8Array);
    } catch (error) {
      return String((error as Error).message);
    }
  };
  const base64ish = fc.string({
    unit: fc.constantFrom(
      ...'AQZaqz09+/='.split(''),
      ' ',
      '\t',
      '\n',
      '\r',
      '\f',
      '\v',
      '-',
      '_',
      '*',
      '\u00a0',
      // What Node's decoder reads by its low 8 bits ('A' and 'a' here), or skips, where atob refuses.
      '\u3141',
      '\u0141',
      '\u0100',
      '\ud800',
      '\u00e9',
      '\u0000',
      '.',
      '%',
    ),
    maxLength: 24,
  });

  test('accepts exactly what atob accepts, with the same bytes', () => {
    fc.assert(
      fc.property(base64ish, (text) => {
        expect(outcome(parseForDispatch, text)).toStrictEqual(outcome(parseWithAtob, text));
      }),
      { numRuns: 3000 },
    );
  });

  test("the encode under Node is btoa's, and a short decode owns its buffer, not Node's shared pool", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const inside = vm.runInContext(
          '__stringifyForDispatch',
          context,
        )(new (vm.runInContext('Uint8Array', context))(bytes));
        expect(stringifyForDispatch(bytes)).toBe(inside);
        const decoded = parseForDispatch(stringifyForDispatch(bytes)) as Uint8Array;
        expect(decoded.byteOffset).toBe(0);
        expect(decoded.buffer.byteLength).toBe(bytes.length);
      }),
    );
  });
});

describe('codec properties', () => {
  const binary = fc
    .tuple(
      fc.constantFrom(
        'ArrayBuffer',
        'DataView',
        'Int8Array',
        'Uint8Array',
        'Uint8ClampedArray',
        'Int16Array',
        'Uint16Array',
        'Float16Array',
        'Int32Array',
        'Uint32Array',
        'Float32Array',
        'Float64Array',
        'BigInt64Array',
        'BigUint64Array',
      ),
      fc.uint8Array({ maxLength: 48 }),
    )
    .map(([type, data]) => {
      if (type === 'ArrayBuffer') return data.slice().buffer;
      if (type === 'DataView') return new DataView(data.slice().buffer);
      const View = globalThis[type as 'Uint8Array'];
      const length = data.length - (data.length % View.BYTES_PER_ELEMENT);
      return new View(data.slice(0, length).buffer);
    });
  const key = fc.oneof(
    fc.string(),
    fc.constantFrom('$binary', '$object', 'base64', '__proto__', 'constructor'),
  );
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      // Through JSON once, so the generator offers JSON's own values (-0 is not one: it prints as 0).
      fc.jsonValue({ maxDepth: 1 }).map((json) => JSON.parse(JSON.stringify(json))),
      binary,
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(key, tie('value'), { maxKeys: 4 }),
    ),
  }));

  test('round trip equals input for any JSON-plus-binary value', () => {
    fc.assert(
      fc.property(value, (input) => {
        expectSame(parseForDispatch(stringifyForDispatch(input)), input);
      }),
      { numRuns: 500 },
    );
  });

  test('malformed input never throws anything but the codec error', () => {
    const noise = fc.oneof(
      fc.string(),
      fc.jsonValue().map((json) => JSON.stringify(json)),
      fc
        .record({
          $binary: fc.oneof(fc.string(), fc.constantFrom('Uint8Array', 'Float64Array', 'DataView')),
          base64: fc.string(),
        })
        .map((tagged) => JSON.stringify([tagged])),
      fc.anything().map((anything) => JSON.stringify({ $object: anything }) ?? ''),
    );
    fc.assert(
      fc.property(noise, (text) => {
        try {
          parseForDispatch(text);
        } catch (error) {
          expect(error).toBeInstanceOf(CodecError);
        }
      }),
      { numRuns: 1000 },
    );
  });
});

/** The codec file as a script: types stripped, the export list removed (as the sandbox does). */
function codecScript(): string {
  const { code } = transformSync(readFileSync(new URL('./codec.ts', import.meta.url), 'utf8'), {
    loader: 'ts',
  });
  return code.replace(/^export \{[^}]*\};?$/m, '');
}
