/**
 * The dispatch codec: JSON in which binary values (ArrayBuffer, every typed array, DataView)
 * cross as a tagged base64 envelope.
 *
 *   binary value            {"$binary":"Uint8Array","base64":"AAEC"}
 *   object with a tag key   {"$object":[["$binary","not binary"],["other",1]]}
 *
 * An object that happens to own one of the two tag keys is escaped into its entry list, so every
 * JSON-plus-binary value round-trips exactly, whatever keys it uses.
 *
 * This file is also the source of the sandbox's DISPATCH_CODEC_SOURCE: the executor strips its
 * types and exports and runs the text at module scope inside every isolate, ahead of user code.
 * So it imports nothing, holds no mutable state, names every built-in it uses once at the top
 * (user code that later replaces JSON or Array.prototype cannot change what the codec does),
 * and every identifier it declares starts with `__` and is listed in CODEC_IDENTIFIERS; the
 * generator lexes them into INTERNAL_NAMES, which validateProviders reserves. btoa and atob are read off the global object, never named,
 * because the source also runs in isolates the runtime was never installed into; there, binary
 * values fail with the codec's own error instead of a ReferenceError at load.
 */

const __codecGlobal = globalThis;
const __codecJsonStringify = JSON.stringify;
const __codecJsonParse = JSON.parse;
const __codecApply = Reflect.apply;
const __codecHasOwn = Object.hasOwn;
const __codecEntries = Object.entries;
const __codecDefineProperty = Reflect.defineProperty;
const __codecIsArray = Array.isArray;
const __codecSetPrototypeOf = Object.setPrototypeOf;
const __codecGetPrototypeOf = Reflect.getPrototypeOf;
const __codecIsView = ArrayBuffer.isView;
const __codecObjectPrototype = Object.prototype;
const __codecString = String;
const __codecError = Error;
const __codecFromCharCode = String.fromCharCode;
const __codecCharCodeAt = String.prototype.charCodeAt;
const __codecIndexOf = String.prototype.indexOf;
const __codecUint8Array = Uint8Array;
const __codecDataView = DataView;
const __codecTypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
const __codecGetter = (target: object, key: PropertyKey): ((this: unknown) => unknown) =>
  Reflect.getOwnPropertyDescriptor(target, key)?.get as (this: unknown) => unknown;
const __codecTypedArrayTag = __codecGetter(__codecTypedArrayPrototype, Symbol.toStringTag);
const __codecTypedArrayBuffer = __codecGetter(__codecTypedArrayPrototype, 'buffer');
const __codecTypedArrayOffset = __codecGetter(__codecTypedArrayPrototype, 'byteOffset');
const __codecTypedArrayLength = __codecGetter(__codecTypedArrayPrototype, 'byteLength');
const __codecTypedArraySet = __codecTypedArrayPrototype.set as (
  this: Uint8Array,
  source: ArrayLike<number>,
) => void;
const __codecTypedArraySubarray = __codecTypedArrayPrototype.subarray as (
  this: Uint8Array,
  start: number,
  end: number,
) => Uint8Array;
const __codecDataViewBuffer = __codecGetter(DataView.prototype, 'buffer');
const __codecDataViewOffset = __codecGetter(DataView.prototype, 'byteOffset');
const __codecDataViewLength = __codecGetter(DataView.prototype, 'byteLength');
const __codecArrayBufferLength = __codecGetter(ArrayBuffer.prototype, 'byteLength');
const __codecLengthOf = (view: Uint8Array): number =>
  __codecApply(__codecTypedArrayLength, view, []) as number;
const __codecBufferOf = (view: Uint8Array): ArrayBuffer =>
  __codecApply(__codecTypedArrayBuffer, view, []) as ArrayBuffer;
const __codecBtoa = (__codecGlobal as { btoa?: (data: string) => string }).btoa;
const __codecAtob = (__codecGlobal as { atob?: (data: string) => string }).atob;
// Where the engine has them (not V8 13.6, which Node 24 ships), these skip a loop per byte.
const __codecFromBase64 = (Uint8Array as { fromBase64?: (text: string) => Uint8Array }).fromBase64;
const __codecToBase64 = (Uint8Array.prototype as { toBase64?: (this: Uint8Array) => string }).toBase64;
/**
 * Node's Buffer, where the codec runs in Node (the pool's processes, the server, the client under
 * Node): its base64 is native, where the loop per byte below took about 100 ms for each 8 MiB body
 * and held a child's main thread for seconds. No isolate of the sandbox has a Buffer when this runs.
 */
