/**
 * crypto.getRandomValues and crypto.randomUUID (WebCrypto, https://w3c.github.io/webcrypto/#Crypto-method-getRandomValues),
 * served by the host's random source.
 */
import { DOMException } from './dom-exception.ts';
import { hostOf } from './host.ts';
import { assertRequestScope } from './internals.ts';
import {
  TypedArrayPrototypeGetBuffer,
  TypedArrayPrototypeGetByteLength,
  TypedArrayPrototypeGetByteOffset,
  TypedArrayPrototypeGetSymbolToStringTag,
  TypedArrayPrototypeSet,
  TypeErrorCtor,
  Uint8ArrayCtor,
} from './primordials.ts';

/** The most bytes one call may ask for. */
export const RANDOM_VALUES_LIMIT = 65536;

const INTEGER_ARRAYS = new Set([
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'BigInt64Array',
  'BigUint64Array',
]);

export function getRandomValues<T extends ArrayBufferView | null>(array: T): T {
  assertRequestScope();
  const kind = TypedArrayPrototypeGetSymbolToStringTag(array);
  if (kind === undefined) {
    throw new TypeErrorCtor(
      "Failed to execute 'getRandomValues' on 'Crypto': parameter 1 is not of type 'ArrayBufferView'.",
    );
  }
  if (!INTEGER_ARRAYS.has(kind)) {
    throw new DOMException(
      'ArrayBufferView argument to getRandomValues() must be an integer-typed view.',
      'TypeMismatchError',
    );
  }
  const length = TypedArrayPrototypeGetByteLength(array);
  if (length > RANDOM_VALUES_LIMIT) {
    throw new DOMException(
      `getRandomValues() only accepts buffers of size <= 64K but provided ${length} bytes.`,
      'QuotaExceededError',
    );
  }
  if (length === 0) return array;
  const bytes = hostOf().randomBytes.sync([length], { result: { copy: true } }) as Uint8Array;
  const target = new Uint8ArrayCtor(
    TypedArrayPrototypeGetBuffer(array) as ArrayBuffer,
    TypedArrayPrototypeGetByteOffset(array),
    length,
  );
  TypedArrayPrototypeSet(target, bytes);
  return array;
}

export function randomUUID(): string {
  assertRequestScope();
  return hostOf().randomUUID.sync([]) as string;
}
