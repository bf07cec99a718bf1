/**
 * FormData (XHR, https://xhr.spec.whatwg.org/#interface-formdata). Its multipart/form-data
 * serialization (RFC 7578) and the two parsers the Body mixin's formData() uses are a runtime
 * piece (./form-bodies.ts), which the first body made from a FormData or read as one loads.
 */

import { ArrayPrototypePush, ObjectDefineProperty, ReflectApply, SymbolIterator } from '../primordials.ts';
import { defineInterface, illegalInvocation, requireArguments, toUSVString } from '../webidl.ts';
import { type Blob, File, fileFromBlob, isBlob } from './blob.ts';

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
  return [entryName, fileFromBlob(blob, fileName)];
}

/** The entries of `entries` not named `name`, except that the first `keep` stay whatever their name. */
function withoutName(entries: readonly Entry[], name: string, keep = 0): Entry[] {
  const kept: Entry[] = [];
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index] as Entry;
    if (index < keep || entry[0] !== name) ArrayPrototypePush(kept, entry);
  }
  return kept;
}

/** The index of the first entry named `name`, or -1. */
function indexOfName(entries: readonly Entry[], name: string): number {
  for (let index = 0; index < entries.length; index++)
    if ((entries[index] as Entry)[0] === name) return index;
  return -1;
}

/** A copy of the entries as they are now: what iteration and forEach walk, whatever a callback changes. */
function copyOf(entries: readonly Entry[]): Entry[] {
  const copy: Entry[] = [];
  for (let index = 0; index < entries.length; index++) ArrayPrototypePush(copy, entries[index] as Entry);
  return copy;
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
      append: (form, name, value) => {
        ArrayPrototypePush(form.#entries, [name, value]);
      },
    };
  }

  static #check(value: unknown): FormData {
    if (!isFormData(value)) throw illegalInvocation();
    return value;
  }

  append(name: string, value: string | Blob, filename?: string): void {
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 2, 'append', 'FormData', ENTRY_TYPES);
    ArrayPrototypePush(FormData.#check(this).#entries, createEntry(name, value, filename));
  }

  delete(name: string): void {
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 1, 'delete', 'FormData');
    const form = FormData.#check(this);
    const key = toUSVString(name);
    form.#entries = withoutName(form.#entries, key);
  }

  get(name: string): string | File | null {
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 1, 'get', 'FormData');
    const key = toUSVString(name);
    const entries = FormData.#check(this).#entries;
    const index = indexOfName(entries, key);
    return index === -1 ? null : (entries[index] as Entry)[1];
  }

  getAll(name: string): (string | File)[] {
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 1, 'getAll', 'FormData');
    const key = toUSVString(name);
    const entries = FormData.#check(this).#entries;
    const values: (string | File)[] = [];
    for (let index = 0; index < entries.length; index++) {
      const entry = entries[index] as Entry;
      if (entry[0] === key) ArrayPrototypePush(values, entry[1]);
    }
    return values;
  }

  has(name: string): boolean {
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 1, 'has', 'FormData');
    const key = toUSVString(name);
    return indexOfName(FormData.#check(this).#entries, key) !== -1;
  }

  set(name: string, value: string | Blob, filename?: string): void {
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 2, 'set', 'FormData', ENTRY_TYPES);
    const form = FormData.#check(this);
    const entry = createEntry(name, value, filename);
    const index = indexOfName(form.#entries, entry[0]);
    if (index === -1) {
      ArrayPrototypePush(form.#entries, entry);
      return;
    }
    form.#entries[index] = entry;
    form.#entries = withoutName(form.#entries, entry[0], index + 1);
  }

  forEach(callback: (value: string | File, name: string, form: FormData) => void, thisArg?: unknown): void {
    const form = FormData.#check(this);
    const entries = copyOf(form.#entries);
    for (let index = 0; index < entries.length; index++) {
      const entry = entries[index] as Entry;
      ReflectApply(callback, thisArg, [entry[1], entry[0], form]);
    }
  }

  *entries(): IterableIterator<[string, string | File]> {
    const entries = copyOf(FormData.#check(this).#entries);
    for (let index = 0; index < entries.length; index++) {
      const entry = entries[index] as Entry;
      yield [entry[0], entry[1]];
    }
  }

  *keys(): IterableIterator<string> {
    const entries = copyOf(FormData.#check(this).#entries);
    for (let index = 0; index < entries.length; index++) yield (entries[index] as Entry)[0];
  }

  *values(): IterableIterator<string | File> {
    const entries = copyOf(FormData.#check(this).#entries);
    for (let index = 0; index < entries.length; index++) yield (entries[index] as Entry)[1];
  }

  [Symbol.iterator](): IterableIterator<[string, string | File]> {
    return this.entries();
  }
}

defineInterface(FormData);
ObjectDefineProperty(FormData.prototype, SymbolIterator, {
  value: FormData.prototype.entries,
  writable: true,
  enumerable: false,
  configurable: true,
});
