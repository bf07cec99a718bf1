/**
 * TextEncoder, TextDecoder, TextEncoderStream and TextDecoderStream inside the isolate
 * (https://encoding.spec.whatwg.org/): the shape user code observes, compared with what workerd
 * 2026-11-17 showed for the same expressions; BOM handling, fatal mode and streaming of the
 * decoders; encodeInto; and the label table against the standard's encodings.json.
 */
import { expect, test } from 'vitest';
import { getEncoding, UNDECODED_ENCODINGS } from '../../../runtime/src/encoding/encodings.ts';
import { ILLEGAL, resultOf, T, useSandbox } from '../helpers.ts';
import { readWptJson } from './wpt/harness.ts';

const sandbox = useSandbox();

const run = (code: string) => resultOf(sandbox, code);

test('every label of the standard selects its encoding (the name is lowercased), whatever the case and ASCII whitespace', () => {
  const sections = readWptJson('whatwg-encoding/encodings.json') as {
    encodings: { name: string; labels: string[] }[];
  }[];
  let labels = 0;
  for (const { encodings } of sections) {
    for (const { name, labels: list } of encodings) {
      for (const label of list) {
        labels++;
        expect(getEncoding(label), label).toBe(name.toLowerCase());
        expect(getEncoding(` \t\n\f\r${label.toUpperCase()}\r\f\n\t `), label).toBe(name.toLowerCase());
      }
    }
  }
  expect(labels).toBe(228);
  // Only ASCII letters fold, and only ASCII whitespace is stripped.
  expect(getEncoding('\u212Aoi8-r')).toBeUndefined();
  expect(getEncoding('\u00a0utf-8')).toBeUndefined();
  expect(getEncoding('utf-8\v')).toBeUndefined();
  expect(getEncoding('__proto__')).toBeUndefined();
  expect(UNDECODED_ENCODINGS).toStrictEqual([
    'gbk',
    'gb18030',
    'big5',
    'euc-jp',
    'iso-2022-jp',
    'shift_jis',
    'euc-kr',
  ]);
});

test("the prototypes have workerd's keys, in its order, with its lengths, enumerability and getter names", async () => {
  expect(
    await run(`async () => {
    const describe = (object) => Reflect.ownKeys(object).map((key) => {
      const d = Object.getOwnPropertyDescriptor(object, key);
      const kind = d.get ? 'get' + (d.set ? '/set' : '') + ':' + JSON.stringify(d.get.name) : typeof d.value === 'function' ? 'fn' + d.value.length : typeof d.value;
      return String(key) + ' ' + kind + (d.enumerable ? ' E' : '');
    });
    return [TextEncoder, TextDecoder, TextEncoderStream, TextDecoderStream].map((c) => [c.name, c.length, describe(c.prototype),
      Object.prototype.toString.call(c.prototype)]);
  }`),
  ).toStrictEqual([
    [
      'TextEncoder',
      0,
      [
        'encode fn0 E',
        'encodeInto fn0 E',
        'encoding get:"" E',
        'constructor fn0',
        'Symbol(Symbol.toStringTag) string',
      ],
      '[object TextEncoder]',
    ],
    [
      'TextDecoder',
      0,
      [
        'decode fn0 E',
        'encoding get:"" E',
        'fatal get:"" E',
        'ignoreBOM get:"" E',
        'constructor fn0',
        'Symbol(Symbol.toStringTag) string',
      ],
      '[object TextDecoder]',
    ],
    [
      'TextEncoderStream',
      0,
      ['encoding get:"" E', 'constructor fn0', 'Symbol(Symbol.toStringTag) string'],
      '[object TextEncoderStream]',
    ],
    [
      'TextDecoderStream',
      0,
      [
        'encoding get:"" E',
        'fatal get:"" E',
        'ignoreBOM get:"" E',
        'constructor fn0',
        'Symbol(Symbol.toStringTag) string',
      ],
      '[object TextDecoderStream]',
    ],
  ]);
});

test('instances have no own keys; brand checks throw the illegal invocation', async () => {
  expect(
    await run(`async () => { ${T}
    const td = Object.getOwnPropertyDescriptor(TextDecoder.prototype, 'encoding').get;
    return [Reflect.ownKeys(new TextEncoder()).length, Reflect.ownKeys(new TextDecoder()).length, Object.prototype.toString.call(new TextDecoder()),
      t(() => td.call({})), t(() => TextDecoder.prototype.decode.call({}, new Uint8Array(1))), t(() => TextEncoder.prototype.encode.call({}, 'a')),
      t(() => TextEncoder.prototype.encodeInto.call({}, 'a', new Uint8Array(1))), t(() => TextDecoder())];
  }`),
  ).toStrictEqual([
    0,
    0,
    '[object TextDecoder]',
    ILLEGAL,
    ILLEGAL,
    ILLEGAL,
    ILLEGAL,
    "TypeError: Class constructor TextDecoder cannot be invoked without 'new'",
  ]);
});

