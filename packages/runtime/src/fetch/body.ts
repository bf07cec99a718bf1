/**
 * The body of a Request or Response (Fetch, https://fetch.spec.whatwg.org/#bodies): what each kind
 * of init becomes, the stream that carries it, and the mixin's readers. A body made from bytes keeps
 * them until something asks for its stream, so reading it whole never builds a stream at all.
 */

import { utf8Decode, utf8Encode } from '../encoding/utf8.ts';
import { assertRequestScope } from '../internals.ts';
import { loadPiece, type Pieces } from '../pieces.ts';
import {
  ArrayBufferPrototypeGetByteLength,
  ArrayPrototypePush,
  JSONParse,
  StringCtor,
  StringPrototypeCharCodeAt,
  StringPrototypeIndexOf,
  StringPrototypeSlice,
  StringPrototypeSplit,
  StringPrototypeToLowerCase,
  StringPrototypeTrim,
  TypedArrayPrototypeGetBuffer,
  TypedArrayPrototypeGetByteLength,
  TypedArrayPrototypeGetByteOffset,
  TypedArrayPrototypeSlice,
  TypeErrorCtor,
  Uint8ArrayCtor,
} from '../primordials.ts';
import { ReadableStream } from '../streams/index.ts';
import { bufferSourceBytes, toDOMString } from '../webidl.ts';
import { type Blob, blobBytes, blobOf, concatBytes, isBlob } from './blob.ts';
import { formDataSlots, isFormData } from './form-data.ts';
import { PIECE_IMPORTS } from './generated/form-bodies-piece-imports.generated.ts';

/** The form bodies' codecs (./form-bodies.ts), a runtime piece loaded on the first call in this isolate. */
function formBodies(): Pieces['formBodies'] {
  return loadPiece('formBodies', PIECE_IMPORTS);
}

export const BODY_USED_MESSAGE =
  'Body has already been used. It can only be used once. Use tee() first if you need to read it twice.';
export const STREAM_LOCKED_MESSAGE = 'This ReadableStream is currently locked to a reader.';
export const STREAM_DISTURBED_MESSAGE =
  'This ReadableStream is disturbed (has already been read from), and cannot be used as a body.';
const STREAM_LOCKED_BODY_MESSAGE = 'This ReadableStream is locked to a reader, and cannot be used as a body.';
const CLONE_USED_MESSAGE = 'This ReadableStream is currently locked to a reader,';

type Stream = ReadableStream<Uint8Array> & { locked: boolean };
type Reader = {
  read(): Promise<{ done: boolean; value?: unknown }>;
  cancel(reason?: unknown): Promise<void>;
};

/** web-streams-polyfill keeps "disturbed" as an own property; the standard's check reads it. */
function disturbed(stream: Stream): boolean {
  return (stream as unknown as { _disturbed?: boolean })._disturbed === true;
}

function streamOf(bytes: Uint8Array): Stream {
  return new ReadableStream({
    type: 'bytes',
    start(controller: { enqueue(chunk: Uint8Array): void; close(): void }) {
      if (TypedArrayPrototypeGetByteLength(bytes) > 0) controller.enqueue(TypedArrayPrototypeSlice(bytes));
      controller.close();
    },
  }) as unknown as Stream;
}

/**
 * The stream of a body that was read whole before anything asked for its stream: as after reading
 * a real one, it is disturbed and stays locked to the reader that read it.
 */
function spentStream(): Stream {
  const stream = streamOf(new Uint8ArrayCtor(0));
  (stream.getReader() as unknown as Reader).read();
  return stream;
}

/** A stream that reads `source` through a reader it holds, so `source` stays locked to it. */
function proxyStream(source: Stream): Stream {
  const reader = source.getReader() as unknown as Reader;
  return new ReadableStream({
    async pull(controller: { enqueue(chunk: unknown): void; close(): void }) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason: unknown) => reader.cancel(reason),
  }) as unknown as Stream;
}

export class Body {
  /** Known content, while no stream has been made for it. */
  #bytes: Uint8Array | null;
  #stream: Stream | null;
  #consumed = false;

  constructor(bytes: Uint8Array | null, stream: Stream | null = null) {
    this.#bytes = bytes;
    this.#stream = stream;
  }