const __codecNodeBuffer = (
  __codecGlobal as {
    Buffer?: {
      from(data: string, encoding: 'base64'): Uint8Array;
      from(buffer: ArrayBufferLike, offset: number, length: number): { toString(encoding: 'base64'): string };
      byteLength(text: string, encoding: 'utf8'): number;
    };
  }
).Buffer;
/** The UTF-8 length of a text, read natively: with the text's own length, whether it is ASCII. */
const __codecNodeByteLength = __codecNodeBuffer?.byteLength;
/** ASCII whitespace, which atob strips before it decodes (the forgiving-base64 decode). */
const __codecBase64Whitespace = /[\t\n\f\r ]/g;
const __codecStringReplace = String.prototype.replace;
const __codecStringSlice = String.prototype.slice;

/** Typed array constructors by the name the envelope carries, bound before any user code runs. */
const __codecViews: Record<string, new (buffer: ArrayBuffer) => ArrayBufferView> = Object.setPrototypeOf(
  {
    Int8Array,
    Uint8Array,
    Uint8ClampedArray,
    Int16Array,
    Uint16Array,
    Int32Array,
    Uint32Array,
    Float32Array,
    Float64Array,
    BigInt64Array,
    BigUint64Array,
  },
  null,
);
const __codecFloat16Array = (__codecGlobal as { Float16Array?: new (buffer: ArrayBuffer) => ArrayBufferView })
  .Float16Array;
if (__codecFloat16Array !== undefined) __codecViews.Float16Array = __codecFloat16Array;

/** Bytes per element of each view, so a base64 payload of the wrong length is refused. */
const __codecElementSize: Record<string, number> = Object.setPrototypeOf(
  {
    Int8Array: 1,
    Uint8Array: 1,
    Uint8ClampedArray: 1,
    Int16Array: 2,
    Uint16Array: 2,
    Float16Array: 2,
    Int32Array: 4,
    Uint32Array: 4,
    Float32Array: 4,
    Float64Array: 8,
    BigInt64Array: 8,
    BigUint64Array: 8,
    DataView: 1,
    ArrayBuffer: 1,
  },
  null,
);

/** Bytes per String.fromCharCode call: spreading a large buffer in one call overflows the stack. */
const __codecSlice = 0x8000;

/** The codec's own failure: malformed input never throws anything else out of the parser. */
class __CodecError extends __codecError {
  override name = 'CodecError';
}

/** The bytes a binary value views, or undefined when the value is not binary. */
function __codecBytesOf(value: unknown): { type: string; bytes: Uint8Array } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  // isView reads an internal slot, so neither Symbol.toStringTag nor a Proxy can fake a view.
  if (__codecIsView(value)) {
    const tag = __codecApply(__codecTypedArrayTag, value, []) as string | undefined;
    if (tag !== undefined) {
      return {
        type: tag,
        bytes: new __codecUint8Array(
          __codecApply(__codecTypedArrayBuffer, value, []) as ArrayBuffer,
          __codecApply(__codecTypedArrayOffset, value, []) as number,
          __codecApply(__codecTypedArrayLength, value, []) as number,
        ),
      };
    }
    return {
      type: 'DataView',
      bytes: new __codecUint8Array(
        __codecApply(__codecDataViewBuffer, value, []) as ArrayBuffer,
        __codecApply(__codecDataViewOffset, value, []) as number,
        __codecApply(__codecDataViewLength, value, []) as number,
      ),
    };
  }
  // An ArrayBuffer has no such slot test: its byteLength getter, which throws for anything else,
  // is the brand check. A throw costs tens of microseconds, so the shapes plain data takes (arrays,
  // objects of Object.prototype or of none) skip it; a buffer a program gave one of those
  // prototypes crosses as {}. Buffers of another realm still have a prototype of their own.
  if (__codecIsArray(value)) return undefined;
  const prototype = __codecGetPrototypeOf(value);
  if (prototype === null || prototype === __codecObjectPrototype) return undefined;
  try {
    __codecApply(__codecArrayBufferLength, value, []);
    return { type: 'ArrayBuffer', bytes: new __codecUint8Array(value as ArrayBuffer) };
  } catch {}
  return undefined;
}

function __codecBytesToBase64(bytes: Uint8Array): string {
  if (__codecToBase64 !== undefined) return __codecApply(__codecToBase64, bytes, []) as string;
  if (__codecNodeBuffer !== undefined) {
    const offset = __codecApply(__codecTypedArrayOffset, bytes, []) as number;
    return __codecNodeBuffer.from(__codecBufferOf(bytes), offset, __codecLengthOf(bytes)).toString('base64');
  }
  if (__codecBtoa === undefined) throw new __CodecError('Binary values need btoa, which this isolate lacks.');
  let binary = '';
  const length = __codecLengthOf(bytes);
  for (let start = 0; start < length; start += __codecSlice) {
    const slice = __codecApply(__codecTypedArraySubarray, bytes, [start, start + __codecSlice]);
    binary += __codecApply(__codecFromCharCode, null, slice as unknown as number[]);
  }
  return __codecBtoa(binary);
}