test('TextEncoder: UTF-8, lone surrogates as U+FFFD, and the argument conversions', async () => {
  expect(
    await run(`async () => {
    const e = new TextEncoder();
    const bytes = (v) => Array.from(v);
    const encoded = e.encode('a€😀');
    return [e.encoding, bytes(encoded), Object.prototype.toString.call(encoded), encoded.buffer.byteLength, bytes(e.encode()), bytes(e.encode(undefined)),
      bytes(e.encode(null)), bytes(e.encode('\\ud800x')), bytes(e.encode('x\\udc00')), bytes(e.encode('\\ud83d\\ude00')), bytes(e.encode(12)),
      new TextEncoder('utf-16').encoding];
  }`),
  ).toStrictEqual([
    'utf-8',
    [0x61, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80],
    '[object Uint8Array]',
    8,
    [],
    [],
    [110, 117, 108, 108],
    [0xef, 0xbf, 0xbd, 0x78],
    [0x78, 0xef, 0xbf, 0xbd],
    [0xf0, 0x9f, 0x98, 0x80],
    [0x31, 0x32],
    'utf-8',
  ]);
});

test('encodeInto writes whole scalar values that fit and counts code units read and bytes written', async () => {
  expect(
    await run(`async () => { ${T}
    const e = new TextEncoder();
    const into = (text, size) => { const u = new Uint8Array(size); const r = e.encodeInto(text, u); return [r.read, r.written, Array.from(u)]; };
    const result = e.encodeInto('ab', new Uint8Array(4));
    return [into('a€😀', 5), into('a\\ud800', 3), into('😀', 3), into('😀', 4), into('', 2), into('abc', 2),
      Object.keys(result), Object.getPrototypeOf(result) === Object.prototype,
      e.encodeInto('ab', new Uint8Array(new SharedArrayBuffer(4))).written,
      e.encodeInto(undefined, new Uint8Array(20)).read,
      t(() => e.encodeInto()), t(() => e.encodeInto('a')), t(() => e.encodeInto('a', new Uint16Array(2))),
      t(() => e.encodeInto('a', new ArrayBuffer(2))), t(() => e.encodeInto('a', new DataView(new ArrayBuffer(2))))];
  }`),
  ).toStrictEqual([
    [2, 4, [0x61, 0xe2, 0x82, 0xac, 0]],
    [1, 1, [0x61, 0, 0]],
    [0, 0, [0, 0, 0]],
    [2, 4, [0xf0, 0x9f, 0x98, 0x80]],
    [0, 0, [0, 0]],
    [2, 2, [0x61, 0x62]],
    ['read', 'written'],
    true,
    2,
    9,
    "TypeError: Failed to execute 'encodeInto' on 'TextEncoder': parameter 1 is not of type 'String'.",
    "TypeError: Failed to execute 'encodeInto' on 'TextEncoder': parameter 2 is not of type 'Uint8Array'.",
    "TypeError: Failed to execute 'encodeInto' on 'TextEncoder': parameter 2 is not of type 'Uint8Array'.",
    "TypeError: Failed to execute 'encodeInto' on 'TextEncoder': parameter 2 is not of type 'Uint8Array'.",
    "TypeError: Failed to execute 'encodeInto' on 'TextEncoder': parameter 2 is not of type 'Uint8Array'.",
  ]);
});

