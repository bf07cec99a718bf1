/** TextEncoder and TextDecoder: UTF-8 both ways, UTF-16, labels, BOM, fatal mode, streaming. */
import { defineArea } from '../src/case.ts';

export default defineArea('encoding', [
  { name: 'encode-ascii', quick: true, code: `async () => Array.from(new TextEncoder().encode('hi!'))` },
  { name: 'encode-multibyte', code: `async () => Array.from(new TextEncoder().encode('é✓😀'))` },
  {
    name: 'decode-utf8',
    quick: true,
    code: `async () => new TextDecoder().decode(new Uint8Array([104, 195, 169, 108, 108, 111, 32, 226, 156, 147]))`,
  },
  {
    name: 'decode-invalid-replacement',
    code: `async () => {
  const text = new TextDecoder().decode(new Uint8Array([0x61, 0xff, 0x62, 0xe2, 0x82, 0x63, 0xf0, 0x9f]));
  return { text, codes: Array.from(text, (c) => c.codePointAt(0)) };
}`,
  },
  {
    name: 'fatal-mode',
    code: `async () => {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try { decoder.decode(new Uint8Array([0xff])); return 'no error'; }
  catch (e) { return { name: e.name, message: e.message, isTypeError: e instanceof TypeError, fatal: decoder.fatal }; }
}`,
  },
  {
    name: 'bom-handling',
    code: `async () => {
  const bytes = new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69]);
  const stripped = new TextDecoder().decode(bytes);
  const kept = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
  return { stripped, strippedLength: stripped.length, keptLength: kept.length, keptFirst: kept.charCodeAt(0), ignoreBOM: new TextDecoder().ignoreBOM };
}`,
  },
  {
    name: 'labels',
    code: `async () => ['utf-8', 'UTF8', ' unicode-1-1-utf-8 ', 'utf-16', 'utf-16le', 'UTF-16BE', 'latin1', 'ascii', 'iso-8859-2', 'shift_jis', 'gbk', 'euc-kr', 'x-user-defined'].map((label) => {
  try { return label + ' -> ' + new TextDecoder(label).encoding; } catch (e) { return label + ' -> ' + e.name + ': ' + e.message; }
})`,
  },
  {
    name: 'utf16-decoding',
    code: `async () => ({
  le: new TextDecoder('utf-16le').decode(new Uint8Array([104, 0, 105, 0, 0x3d, 0xd8, 0x00, 0xde])),
  be: new TextDecoder('utf-16be').decode(new Uint8Array([0, 104, 0, 105])),
  bomLe: new TextDecoder('utf-16le').decode(new Uint8Array([0xff, 0xfe, 104, 0])),
  odd: new TextDecoder('utf-16le').decode(new Uint8Array([104, 0, 105])),
})`,
  },
  {
    name: 'streaming-decode',
    code: `async () => {
  const bytes = new TextEncoder().encode('naïve café ✓');
  const decoder = new TextDecoder();
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) out += decoder.decode(bytes.subarray(i, i + 3), { stream: true });
  out += decoder.decode();
  const unstreamed = Array.from({ length: Math.ceil(bytes.length / 3) }, (_, i) => new TextDecoder().decode(bytes.subarray(i * 3, i * 3 + 3))).join('');
  return { out, unstreamedLength: unstreamed.length, same: out === 'naïve café ✓' };
}`,
  },
  {
    name: 'encode-into',
    code: `async () => {
  const encoder = new TextEncoder();
  const small = new Uint8Array(4);
  const r1 = encoder.encodeInto('héllo', small);
  const big = new Uint8Array(16);
  const r2 = encoder.encodeInto('😀😀', big);
  const r3 = encoder.encodeInto('😀', new Uint8Array(3));
  return { r1, small: Array.from(small), r2, r3 };
}`,
  },
  {
    name: 'legacy-single-byte',
    code: `async () => ({
  windows1252: new TextDecoder('latin1').decode(new Uint8Array([0x80, 0xe9, 0x41])),
  latin2: new TextDecoder('iso-8859-2').decode(new Uint8Array([0xa3, 0xb3])),
})`,
  },
  {
    name: 'file-size-in-bytes',
    tools: ['files'],
    code: `async () => {
  const text = await files.read('notes.txt');
  const bytes = new TextEncoder().encode(text + '✓');
  return { chars: text.length + 1, bytes: bytes.length, first: bytes[0], last: Array.from(bytes.slice(-3)) };
}`,
  },
  {
    name: 'lone-surrogates',
    code: `async () => ({
  high: Array.from(new TextEncoder().encode('a\\ud800b')),
  low: Array.from(new TextEncoder().encode('\\udc00')),
  pair: Array.from(new TextEncoder().encode('\\ud83d\\ude00')),
})`,
  },
  {
    name: 'buffer-source-kinds',
    code: `async () => {
  const bytes = new TextEncoder().encode('abcdef');
  const d = new TextDecoder();
  return {
    arrayBuffer: d.decode(bytes.buffer),
    view: d.decode(new DataView(bytes.buffer, 1, 3)),
    sub: d.decode(bytes.subarray(2, 4)),
    u16: d.decode(new Uint16Array([0x6968])),
    nothing: d.decode(),
    undef: d.decode(undefined),
  };
}`,
  },
  {
    name: 'encode-coercions',
    code: `async () => {
  const e = new TextEncoder();
  return { none: e.encode().length, undef: e.encode(undefined).length, nul: Array.from(e.encode(null)), num: Array.from(e.encode(12)), obj: e.encode({}).length, encoding: e.encoding };
}`,
  },
  {
    name: 'decode-non-buffer',
    code: `async () => {
  try { new TextDecoder().decode('abc'); return 'no error'; }
  catch (e) { return e.name + ': ' + e.message; }
}`,
  },
  {
    name: 'shift-jis-decode',
    code: `async () => new TextDecoder('shift_jis').decode(new Uint8Array([0x82, 0xa0, 0x82, 0xa2, 0x8a, 0xbf]))`,
  },
  {
    name: 'observable-shape',
    code: `async () => {
  const enc = new TextEncoder();
  const dec = new TextDecoder();
  return { enc: Object.prototype.toString.call(enc), dec: Object.prototype.toString.call(dec), encOwn: Object.getOwnPropertyNames(enc), decOwn: Object.getOwnPropertyNames(dec),
    symbols: Object.getOwnPropertySymbols(enc).length + Object.getOwnPropertySymbols(dec).length, encodeLength: enc.encode.length, decodeLength: dec.decode.length };
}`,
  },
]);