/**
 * The forgiving-base64 decode's first steps, as atob takes them: ASCII whitespace removed, then one
 * or two '=' at the end when the length is a multiple of 4. Undefined for a length of 4n + 1, which
 * atob refuses; whether every character left is of the alphabet is __codecDecodedWhole's to say.
 */
function __codecForgivingBase64(text: string): string | undefined {
  let data = __codecApply(__codecStringReplace, text, [__codecBase64Whitespace, '']) as string;
  if (data.length % 4 === 0) {
    if (data.length >= 2 && data[data.length - 1] === '=' && data[data.length - 2] === '=')
      data = __codecApply(__codecStringSlice, data, [0, -2]) as string;
    else if (data.length >= 1 && data[data.length - 1] === '=')
      data = __codecApply(__codecStringSlice, data, [0, -1]) as string;
  }
  if (data.length % 4 === 1) return undefined;
  return data;
}

/**
 * Whether Node's decode of `data` read every character as one of atob's alphabet, which is what
 * atob accepts once __codecForgivingBase64 took its first steps. Node's decoder is lenient: it reads
 * a character by its low 8 bits, takes base64url's '-' and '_' too, and skips or stops at anything
 * else, giving fewer bytes. So ASCII only (its UTF-8 as long as it), neither '-' nor '_', and every
 * 4 characters 3 bytes is exactly the alphabet, checked natively: a pattern over the text (which
 * this replaced) took about 6 ns a character, 62 ms for an 8 MiB body and 7 ms for the start a pool
 * hands on, where these take about a tenth of that. codec.test.ts holds it to atob.
 */
function __codecDecodedWhole(data: string, decoded: Uint8Array): boolean {
  return (
    (__codecNodeByteLength as (text: string, encoding: 'utf8') => number)(data, 'utf8') === data.length &&
    (__codecApply(__codecIndexOf, data, ['-']) as number) === -1 &&
    (__codecApply(__codecIndexOf, data, ['_']) as number) === -1 &&
    __codecLengthOf(decoded) === (data.length * 3) >> 2
  );
}

function __codecBase64ToBytes(base64: string): Uint8Array {
  if (__codecFromBase64 !== undefined) return __codecFromBase64(base64);
  if (__codecNodeBuffer !== undefined && typeof __codecNodeByteLength === 'function') {
    const data = __codecForgivingBase64(base64);
    const decoded = data === undefined ? undefined : __codecNodeBuffer.from(data, 'base64');
    if (decoded === undefined || !__codecDecodedWhole(data as string, decoded))
      throw new __codecError('The string to be decoded is not correctly encoded.');
    // A short Buffer is a view into Node's shared pool: the bytes are copied out of it.
    if (
      (__codecApply(__codecTypedArrayOffset, decoded, []) as number) === 0 &&
      (__codecApply(__codecArrayBufferLength, __codecBufferOf(decoded), []) as number) ===
        __codecLengthOf(decoded)
    )
      return new __codecUint8Array(__codecBufferOf(decoded));
    const bytes = new __codecUint8Array(__codecLengthOf(decoded));
    __codecApply(__codecTypedArraySet, bytes, [decoded]);
    return bytes;
  }
  if (__codecAtob === undefined) throw new __CodecError('Binary values need atob, which this isolate lacks.');
  const binary = __codecAtob(base64);
  const bytes = new __codecUint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) {
    bytes[index] = __codecApply(__codecCharCodeAt, binary, [index]) as number;
  }
  return bytes;
}

function __codecReplacer(this: Record<string, unknown>, key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  // A host Buffer has already become {type:'Buffer',data:[...]} through its toJSON by now, so
  // binary values are recognised on the holder's own property, before any toJSON ran.
  const binary = __codecBytesOf(this[key]) ?? __codecBytesOf(value);
  if (binary !== undefined) return { $binary: binary.type, base64: __codecBytesToBase64(binary.bytes) };
  if (!__codecIsArray(value) && (__codecHasOwn(value, '$binary') || __codecHasOwn(value, '$object'))) {
    // Index loops throughout: for-of would call an array iterator user code may have replaced.
    const all = __codecEntries(value);
    const entries: unknown[] = [];
    for (let index = 0; index < all.length; index++) {
      const item = (all[index] as [string, unknown])[1];
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
      entries[entries.length] = all[index];
    }
    return { $object: entries };
  }
  return value;
}