test('TextDecoder labels: the encoding attribute, and the RangeErrors for unknown, replacement and undecoded labels', async () => {
  expect(
    await run(`async () => { ${T}
    const enc = (label) => t(() => new TextDecoder(label).encoding);
    return [enc(undefined), enc('latin1'), enc('ascii'), enc('latin2'), enc(' UTF8 '), enc('utf-16'), enc('unicodefffe'), enc('x-user-defined'),
      enc('iso-8859-8-i'), enc('iso-8859-11'), enc('nope'), enc(null), enc('replacement'), enc('iso-2022-kr'), enc('sjis'), enc('gb2312'),
      t(() => new TextDecoder(Symbol())), t(() => new TextDecoder('utf-8', 5)), t(() => new TextDecoderStream('nope'))];
  }`),
  ).toStrictEqual([
    'utf-8',
    'windows-1252',
    'windows-1252',
    'iso-8859-2',
    'utf-8',
    'utf-16le',
    'utf-16be',
    'x-user-defined',
    'iso-8859-8-i',
    'windows-874',
    'RangeError: "nope" is not a valid encoding.',
    'RangeError: "null" is not a valid encoding.',
    'RangeError: "replacement" is not a valid encoding.',
    'RangeError: "iso-2022-kr" is not a valid encoding.',
    'RangeError: "sjis" names the encoding shift_jis, which this runtime does not decode.',
    'RangeError: "gb2312" names the encoding gbk, which this runtime does not decode.',
    'TypeError: Cannot convert a Symbol value to a string',
    "TypeError: Failed to construct 'TextDecoder': constructor parameter 2 is not of type 'ConstructorOptions'.",
    'RangeError: "nope" is not a valid encoding.',
  ]);
});

test('TextDecoder options: fatal and ignoreBOM convert to booleans; null options are the defaults', async () => {
  expect(
    await run(`async () => { ${T}
    const d = new TextDecoder('utf-16', { fatal: 1, ignoreBOM: 'x' });
    const order = [];
    new TextDecoder('utf-8', { get ignoreBOM() { order.push('ignoreBOM'); }, get fatal() { order.push('fatal'); } });
    return [d.encoding, d.fatal, d.ignoreBOM, new TextDecoder().fatal, new TextDecoder().ignoreBOM, new TextDecoder('utf-8', null).fatal, order,
      t(() => new TextDecoder().decode(new Uint8Array([65]), null)), t(() => new TextDecoder().decode(new Uint8Array(1), 5))];
  }`),
  ).toStrictEqual([
    'utf-16le',
    true,
    true,
    false,
    false,
    false,
    ['fatal', 'ignoreBOM'],
    'A',
    "TypeError: Failed to execute 'decode' on 'TextDecoder': parameter 2 is not of type 'DecodeOptions'.",
  ]);
});

test('decode takes any BufferSource, a SharedArrayBuffer too, and nothing else', async () => {
  expect(
    await run(`async () => { ${T}
    const d = new TextDecoder();
    const bytes = new Uint8Array([0x41, 0x42, 0x43, 0x44]);
    const detached = new ArrayBuffer(4); structuredClone(detached, { transfer: [detached] });
    const shared = new SharedArrayBuffer(2); new Uint8Array(shared).set([0x68, 0x69]);
    return [d.decode(bytes), d.decode(bytes.buffer), d.decode(bytes.subarray(1, 3)), d.decode(new DataView(bytes.buffer, 2)),
      d.decode(new Uint16Array([0x4241])), d.decode(shared), d.decode(new Uint8Array(shared)), d.decode(detached), d.decode(), d.decode(undefined),
      t(() => d.decode(null)), t(() => d.decode('abc')), t(() => d.decode([65])), t(() => d.decode({}))];
  }`),
  ).toStrictEqual([
    'ABCD',
    'ABCD',
    'BC',
    'CD',
    'AB',
    'hi',
    'hi',
    '',
    '',
    '',
    "TypeError: Failed to execute 'decode' on 'TextDecoder': parameter 1 is not of type 'Array'.",
    "TypeError: Failed to execute 'decode' on 'TextDecoder': parameter 1 is not of type 'Array'.",
    "TypeError: Failed to execute 'decode' on 'TextDecoder': parameter 1 is not of type 'Array'.",
    "TypeError: Failed to execute 'decode' on 'TextDecoder': parameter 1 is not of type 'Array'.",
  ]);
});

