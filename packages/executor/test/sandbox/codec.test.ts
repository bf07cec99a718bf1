/**
 * DISPATCH_CODEC_SOURCE against the protocol's codec: the same value table through both faces must
 * give identical wire output, a payload past the slice boundary included.
 */
import {
  CODEC_IDENTIFIERS,
  parseForDispatch,
  RESERVED_WORDS,
  reservedReason,
  stringifyForDispatch,
} from '@supolka/codemode-protocol';
import ivm from 'isolated-vm';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { DISPATCH_CODEC_SOURCE } from '../../src/sandbox/codec.ts';
import { readRuntimeSnapshot } from '../../src/sandbox/runtime.ts';
import { useSandbox } from '../helpers.ts';

/** Source text for each value, evaluated inside the isolate; the host builds the same value. */
const table: [string, string][] = [
  ['null', 'null'],
  ['nested data', '({ a: [1, { b: "x\\n\\u0000" }], c: true })'],
  ['an empty list', '[]'],
  ['an ArrayBuffer', 'new Uint8Array([1, 2, 3]).buffer'],
  [
    'every typed array',
    '[new Int8Array([-1]), new Uint8ClampedArray([255]), new Int16Array([-2]), new Uint16Array([2]), new Int32Array([-3]), new Uint32Array([3]), new Float32Array([0.5]), new Float64Array([Math.PI]), new BigInt64Array([-4n]), new BigUint64Array([4n])]',
  ],
  ['a DataView', 'new DataView(new Uint8Array([9, 8]).buffer)'],
  ['a view into a buffer', 'new Uint8Array(new Uint8Array([0, 1, 2, 3]).buffer, 1, 2)'],
  ['a payload past the slice boundary', 'new Uint8Array(0x8000 * 2 + 3).map((_, i) => i * 7)'],
  ['an object owning a tag key', '({ $binary: "Uint8Array", base64: "AAEC", $object: 1 })'],
];

let isolate: ivm.Isolate;
let context: ivm.Context;

beforeAll(() => {
  // The runtime snapshot supplies btoa and atob, as in every isolate of the sandbox.
  isolate = new ivm.Isolate({ memoryLimit: 64, snapshot: readRuntimeSnapshot() });
  context = isolate.createContextSync();
  context.evalSync(DISPATCH_CODEC_SOURCE);
});
afterAll(() => isolate.dispose());

test.each(table)('%s: identical wire output on both faces', (_, source) => {
  const inside = context.evalSync(`__stringifyForDispatch(${source})`) as string;
  // The host builds the same value by evaluating the same source in a host function.
  const value = new Function(`return ${source}`)() as unknown;
  expect(inside).toBe(stringifyForDispatch(value));
  expect(context.evalSync(`__stringifyForDispatch(__parseForDispatch(${JSON.stringify(inside)}))`)).toBe(
    inside,
  );
  expect(stringifyForDispatch(parseForDispatch(inside))).toBe(inside);
});

test('every identifier the source declares is a reserved provider name', () => {
  expect(CODEC_IDENTIFIERS.length).toBeGreaterThan(10);
  for (const name of CODEC_IDENTIFIERS) {
    expect(DISPATCH_CODEC_SOURCE).toMatch(new RegExp(`^(const|function|class) ${name}\\b`, 'm'));
    expect(reservedReason(name), name).toBeDefined();
    expect(RESERVED_WORDS.has(name)).toBe(false);
  }
});

test('a binary result crosses the boundary of a whole execution', async () => {
  const sandbox = useSandbox({ prepareAhead: false });
  const envelope = await sandbox.execute({
    code: 'async () => ({ bytes: new Uint8Array([1, 2, 3]), buffer: new ArrayBuffer(2) })',
  });
  expect(envelope.result).toStrictEqual({ bytes: new Uint8Array([1, 2, 3]), buffer: new ArrayBuffer(2) });
});