/**
 * A $binary tag as a refusal names it: the tag comes from whoever sent the text, so a string is
 * quoted only up to 64 units (then its length), and a list or an object is named by its kind.
 */
function __codecTagName(type: unknown): string {
  if (typeof type === 'string') {
    if (type.length <= 64) return __codecJsonStringify(type);
    const start = __codecApply(__codecStringSlice, type, [0, 64]) as string;
    return `${__codecJsonStringify(start)}… (${type.length} characters)`;
  }
  if (typeof type === 'object' && type !== null) return __codecIsArray(type) ? 'a list' : 'an object';
  return __codecString(type);
}

function __codecDecodeBinary(tagged: Record<string, unknown>): unknown {
  const type = tagged.$binary;
  const base64 = __codecHasOwn(tagged, 'base64') ? tagged.base64 : undefined;
  if (typeof type !== 'string' || __codecElementSize[type] === undefined) {
    throw new __CodecError(`Unknown binary type ${__codecTagName(type)} in a $binary envelope.`);
  }
  if (typeof base64 !== 'string')
    throw new __CodecError(`The $binary envelope of a ${type} has no base64 string.`);
  let bytes: Uint8Array;
  try {
    bytes = __codecBase64ToBytes(base64);
  } catch (cause) {
    if (cause instanceof __CodecError) throw cause;
    throw new __CodecError(`The $binary envelope of a ${type} holds invalid base64.`);
  }
  const buffer = __codecBufferOf(bytes);
  if (type === 'ArrayBuffer') return buffer;
  if (type === 'DataView') return new __codecDataView(buffer);
  const size = __codecElementSize[type] as number;
  const length = __codecLengthOf(bytes);
  if (length % size !== 0) {
    throw new __CodecError(`A ${type} needs a multiple of ${size} bytes; the envelope holds ${length}.`);
  }
  const View = __codecViews[type];
  if (View === undefined) throw new __CodecError(`This engine has no ${type} to decode into.`);
  return new View(buffer);
}

function __codecReviver(_key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || __codecIsArray(value)) return value;
  if (__codecHasOwn(value, '$binary')) return __codecDecodeBinary(value as Record<string, unknown>);
  if (__codecHasOwn(value, '$object')) {
    const entries = (value as { $object: unknown }).$object;
    if (!__codecIsArray(entries)) throw new __CodecError('An $object envelope must hold a list of entries.');
    for (let index = 0; index < entries.length; index++) {
      const entry = entries[index];
      if (!__codecIsArray(entry) || entry.length !== 2 || typeof entry[0] !== 'string') {
        throw new __CodecError('Each entry of an $object envelope must be a [key, value] pair.');
      }
    }
    // Defined, not assigned, so a key such as __proto__ stays a plain own key; the descriptor has
    // no prototype, so a program that put `get` on Object.prototype cannot turn it into an accessor.
    const object: Record<string, unknown> = {};
    for (let index = 0; index < entries.length; index++) {
      const entry = entries[index] as [string, unknown];
      const descriptor = __codecSetPrototypeOf(
        { value: entry[1], writable: true, enumerable: true, configurable: true },
        null,
      );
      __codecDefineProperty(object, entry[0], descriptor);
    }
    return object;
  }
  return value;
}

/** Serializes a value for any boundary of the executor. Top-level undefined becomes null. */
function __stringifyForDispatch(value: unknown): string {
  return __codecJsonStringify(value, __codecReplacer) ?? 'null';
}

/** Parses what __stringifyForDispatch produced; any malformed input throws a CodecError. */
function __parseForDispatch(text: string): unknown {
  if (typeof text !== 'string') throw new __CodecError(`Expected JSON text, got ${typeof text}.`);
  // Without a tag key spelled out and without \u escapes (which could spell one), nothing needs
  // reviving, and the engine's own parse is several times faster than a reviver walk.
  const plain =
    (__codecApply(__codecIndexOf, text, ['"$']) as number) === -1 &&
    (__codecApply(__codecIndexOf, text, ['\\u']) as number) === -1;
  try {
    return plain ? __codecJsonParse(text) : __codecJsonParse(text, __codecReviver);
  } catch (cause) {
    if (cause instanceof __CodecError) throw cause;
    throw new __CodecError(
      `Malformed JSON: ${__codecString((cause as Error | undefined)?.message ?? cause)}`,
    );
  }
}

export {
  __CodecError as CodecError,
  __parseForDispatch as parseForDispatch,
  __stringifyForDispatch as stringifyForDispatch,
};
