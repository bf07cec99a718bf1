/**
 * Blob and File (File API, https://w3c.github.io/FileAPI/#blob-section): immutable bytes with a
 * type. The bytes are held whole; a Blob's parts are flattened when it is made.
 */

import { utf8Decode, utf8Encode } from '../encoding/utf8.ts';
import { asciiLowercase } from '../infra.ts';
import { assertRequestScope } from '../internals.ts';
import {
  ArrayPrototypePush,
  DateNow,
  MathMax,
  MathMin,
  ObjectFreeze,
  StringPrototypeCharCodeAt,
  SymbolIterator,
  TypedArrayPrototypeGetBuffer,
  TypedArrayPrototypeGetByteLength,
  TypedArrayPrototypeSet,
  TypedArrayPrototypeSlice,
  Uint8ArrayCtor,
} from '../primordials.ts';
import { ReadableStream } from '../streams/index.ts';
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
    const unit = StringPrototypeCharCodeAt(type, index);
    if (unit < 0x20 || unit > 0x7e) return '';
  }
  return asciiLowercase(type);
}

export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (let index = 0; index < parts.length; index++)
    length += TypedArrayPrototypeGetByteLength(parts[index] as Uint8Array);
  const out = new Uint8ArrayCtor(length);
  let offset = 0;
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index] as Uint8Array;
    TypedArrayPrototypeSet(out, part, offset);
    offset += TypedArrayPrototypeGetByteLength(part);
  }
  return out;
}

/** Module-only access to a Blob's bytes, for bodies and forms. */
export let blobBytes: (blob: Blob) => Uint8Array;
export let isBlob: (value: unknown) => value is Blob;
/**
 * A Blob, or a File, of `bytes` (kept, not copied), with its type normalized as the constructors
 * do: how the runtime makes one of its own, without converting a sequence of parts.
 */
export let blobOf: (bytes: Uint8Array, type: string) => Blob;
export let fileOf: (bytes: Uint8Array, name: string, type: string) => File;
/** A File named `name` with a copy of a Blob's bytes and its type: `new File([blob], name, { type: blob.type })`. */
export let fileFromBlob: (blob: Blob, name: string) => File;

/** The parts the runtime's own constructions pass, told apart by identity: nothing to convert. */
const NO_PARTS: Iterable<unknown> = ObjectFreeze([]);

export interface BlobPropertyBag {
  type?: string;
  endings?: 'transparent' | 'native';
}

export class Blob {
  #bytes: Uint8Array;
  #type: string;

  constructor(parts?: Iterable<unknown>, options?: BlobPropertyBag) {
    const chunks: Uint8Array[] = [];
    if (parts !== undefined && parts !== null && parts !== NO_PARTS) {
      if (
        typeof parts !== 'object' ||
        typeof (parts as unknown as Record<symbol, unknown>)[SymbolIterator] !== 'function'
      ) {
        throw constructorArgumentTypeError('Blob', 1, 'Array');
      }
      // The program's sequence, iterated through its own iterators, as WebIDL converts one.
      for (const part of parts) {
        if (isBlob(part)) ArrayPrototypePush(chunks, part.#bytes);
        else {
          const bytes = bufferSourceBytes(part);
          ArrayPrototypePush(
            chunks,
            bytes === undefined ? utf8Encode(toDOMString(part)) : TypedArrayPrototypeSlice(bytes),
          );
        }
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
    blobOf = (bytes, type) => {
      const blob = new Blob(NO_PARTS, { __proto__: null, type } as BlobPropertyBag);
      blob.#bytes = bytes;
      return blob;
    };
    fileOf = (bytes, name, type) => {
      const file = new File(NO_PARTS, name, { __proto__: null, type } as BlobPropertyBag);
      file.#bytes = bytes;
      return file;
    };
    fileFromBlob = (blob, name) => fileOf(TypedArrayPrototypeSlice(blob.#bytes), name, blob.#type);
  }

  static #check(value: unknown): Blob {
    if (!isBlob(value)) throw illegalInvocation();
    return value;
  }

  get size(): number {
    return TypedArrayPrototypeGetByteLength(Blob.#check(this).#bytes);
  }

  get type(): string {
    return Blob.#check(this).#type;
  }

  /** https://w3c.github.io/FileAPI/#slice-method-algo */
  slice(start?: number, end?: number, contentType?: string): Blob {
    const blob = Blob.#check(this);
    const size = TypedArrayPrototypeGetByteLength(blob.#bytes);
    const relative = (value: number | undefined, fallback: number) => {
      if (value === undefined) return fallback;
      const integer = toInteger(value, 64, true, { clamp: true });
      return integer < 0 ? MathMax(size + integer, 0) : MathMin(integer, size);
    };
    const from = relative(start, 0);
    const to = relative(end, size);
    return blobOf(
      TypedArrayPrototypeSlice(blob.#bytes, from, MathMax(from, to)),
      contentType === undefined ? '' : toDOMString(contentType),
    );
  }

  async text(): Promise<string> {
    return utf8Decode(Blob.#check(this).#bytes);
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return TypedArrayPrototypeGetBuffer(TypedArrayPrototypeSlice(Blob.#check(this).#bytes)) as ArrayBuffer;
  }

  async bytes(): Promise<Uint8Array> {
    return TypedArrayPrototypeSlice(Blob.#check(this).#bytes);
  }

  stream(): ReadableStream {
    const bytes = Blob.#check(this).#bytes;
    assertRequestScope();
    return new ReadableStream({
      type: 'bytes',
      start(controller: { enqueue(chunk: Uint8Array): void; close(): void }) {
        if (TypedArrayPrototypeGetByteLength(bytes) > 0) controller.enqueue(TypedArrayPrototypeSlice(bytes));
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
      options?.lastModified === undefined ? DateNow() : toInteger(options.lastModified, 64, true);
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
