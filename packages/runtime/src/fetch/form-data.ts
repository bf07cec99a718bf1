/**
 * FormData (XHR, https://xhr.spec.whatwg.org/#interface-formdata). Its multipart/form-data
 * serialization (RFC 7578) and the two parsers the Body mixin's formData() uses are a runtime
 * piece (./form-bodies.ts), which the first body made from a FormData or read as one loads.
 */

import { defineInterface, illegalInvocation, requireArguments, toUSVString } from '../webidl.ts';
import { type Blob, File, isBlob } from './blob.ts';

export type Entry = [string, string | File];

export let isFormData: (value: unknown) => value is FormData;
export let formDataSlots: {
  entries(form: FormData): readonly Entry[];
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
      entries: (form) => form.#entries,
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

defineInterface(FormData);
Object.defineProperty(FormData.prototype, Symbol.iterator, {
  value: FormData.prototype.entries,
  writable: true,
  enumerable: false,
  configurable: true,
});
