/**
 * The form bodies' codecs, a runtime piece (../pieces.ts) kept out of the startup snapshot: a
 * FormData serialized as multipart/form-data (RFC 7578), and the two parsers the Body mixin's
 * formData() uses. The first body made from a FormData, or read with formData(), loads it
 * (./body.ts). Every module it imports but this one is the snapshot's (scripts/build-runtime-piece.mjs).
 */
import { utf8DecodeWithoutBOM, utf8Encode } from '../encoding/utf8.ts';
import { COPY_RESULT, hostOf } from '../host.ts';
import {
  ArrayPrototypePush,
  NumberPrototypeToString,
  RegExpPrototypeExec,
  StringPrototypeIndexOf,
  StringPrototypeSlice,
  StringPrototypeSplit,
  StringPrototypeToLowerCase,
  StringPrototypeTrim,
  TypedArrayPrototypeGetBuffer,
  TypedArrayPrototypeGetByteLength,
  TypedArrayPrototypeSlice,
  TypedArrayPrototypeSubarray,
  TypeErrorCtor,
  Uint8ArrayCtor,
} from '../primordials.ts';
import { blobBytes, concatBytes, fileOf } from './blob.ts';
import { type Entry, FormData, formDataSlots } from './form-data.ts';

/** Escapes a name or filename for a Content-Disposition parameter, as the HTML form encoder does. */
function escapeParameter(text: string): string {
  let escaped = '';
  for (let index = 0; index < text.length; index++) {
    const character = text[index] as string;
    escaped +=
      character === '\n' ? '%0A' : character === '\r' ? '%0D' : character === '"' ? '%22' : character;
  }
  return escaped;
}

/** Every line break (CRLF, CR or LF) as CRLF. */
function normalizeLineBreaks(text: string): string {
  let normalized = '';
  for (let index = 0; index < text.length; index++) {
    const character = text[index] as string;
    if (character === '\r') {
      normalized += '\r\n';
      if (text[index + 1] === '\n') index++;
    } else normalized += character === '\n' ? '\r\n' : character;
  }
  return normalized;
}

/** A FormData's entries as a multipart/form-data body, with the boundary it chose. */
export function serialize(entries: readonly Entry[]): { bytes: Uint8Array; boundary: string } {
  // workerd's form: 16 random bytes as 32 hex digits.
  const random = hostOf().randomBytes.sync([16], COPY_RESULT) as Uint8Array;
  let boundary = '';
  for (let index = 0; index < TypedArrayPrototypeGetByteLength(random); index++) {
    const byte = random[index] as number;
    boundary += (byte < 16 ? '0' : '') + NumberPrototypeToString(byte, 16);
  }
  const parts: Uint8Array[] = [];
  for (let index = 0; index < entries.length; index++) {
    const pair = entries[index] as Entry;
    const name = pair[0];
    const value = pair[1];
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${escapeParameter(normalizeLineBreaks(name))}"`;
    if (typeof value === 'string') {
      ArrayPrototypePush(parts, utf8Encode(`${head}\r\n\r\n${normalizeLineBreaks(value)}\r\n`));
    } else {
      head += `; filename="${escapeParameter(value.name)}"\r\nContent-Type: ${value.type || 'application/octet-stream'}\r\n\r\n`;
      ArrayPrototypePush(parts, utf8Encode(head), blobBytes(value), utf8Encode('\r\n'));
    }
  }
  ArrayPrototypePush(parts, utf8Encode(`--${boundary}--\r\n`));
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

const DISPOSITION_NAME = /\bname="([^"]*)"/i;
const DISPOSITION_FILENAME = /\bfilename="([^"]*)"/i;

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
    const headers = StringPrototypeSplit(
      utf8DecodeWithoutBOM(TypedArrayPrototypeSubarray(bytes, position, headerEnd)),
      '\r\n',
    );
    const next = indexOf(bytes, delimiter, headerEnd + 4);
    if (next === -1) throw fail();
    const content = TypedArrayPrototypeSubarray(bytes, headerEnd + 4, next - 2);
    let name: string | undefined;
    let filename: string | undefined;
    let type = '';
    for (let index = 0; index < headers.length; index++) {
      const header = headers[index] as string;
      const colon = StringPrototypeIndexOf(header, ':');
      const key = StringPrototypeToLowerCase(StringPrototypeTrim(StringPrototypeSlice(header, 0, colon)));
      const value = StringPrototypeTrim(StringPrototypeSlice(header, colon + 1));
      if (key === 'content-disposition') {
        name = RegExpPrototypeExec(DISPOSITION_NAME, value)?.[1];
        filename = RegExpPrototypeExec(DISPOSITION_FILENAME, value)?.[1];
      } else if (key === 'content-type') type = value;
    }
    if (name === undefined) throw fail();
    const decoded = decodeURIComponentSafe(name);
    if (filename === undefined) formDataSlots.append(form, decoded, utf8DecodeWithoutBOM(content));
    else
      formDataSlots.append(
        form,
        decoded,
        fileOf(TypedArrayPrototypeSlice(content), decodeURIComponentSafe(filename), type),
      );
    position = next;
  }
}

/** Undoes escapeParameter: %0A, %0D (in either case) and %22 become the characters they stand for. */
function decodeURIComponentSafe(text: string): string {
  let decoded = '';
  for (let index = 0; index < text.length; index++) {
    if (text[index] === '%' && index + 2 < text.length) {
      const sequence = StringPrototypeSlice(text, index, index + 3);
      const character =
        sequence === '%0A' || sequence === '%0a'
          ? '\n'
          : sequence === '%0D' || sequence === '%0d'
            ? '\r'
            : sequence === '%22'
              ? '"'
              : undefined;
      if (character !== undefined) {
        decoded += character;
        index += 2;
        continue;
      }
    }
    decoded += text[index] as string;
  }
  return decoded;
}

/** https://url.spec.whatwg.org/#concept-urlencoded-parser */
export function parseUrlEncoded(text: string): FormData {
  const form = new FormData();
  const sequences = StringPrototypeSplit(text, '&');
  for (let index = 0; index < sequences.length; index++) {
    const sequence = sequences[index] as string;
    if (sequence === '') continue;
    const equals = StringPrototypeIndexOf(sequence, '=');
    const name = equals === -1 ? sequence : StringPrototypeSlice(sequence, 0, equals);
    const value = equals === -1 ? '' : StringPrototypeSlice(sequence, equals + 1);
    formDataSlots.append(form, percentDecode(name), percentDecode(value));
  }
  return form;
}

/** The value of an ASCII hex digit, or -1 for any other byte. */
function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57;
  return -1;
}

function percentDecode(text: string): string {
  let spaced = '';
  for (let index = 0; index < text.length; index++)
    spaced += text[index] === '+' ? ' ' : (text[index] as string);
  const bytes = utf8Encode(spaced);
  const out = new Uint8ArrayCtor(bytes.length);
  let length = 0;
  for (let index = 0; index < bytes.length; index++) {
    const byte = bytes[index] as number;
    if (byte === 0x25 && index + 2 < bytes.length) {
      const high = hexValue(bytes[index + 1] as number);
      const low = hexValue(bytes[index + 2] as number);
      if (high !== -1 && low !== -1) {
        out[length++] = high * 16 + low;
        index += 2;
        continue;
      }
    }
    out[length++] = byte;
  }
  return utf8DecodeWithoutBOM(new Uint8ArrayCtor(TypedArrayPrototypeGetBuffer(out), 0, length));
}
