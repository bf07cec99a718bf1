/**
 * FormData (XHR, https://xhr.spec.whatwg.org/#interface-formdata), its multipart/form-data
 * serialization (RFC 7578) and the two parsers the Body mixin's formData() uses.
 */

import { hostOf } from '../host.ts';
import { TypeErrorCtor } from '../primordials.ts';
import { utf8Decode, utf8Encode } from '../utf8.ts';
import { defineInterface, illegalInvocation, requireArguments, toUSVString } from '../webidl.ts';
import { type Blob, blobBytes, concatBytes, File, isBlob } from './blob.ts';

type Entry = [string, string | File];

export let isFormData: (value: unknown) => value is FormData;
export let formDataSlots: {
  serialize(form: FormData): { bytes: Uint8Array; boundary: string };
  append(form: FormData, name: string, value: string | File): void;
};

/**
 * https://xhr.spec.whatwg.org/#create-an-entry, except that a Blob given without a filename is
 * named after the entry, as workerd names it, where the standard says "blob".
 */
function createEntry(name: unknown, value: unknown, filename?: unknown): Entry {
  const entryName = toUSVString(name);
  if (!isBlob(value)) return [entryName, toUSVString(value)];
  const blob = value as Blob;
  if (blob instanceof File && filename === undefined) return [entryName, blob];
  const fileName = filename !== undefined ? toUSVString(filename) : entryName;
  return [entryName, new File([blob], fileName, { type: blob.type })];
}

/** The parameter types of append and set, as workerd names a missing one. */
const ENTRY_TYPES = ['string', 'File or Blob or string'];

// There are no form elements here: the constructor ignores its argument, as workerd's does.
export class FormData {
  #entries: Entry[] = [];

  static {
    isFormData = (value): value is FormData =>
      typeof value === 'object' && value !== null && #entries in value;
    formDataSlots = {
      serialize: (form) => serialize(form.#entries),
      append: (form, name, value) => form.#entries.push([name, value]),
    };
  }

  static #check(value: unknown): FormData {
    if (!isFormData(value)) throw illegalInvocation();
    return value;
  }

  append(name: string, value: string | Blob, filename?: string): void {
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 2, 'append', 'FormData', ENTRY_TYPES);
    FormData.#check(this).#entries.push(createEntry(name, value, filename));
  }

  delete(name: string): void {
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 1, 'delete', 'FormData');
    const form = FormData.#check(this);
    const key = toUSVString(name);
    form.#entries = form.#entries.filter(([entry]) => entry !== key);
  }

  get(name: string): string | File | null {
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 1, 'get', 'FormData');
    const key = toUSVString(name);
    return FormData.#check(this).#entries.find(([entry]) => entry === key)?.[1] ?? null;
  }

  getAll(name: string): (string | File)[] {
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 1, 'getAll', 'FormData');
    const key = toUSVString(name);
    return FormData.#check(this)
      .#entries.filter(([entry]) => entry === key)
      .map(([, value]) => value);
  }

  has(name: string): boolean {
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 1, 'has', 'FormData');
    const key = toUSVString(name);
    return FormData.#check(this).#entries.some(([entry]) => entry === key);
  }

  set(name: string, value: string | Blob, filename?: string): void {
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 2, 'set', 'FormData', ENTRY_TYPES);
    const form = FormData.#check(this);
    const entry = createEntry(name, value, filename);
    const index = form.#entries.findIndex(([existing]) => existing === entry[0]);
    if (index === -1) {
      form.#entries.push(entry);
      return;
    }
    form.#entries[index] = entry;
    form.#entries = form.#entries.filter(
      ([existing], position) => position <= index || existing !== entry[0],
    );
  }

  forEach(callback: (value: string | File, name: string, form: FormData) => void, thisArg?: unknown): void {
    const form = FormData.#check(this);
    for (const [name, value] of [...form.#entries]) Reflect.apply(callback, thisArg, [value, name, form]);
  }

  *entries(): IterableIterator<[string, string | File]> {
    for (const [name, value] of [...FormData.#check(this).#entries]) yield [name, value];
  }

  *keys(): IterableIterator<string> {
    for (const [name] of [...FormData.#check(this).#entries]) yield name;
  }

  *values(): IterableIterator<string | File> {
    for (const [, value] of [...FormData.#check(this).#entries]) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string | File]> {
    return this.entries();
  }
}

/** Escapes a name or filename for a Content-Disposition parameter, as the HTML form encoder does. */
function escapeParameter(text: string): string {
  return text.replace(/\n/g, '%0A').replace(/\r/g, '%0D').replace(/"/g, '%22');
}

function serialize(entries: readonly Entry[]): { bytes: Uint8Array; boundary: string } {
  // workerd's form: 16 random bytes as 32 hex digits.
  const random = hostOf().randomBytes.sync([16], { result: { copy: true } }) as Uint8Array;
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

defineInterface(FormData);
Object.defineProperty(FormData.prototype, Symbol.iterator, {
  value: FormData.prototype.entries,
  writable: true,
  enumerable: false,
  configurable: true,
});
