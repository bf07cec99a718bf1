/**
 * The form bodies' codecs, a runtime piece (../pieces.ts) kept out of the startup snapshot: a
 * FormData serialized as multipart/form-data (RFC 7578), and the two parsers the Body mixin's
 * formData() uses. The first body made from a FormData, or read with formData(), loads it
 * (./body.ts). Every module it imports but this one is the snapshot's (scripts/build-runtime-piece.mjs).
 */
import { COPY_RESULT, hostOf } from '../host.ts';
import { TypeErrorCtor } from '../primordials.ts';
import { utf8Decode, utf8Encode } from '../utf8.ts';
import { blobBytes, concatBytes, File } from './blob.ts';
import { type Entry, FormData, formDataSlots } from './form-data.ts';

/** Escapes a name or filename for a Content-Disposition parameter, as the HTML form encoder does. */
function escapeParameter(text: string): string {
  return text.replace(/\n/g, '%0A').replace(/\r/g, '%0D').replace(/"/g, '%22');
}

/** A FormData's entries as a multipart/form-data body, with the boundary it chose. */
export function serialize(entries: readonly Entry[]): { bytes: Uint8Array; boundary: string } {
  // workerd's form: 16 random bytes as 32 hex digits.
  const random = hostOf().randomBytes.sync([16], COPY_RESULT) as Uint8Array;
  let boundary = '';
  for (const byte of random) boundary += (byte < 16 ? '0' : '') + byte.toString(16);
  const parts: Uint8Array[] = [];
  for (const [name, value] of entries) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${escapeParameter(name.replace(/\r\n|\r|\n/g, '\r\n'))}"`;
    if (typeof value === 'string') {
      parts.push(utf8Encode(`${head}\r\n\r\n${value.replace(/\r\n|\r|\n/g, '\r\n')}\r\n`));
    } else {
      head += `; filename="${escapeParameter(value.name)}"\r\nContent-Type: ${value.type || 'application/octet-stream'}\r\n\r\n`;
      parts.push(utf8Encode(head), blobBytes(value), utf8Encode('\r\n'));
    }
  }
  parts.push(utf8Encode(`--${boundary}--\r\n`));
  return { bytes: concatBytes(parts), boundary };
}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  outer: for (let index = from; index <= haystack.length - needle.length; index++) {
    for (let offset = 0; offset < needle.length; offset++)
      if (haystack[index + offset] !== needle[offset]) continue outer;
    return index;
  }
  return -1;
}

/** Parses a multipart/form-data body into a FormData; malformed input is a TypeError. */
export function parseMultipart(bytes: Uint8Array, boundary: string): FormData {
  const form = new FormData();
  const delimiter = utf8Encode(`--${boundary}`);
  const fail = () => new TypeErrorCtor('Failed to parse the body as multipart/form-data.');
  let position = indexOf(bytes, delimiter, 0);
  if (position === -1) throw fail();
  for (;;) {
    position += delimiter.length;
    if (bytes[position] === 0x2d && bytes[position + 1] === 0x2d) return form;
    if (bytes[position] !== 0x0d || bytes[position + 1] !== 0x0a) throw fail();
    position += 2;
    const headerEnd = indexOf(bytes, utf8Encode('\r\n\r\n'), position);
    if (headerEnd === -1) throw fail();
    const headers = utf8Decode(bytes.subarray(position, headerEnd), false).split('\r\n');
    const next = indexOf(bytes, delimiter, headerEnd + 4);
    if (next === -1) throw fail();
    const content = bytes.subarray(headerEnd + 4, next - 2);
    let name: string | undefined;
    let filename: string | undefined;
    let type = '';
    for (const header of headers) {
      const colon = header.indexOf(':');
      const key = header.slice(0, colon).trim().toLowerCase();
      const value = header.slice(colon + 1).trim();
      if (key === 'content-disposition') {
        name = /\bname="([^"]*)"/i.exec(value)?.[1];
        filename = /\bfilename="([^"]*)"/i.exec(value)?.[1];
      } else if (key === 'content-type') type = value;
    }
    if (name === undefined) throw fail();
    const decoded = decodeURIComponentSafe(name);
    if (filename === undefined) formDataSlots.append(form, decoded, utf8Decode(content, false));
    else
      formDataSlots.append(
        form,
        decoded,
        new File([content.slice()], decodeURIComponentSafe(filename), { type }),
      );
    position = next;
  }
}

function decodeURIComponentSafe(text: string): string {
  return text.replace(/%0A/gi, '\n').replace(/%0D/gi, '\r').replace(/%22/g, '"');
}

/** https://url.spec.whatwg.org/#concept-urlencoded-parser */
export function parseUrlEncoded(text: string): FormData {
  const form = new FormData();
  for (const sequence of text.split('&')) {
    if (sequence === '') continue;
    const equals = sequence.indexOf('=');
    const name = equals === -1 ? sequence : sequence.slice(0, equals);
    const value = equals === -1 ? '' : sequence.slice(equals + 1);
    formDataSlots.append(form, percentDecode(name), percentDecode(value));
  }
  return form;
}

function percentDecode(text: string): string {
  const bytes = utf8Encode(text.replace(/\+/g, ' '));
  const out: number[] = [];
  for (let index = 0; index < bytes.length; index++) {
    const byte = bytes[index] as number;
    if (byte === 0x25 && index + 2 < bytes.length) {
      const hex = String.fromCharCode(bytes[index + 1] as number, bytes[index + 2] as number);
      if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
        out.push(Number.parseInt(hex, 16));
        index += 2;
        continue;
      }
    }
    out.push(byte);
  }
  return utf8Decode(new Uint8Array(out), false);
}
