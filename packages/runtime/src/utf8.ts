/**
 * UTF-8 encode and decode (Encoding, https://encoding.spec.whatwg.org/#utf-8), the one encoding
 * bodies, blobs and forms use. Encoding replaces lone surrogates with U+FFFD; decoding replaces
 * invalid sequences with U+FFFD, and drops a leading BOM when asked.
 */
import {
  ReflectApply,
  StringFromCharCode,
  StringPrototypeCharCodeAt,
  Uint8ArrayCtor,
} from './primordials.ts';

export function utf8Encode(text: string): Uint8Array {
  const out = new Uint8ArrayCtor(text.length * 3);
  let length = 0;
  for (let index = 0; index < text.length; index++) {
    let unit = StringPrototypeCharCodeAt(text, index);
    if (unit >= 0xd800 && unit <= 0xdfff) {
      const next = index + 1 < text.length ? StringPrototypeCharCodeAt(text, index + 1) : 0;
      if (unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        const point = 0x10000 + ((unit - 0xd800) << 10) + (next - 0xdc00);
        index++;
        out[length++] = 0xf0 | (point >> 18);
        out[length++] = 0x80 | ((point >> 12) & 0x3f);
        out[length++] = 0x80 | ((point >> 6) & 0x3f);
        out[length++] = 0x80 | (point & 0x3f);
        continue;
      }
      unit = 0xfffd;
    }
    if (unit < 0x80) out[length++] = unit;
    else if (unit < 0x800) {
      out[length++] = 0xc0 | (unit >> 6);
      out[length++] = 0x80 | (unit & 0x3f);
    } else {
      out[length++] = 0xe0 | (unit >> 12);
      out[length++] = 0x80 | ((unit >> 6) & 0x3f);
      out[length++] = 0x80 | (unit & 0x3f);
    }
  }
  return out.slice(0, length);
}

/** Decodes UTF-8 with replacement; `stripBOM` drops one leading U+FEFF (the Body mixin does). */
export function utf8Decode(bytes: Uint8Array, stripBOM = true): string {
  let text = '';
  let chunk: number[] = [];
  const flush = () => {
    text += ReflectApply(StringFromCharCode, null, chunk) as string;
    chunk = [];
  };
  let index = stripBOM && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (index < bytes.length) {
    const first = bytes[index] as number;
    let point = 0xfffd;
    let size = 1;
    if (first < 0x80) point = first;
    else if (first >= 0xc2 && first <= 0xf4) {
      const needed = first < 0xe0 ? 1 : first < 0xf0 ? 2 : 3;
      const lower = first === 0xe0 ? 0xa0 : first === 0xf0 ? 0x90 : 0x80;
      const upper = first === 0xed ? 0x9f : first === 0xf4 ? 0x8f : 0xbf;
      let value = first & (needed === 1 ? 0x1f : needed === 2 ? 0x0f : 0x07);
      let seen = 0;
      for (; seen < needed; seen++) {
        const next = bytes[index + 1 + seen];
        const low = seen === 0 ? lower : 0x80;
        const high = seen === 0 ? upper : 0xbf;
        if (next === undefined || next < low || next > high) break;
        value = (value << 6) | (next & 0x3f);
      }
      if (seen === needed) {
        point = value;
        size = needed + 1;
      } else {
        size = seen + 1;
      }
    }
    index += size;
    if (point > 0xffff) {
      point -= 0x10000;
      chunk.push(0xd800 + (point >> 10), 0xdc00 + (point & 0x3ff));
    } else chunk.push(point);
    if (chunk.length > 0x2000) flush();
  }
  flush();
  return text;
}