test('UTF-8: invalid sequences, the BOM, ignoreBOM, fatal, and streaming across calls', async () => {
  expect(
    await run(`async () => { ${T}
    const u = (...b) => new Uint8Array(b);
    const d = new TextDecoder();
    const fatal = new TextDecoder('utf-8', { fatal: true });
    const stream = new TextDecoder();
    const parts = [stream.decode(u(0xe2, 0x82), { stream: true }), stream.decode(u(0xac), { stream: true }), stream.decode(u(0xf0, 0x9f), { stream: true }),
      stream.decode(u(0x98, 0x80)), stream.decode(u(0xe2, 0x82), { stream: true }), stream.decode()];
    const bom = new TextDecoder();
    const bomParts = [bom.decode(u(0xef, 0xbb), { stream: true }), bom.decode(u(0xbf, 0x41), { stream: true }), bom.decode(u(0xef, 0xbb, 0xbf, 0x42))];
    const reset = new TextDecoder('utf-8', { fatal: true });
    try { reset.decode(u(0xe2), { stream: true }); reset.decode(); } catch {}
    return [d.decode(u(0x61, 0xff, 0x62)), d.decode(u(0xc0, 0x80)), d.decode(u(0xed, 0xa0, 0x80)), d.decode(u(0xf4, 0x90, 0x80, 0x80)),
      d.decode(u(0xe2, 0x82, 0x41)), d.decode(u(0xf0, 0x9f, 0x98)), d.decode(u(0xef, 0xbb, 0xbf, 0x41)), d.decode(u(0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf)).length,
      new TextDecoder('utf-8', { ignoreBOM: true }).decode(u(0xef, 0xbb, 0xbf, 0x41)).length,
      t(() => fatal.decode(u(0xff))), t(() => fatal.decode(u(0xe2, 0x82))), fatal.decode(u(0xe2, 0x82, 0xac)), parts, bomParts, reset.decode(u(0x41))];
  }`),
  ).toStrictEqual([
    'a\ufffdb',
    '\ufffd\ufffd',
    '\ufffd\ufffd\ufffd',
    '\ufffd\ufffd\ufffd\ufffd',
    '\ufffdA',
    '\ufffd',
    'A',
    1,
    2,
    'TypeError: Failed to decode input.',
    'TypeError: Failed to decode input.',
    '€',
    ['', '€', '', '😀', '', '\ufffd'],
    // The third call continues the stream (the second asked for it), so its U+FEFF is no BOM.
    ['', 'A', '\ufeffB'],
    'A',
  ]);
});

test('UTF-16LE and UTF-16BE: pairs, lone surrogates, an odd byte, the BOM, streaming', async () => {
  expect(
    await run(`async () => { ${T}
    const u = (...b) => new Uint8Array(b);
    const le = new TextDecoder('utf-16le');
    const be = new TextDecoder('utf-16be');
    const stream = new TextDecoder('utf-16le');
    const parts = [stream.decode(u(0x3d), { stream: true }), stream.decode(u(0xd8, 0x00), { stream: true }), stream.decode(u(0xde, 0x41), { stream: true }),
      stream.decode(u(0x00))];
    return [le.decode(u(0x41, 0x00, 0x3d, 0xd8, 0x00, 0xde)), be.decode(u(0x00, 0x41, 0xd8, 0x3d, 0xde, 0x00)), le.decode(u(0x00, 0xd8, 0x41, 0x00)),
      le.decode(u(0x00, 0xdc, 0x41, 0x00)), le.decode(u(0x41, 0x00, 0x42)), le.decode(u(0x00, 0xd8)), le.decode(u(0xff, 0xfe, 0x41, 0x00)),
      be.decode(u(0xfe, 0xff, 0x00, 0x41)), le.decode(u(0xfe, 0xff, 0x41, 0x00)).length,
      new TextDecoder('utf-16le', { ignoreBOM: true }).decode(u(0xff, 0xfe, 0x41, 0x00)).length,
      t(() => new TextDecoder('utf-16le', { fatal: true }).decode(u(0x00, 0xd8))), t(() => new TextDecoder('utf-16be', { fatal: true }).decode(u(0x00))),
      parts];
  }`),
  ).toStrictEqual([
    'A😀',
    'A😀',
    '\ufffdA',
    '\ufffdA',
    'A\ufffd',
    '\ufffd',
    'A',
    'A',
    2,
    2,
    // workerd decodes this without throwing: a bug there; the standard's fatal mode throws.
    'TypeError: Failed to decode input.',
    'TypeError: Failed to decode input.',
    ['', '', '😀', 'A'],
  ]);
});

test('legacy single-byte encodings and x-user-defined; fatal on a byte the index leaves unmapped', async () => {
  expect(
    await run(`async () => { ${T}
    const u = (...b) => new Uint8Array(b);
    return [new TextDecoder('latin2').decode(u(0xa1, 0x41)), new TextDecoder('latin1').decode(u(0x80, 0xe9)), new TextDecoder('koi8-r').decode(u(0xc1)),
      new TextDecoder('windows-874').decode(u(0xdb)), t(() => new TextDecoder('windows-874', { fatal: true }).decode(u(0xdb))),
      new TextDecoder('iso-8859-8-i').decode(u(0xe0)), new TextDecoder('x-user-defined').decode(u(0x80, 0x41, 0xff)),
      new TextDecoder('latin1').decode(u(0xef, 0xbb, 0xbf)).length];
  }`),
  ).toStrictEqual(['ĄA', '€é', 'а', '\ufffd', 'TypeError: Failed to decode input.', 'א', '\uf780A\uf7ff', 3]);
});

