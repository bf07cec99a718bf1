/**
 * Blob and File (File API, https://w3c.github.io/FileAPI/#blob-section): immutable bytes with a
 * type. The bytes are held whole; a Blob's parts are flattened when it is made.
 */

import { assertRequestScope } from '../internals.ts';
import { MathMax, MathMin, Uint8ArrayCtor } from '../primordials.ts';
import { ReadableStream } from '../streams/index.ts';
import { utf8Decode, utf8Encode } from '../utf8.ts';
import {
  bufferSourceBytes,
  constructorArgumentTypeError,
  defineInterface,
  illegalInvocation,
  requireArguments,
  toDOMString,
  toInteger,
} from '../webidl.ts';

/** A type is kept only when every code unit is printable ASCII, lowercased. */
function normalizeType(type: string): string {
  for (let index = 0; index < type.length; index++) {
    const unit = type.charCodeAt(index);
    if (unit < 0x20 || unit > 0x7e) return '';
  }
  return type.toLowerCase();
}

export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.byteLength;
  const out = new Uint8ArrayCtor(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

/** Module-only access to a Blob's bytes, for bodies and forms. */
export let blobBytes: (blob: Blob) => Uint8Array;
export let isBlob: (value: unknown) => value is Blob;

export interface BlobPropertyBag {
  type?: string;
  endings?: 'transparent' | 'native';
}

export class Blob {
  #bytes: Uint8Array;
  #type: string;

  constructor(parts?: Iterable<unknown>, options?: BlobPropertyBag) {
    const chunks: Uint8Array[] = [];
    if (parts !== undefined && parts !== null) {
      if (
        typeof parts !== 'object' ||
        typeof (parts as { [Symbol.iterator]?: unknown })[Symbol.iterator] !== 'function'
      ) {
        throw constructorArgumentTypeError('Blob', 1, 'Array');
      }
      for (const part of parts) {
        if (isBlob(part)) chunks.push(part.#bytes);
        else chunks.push(bufferSourceBytes(part)?.slice() ?? utf8Encode(toDOMString(part)));
      }
    }
    // A File passes its options here too, where they are its third parameter.
    if (!isDictionary(options))
      throw constructorArgumentTypeError(
        new.target === Blob ? 'Blob' : 'File',
        new.target === Blob ? 2 : 3,
        'Options',
      );
    this.#bytes = concatBytes(chunks);
    this.#type = options?.type === undefined ? '' : normalizeType(toDOMString(options.type));
  }

  static {
    blobBytes = (blob) => blob.#bytes;
    isBlob = (value): value is Blob => typeof value === 'object' && value !== null && #bytes in value;
  }

  static #check(value: unknown): Blob {
    if (!isBlob(value)) throw illegalInvocation();
    return value;
  }

  get size(): number {
    return Blob.#check(this).#bytes.byteLength;
  }

  get type(): string {
    return Blob.#check(this).#type;
  }

  /** https://w3c.github.io/FileAPI/#slice-method-algo */
  slice(start?: number, end?: number, contentType?: string): Blob {
    const blob = Blob.#check(this);
    const size = blob.#bytes.byteLength;
    const relative = (value: number | undefined, fallback: number) => {
      if (value === undefined) return fallback;
      const integer = toInteger(value, 64, true, { clamp: true });
      return integer < 0 ? MathMax(size + integer, 0) : MathMin(integer, size);
    };
    const from = relative(start, 0);
    const to = relative(end, size);
    const sliced = new Blob([], { type: contentType === undefined ? '' : toDOMString(contentType) });
    sliced.#bytes = blob.#bytes.slice(from, MathMax(from, to));
    return sliced;
  }

  async text(): Promise<string> {
    return utf8Decode(Blob.#check(this).#bytes);
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return Blob.#check(this).#bytes.slice().buffer;
  }

  async bytes(): Promise<Uint8Array> {
    return Blob.#check(this).#bytes.slice();
  }

  stream(): ReadableStream {
    const bytes = Blob.#check(this).#bytes;
    assertRequestScope();
    return new ReadableStream({
      type: 'bytes',
      start(controller: { enqueue(chunk: Uint8Array): void; close(): void }) {
        if (bytes.byteLength > 0) controller.enqueue(bytes.slice());
        controller.close();
      },
    });
  }
}

export class File extends Blob {
  #name: string;
  #lastModified: number;

  constructor(bits: Iterable<unknown>, name: string, options?: BlobPropertyBag & { lastModified?: number }) {
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 2, 'constructor', 'File', [null, 'string']);
    super(bits, options);
    this.#name = toDOMString(name);
    this.#lastModified =
      options?.lastModified === undefined ? Date.now() : toInteger(options.lastModified, 64, true);
  }

  static #check(value: unknown): File {
    if (typeof value !== 'object' || value === null || !(#name in value)) throw illegalInvocation();
    return value as File;
  }

  get name(): string {
    return File.#check(this).#name;
  }

  get lastModified(): number {
    return File.#check(this).#lastModified;
  }
}

defineInterface(Blob);
defineInterface(File);

/** What a WebIDL dictionary argument accepts: undefined, null, or an object. */
function isDictionary(value: unknown): boolean {
  return value === undefined || value === null || typeof value === 'object' || typeof value === 'function';
}