  get stream(): Stream {
    if (this.#stream === null) {
      this.#stream = this.#consumed ? spentStream() : streamOf(this.#bytes ?? new Uint8ArrayCtor(0));
      this.#bytes = null;
    }
    return this.#stream;
  }

  get used(): boolean {
    return this.#consumed || (this.#stream !== null && disturbed(this.#stream));
  }

  /** https://fetch.spec.whatwg.org/#concept-body-consume-body */
  async consume(): Promise<Uint8Array> {
    if (this.used) throw new TypeErrorCtor(BODY_USED_MESSAGE);
    if (this.#stream?.locked) throw new TypeErrorCtor(STREAM_LOCKED_MESSAGE);
    this.#consumed = true;
    if (this.#stream === null) {
      const bytes = this.#bytes ?? new Uint8ArrayCtor(0);
      this.#bytes = null;
      return bytes;
    }
    const reader = this.#stream.getReader();
    const chunks: Uint8Array[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const bytes = bufferSourceBytes(value);
      if (bytes === undefined) throw new TypeErrorCtor('The body stream produced a chunk that is not bytes.');
      ArrayPrototypePush(chunks, bytes);
    }
    return concatBytes(chunks);
  }

  /** https://fetch.spec.whatwg.org/#concept-body-clone */
  clone(): Body {
    if (this.used || this.#stream?.locked) throw new TypeErrorCtor(CLONE_USED_MESSAGE);
    if (this.#stream === null) return new Body(this.#bytes);
    const branches = this.#stream.tee() as [Stream, Stream];
    this.#stream = branches[0];
    return new Body(null, branches[1]);
  }

  /**
   * Moves the content to a new body (new Request(request) takes its input's body): this one is
   * used from then on, and its stream stays locked to whatever reads the content now.
   */
  transfer(): Body {
    if (this.#stream?.locked) throw new TypeErrorCtor('The ReadableStream has been locked to a reader.');
    this.#consumed = true;
    if (this.#stream === null) {
      const bytes = this.#bytes;
      this.#bytes = null;
      return new Body(bytes);
    }
    return new Body(null, proxyStream(this.#stream));
  }
}

/** https://fetch.spec.whatwg.org/#concept-bodyinit-extract: the body and the Content-Type it implies. */
export function extractBody(init: unknown): { body: Body; type: string | null } {
  // workerd refuses to make a body at a module's top level unless it is a stream handed over.
  if (!isReadableStream(init)) assertRequestScope();
  if (typeof init === 'string') return { body: new Body(utf8Encode(init)), type: 'text/plain;charset=UTF-8' };
  if (isBlob(init)) {
    const type = (init as Blob).type;
    return {
      body: new Body(TypedArrayPrototypeSlice(blobBytes(init as Blob))),
      type: type === '' ? null : type,
    };
  }
  const bytes = bufferSourceBytes(init);
  if (bytes !== undefined) return { body: new Body(TypedArrayPrototypeSlice(bytes)), type: null };
  if (isFormData(init)) {
    const { bytes: encoded, boundary } = formBodies().serialize(formDataSlots.entries(init));
    return { body: new Body(encoded), type: `multipart/form-data; boundary=${boundary}` };
  }
  if (isSearchParams(init)) {
    return {
      body: new Body(utf8Encode(StringCtor(init))),
      type: 'application/x-www-form-urlencoded;charset=UTF-8',
    };
  }
  if (isReadableStream(init)) {
    const stream = init as Stream;
    if (disturbed(stream)) throw new TypeErrorCtor(STREAM_DISTURBED_MESSAGE);
    if (stream.locked) throw new TypeErrorCtor(STREAM_LOCKED_BODY_MESSAGE);
    return { body: new Body(null, stream), type: null };
  }
  return { body: new Body(utf8Encode(toDOMString(init))), type: 'text/plain;charset=UTF-8' };
}

function isReadableStream(value: unknown): boolean {
  return value instanceof ReadableStream;
}

function isSearchParams(value: unknown): boolean {
  const URLSearchParams = (globalThis as { URLSearchParams?: abstract new () => unknown }).URLSearchParams;
  return URLSearchParams !== undefined && value instanceof URLSearchParams;
}

/** The essence of a Content-Type value: its type/subtype, lowercased; and its boundary parameter. */
export function parseContentType(value: string | null): { essence: string; boundary: string | undefined } {
  if (value === null) return { essence: '', boundary: undefined };
  const parts = StringPrototypeSplit(value, ';');
  let boundary: string | undefined;
  for (let index = 1; index < parts.length; index++) {
    const parameter = parts[index] as string;
    const equals = StringPrototypeIndexOf(parameter, '=');
    if (equals === -1) continue;
    if (
      StringPrototypeToLowerCase(StringPrototypeTrim(StringPrototypeSlice(parameter, 0, equals))) ===
      'boundary'
    ) {
      boundary = unquote(StringPrototypeTrim(StringPrototypeSlice(parameter, equals + 1)));
    }
  }
  return { essence: StringPrototypeToLowerCase(StringPrototypeTrim(parts[0] as string)), boundary };
}

/** A value in double quotes without them (`"x"` is `x`) unless a line terminator is inside; any other as it is. */
function unquote(text: string): string {
  if (text.length < 2 || text[0] !== '"' || text[text.length - 1] !== '"') return text;
  for (let index = 1; index < text.length - 1; index++) {
    const unit = StringPrototypeCharCodeAt(text, index);
    if (unit === 0x0a || unit === 0x0d || unit === 0x2028 || unit === 0x2029) return text;
  }
  return StringPrototypeSlice(text, 1, -1);
}

/** The Body mixin's readers, over a body getter and the owner's Content-Type. */
/** What a Request or a Response holds that the body methods read: the body and its Content-Type. */
export interface BodyHolder {
  readonly body: Body | null;
  readonly headers: { get(name: string): string | null };
}

/**
 * A holder read lazily, inside the async reader: a method called on the wrong object then rejects,
 * as it always has, instead of throwing.
 */
export type HolderOf = () => BodyHolder;

function consume(holder: BodyHolder): Promise<Uint8Array> {
  return (holder.body ?? new Body(null)).consume();
}

/** The Body mixin's reading methods, shared by Request and Response (Fetch, "Body mixin"). */
export const bodyReaders = {
  async arrayBuffer(holderOf: HolderOf): Promise<ArrayBuffer> {
    const bytes = await consume(holderOf());
    const buffer = TypedArrayPrototypeGetBuffer(bytes) as ArrayBuffer;
    return TypedArrayPrototypeGetByteOffset(bytes) === 0 &&
      TypedArrayPrototypeGetByteLength(bytes) === ArrayBufferPrototypeGetByteLength(buffer)
      ? buffer
      : (TypedArrayPrototypeGetBuffer(TypedArrayPrototypeSlice(bytes)) as ArrayBuffer);
  },
  async bytes(holderOf: HolderOf): Promise<Uint8Array> {
    return new Uint8ArrayCtor(await bodyReaders.arrayBuffer(holderOf));
  },
  async text(holderOf: HolderOf): Promise<string> {
    return utf8Decode(await consume(holderOf()));
  },
  async json(holderOf: HolderOf): Promise<unknown> {
    return JSONParse(await bodyReaders.text(holderOf));
  },
  async blob(holderOf: HolderOf): Promise<Blob> {
    const holder = holderOf();
    // The type as it stood when blob() was called, before the body is read.
    const type = holder.headers.get('content-type') ?? '';
    return blobOf(TypedArrayPrototypeSlice(await consume(holder)), type);
  },
  async formData(holderOf: HolderOf): Promise<unknown> {
    const holder = holderOf();
    const { essence, boundary } = parseContentType(holder.headers.get('content-type'));
    if (essence === 'multipart/form-data') {
      if (boundary === undefined) throw new TypeErrorCtor('The multipart/form-data body has no boundary.');
      return formBodies().parseMultipart(await consume(holder), boundary);
    }
    if (essence === 'application/x-www-form-urlencoded')
      return formBodies().parseUrlEncoded(utf8Decode(await consume(holder)));
    throw new TypeErrorCtor(
      'Unrecognized Content-Type header value. FormData can only parse the following MIME types: multipart/form-data, application/x-www-form-urlencoded.',
    );
  },
};