test('a large input decodes in chunks, and a decode of many MB stays linear', async () => {
  expect(
    await run(`async () => {
    const text = 'aé€😀'.repeat(100000);
    const bytes = new TextEncoder().encode(text);
    const back = new TextDecoder().decode(bytes);
    const utf16 = new Uint8Array(text.length * 2);
    for (let i = 0; i < text.length; i++) { const c = text.charCodeAt(i); utf16[2 * i] = c & 0xff; utf16[2 * i + 1] = c >> 8; }
    return [bytes.length, back === text, new TextDecoder('utf-16le').decode(utf16) === text];
  }`),
  ).toStrictEqual([1000000, true, true]);
});

test('TextEncoderStream and TextDecoderStream are TransformStreams, as in workerd', async () => {
  expect(
    await run(`async () => { ${T}
    const tes = new TextEncoderStream();
    const tds = new TextDecoderStream('utf-16le', { fatal: true });
    return [Object.getPrototypeOf(TextEncoderStream.prototype) === TransformStream.prototype, Object.getPrototypeOf(TextDecoderStream.prototype) === TransformStream.prototype,
      tes.encoding, tds.encoding, tds.fatal, tds.ignoreBOM, typeof tds.readable, typeof tds.writable, tes instanceof TransformStream,
      String(tes), String(tds), t(() => new TextDecoderStream('latin2').encoding), t(() => TextDecoderStream()),
      t(() => Object.getOwnPropertyDescriptor(TextDecoderStream.prototype, 'encoding').get.call(new TransformStream()))];
  }`),
  ).toStrictEqual([
    true,
    true,
    'utf-8',
    'utf-16le',
    true,
    false,
    'object',
    'object',
    true,
    '[object TextEncoderStream]',
    '[object TextDecoderStream]',
    'iso-8859-2',
    "TypeError: Class constructor TextDecoderStream cannot be invoked without 'new'",
    ILLEGAL,
  ]);
});

test('the streams carry surrogate pairs and UTF-8 sequences across chunks, and flush what is left', async () => {
  expect(
    await run(`async () => {
    const collect = async (stream, chunks) => {
      const writer = stream.writable.getWriter();
      for (const chunk of chunks) writer.write(chunk).catch(() => {});
      writer.close().catch(() => {});
      const out = [];
      const reader = stream.readable.getReader();
      try { for (;;) { const { value, done } = await reader.read(); if (done) break; out.push(value); } }
      catch (e) { out.push(e.name + ': ' + e.message); }
      return out;
    };
    const u = (...b) => new Uint8Array(b);
    const encoded = (await collect(new TextEncoderStream(), ['a\\ud83d', '\\ude00b', '', 'x', '\\ud83d'])).map((c) => [Object.prototype.toString.call(c), Array.from(c)]);
    return [encoded,
      await collect(new TextDecoderStream(), [u(0xe2, 0x82), u(0xac, 0x41), u(0xe2)]),
      await collect(new TextDecoderStream(), [u(0xef, 0xbb), u(0xbf, 0x41), new ArrayBuffer(0), new DataView(u(0x42).buffer)]),
      await collect(new TextDecoderStream('utf-16be'), [u(0xd8), u(0x3d, 0xde), u(0x00)]),
      await collect(new TextDecoderStream(), ['abc']),
      await collect(new TextDecoderStream('utf-8', { fatal: true }), [u(0xff)]),
      await collect(new TextEncoderStream(), [12, { toString() { return 'o'; } }]).then((c) => c.map((x) => Array.from(x)))];
  }`),
  ).toStrictEqual([
    [
      ['[object Uint8Array]', [0x61]],
      ['[object Uint8Array]', [0xf0, 0x9f, 0x98, 0x80, 0x62]],
      ['[object Uint8Array]', [0x78]],
      ['[object Uint8Array]', [0xef, 0xbf, 0xbd]],
    ],
    ['€A', '\ufffd'],
    ['A', 'B'],
    ['😀'],
    [
      'TypeError: This TransformStream is being used as a byte stream, but received a value that is not a BufferSource.',
    ],
    ['TypeError: Failed to decode input.'],
    [[0x31, 0x32], [0x6f]],
  ]);
});
