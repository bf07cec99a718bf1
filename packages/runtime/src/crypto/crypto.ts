/**
 * Crypto (WebCrypto, https://w3c.github.io/webcrypto/#crypto-interface): getRandomValues and
 * randomUUID, served by the host's random source, and the one SubtleCrypto. The texts of the
 * errors are workerd's. Both methods wait on the host, so they throw in global scope, as in workerd.
 */
import { DOMException } from '../dom-exception.ts';
import { COPY_RESULT, hostOf } from '../host.ts';
import { assertRequestScope } from '../internals.ts';
import {
  DataViewPrototypeGetBuffer,
  StringPrototypeCharCodeAt,
  TypedArrayPrototypeGetBuffer,
  TypedArrayPrototypeGetByteLength,
  TypedArrayPrototypeGetByteOffset,
  TypedArrayPrototypeGetSymbolToStringTag,
  TypedArrayPrototypeSet,
  TypeErrorCtor,
  Uint8ArrayCtor,
} from '../primordials.ts';
import { defineWorkerdInterface, illegalInvocation } from '../webidl.ts';
import { dataRecord } from './records.ts';
import { createSubtleCrypto, type SubtleCrypto } from './subtle-crypto.ts';

/** The most bytes one call may ask for. */
export const RANDOM_VALUES_LIMIT = 65536;

/**
 * Why getRandomValues threw when the host's random source answered anything but exactly the
 * `length` bytes asked for (an OperationError): the array is left as it was, never partly random.
 */
export function randomAnswerMessage(length: number): string {
  return `getRandomValues() could not fill ${length} bytes: the host's random source did not answer exactly that many, so the array was left unchanged.`;
}

/**
 * What randomUUID throws when the host's answer is not a version 4 UUID in its lowercase form: a
 * program must never receive something else under that name.
 */
export const RANDOM_UUID_ANSWER_MESSAGE =
  "randomUUID() could not make a UUID: the host's random source answered something that is not one.";

/** Whether `text` is a version 4 UUID as randomUUID prints it: 8-4-4-4-12 lowercase hex digits, version 4, variant 10. */
function isVersion4Uuid(text: unknown): text is string {
  if (typeof text !== 'string' || text.length !== 36) return false;
  for (let index = 0; index < 36; index++) {
    const code = StringPrototypeCharCodeAt(text, index);
    if (index === 8 || index === 13 || index === 18 || index === 23) {
      if (code !== 0x2d) return false;
    } else if (!((code >= 0x30 && code <= 0x39) || (code >= 0x61 && code <= 0x66))) return false;
  }
  const variant = StringPrototypeCharCodeAt(text, 19);
  return (
    StringPrototypeCharCodeAt(text, 14) === 0x34 &&
    (variant === 0x38 || variant === 0x39 || variant === 0x61 || variant === 0x62)
  );
}

/** The integer typed arrays getRandomValues accepts (https://w3c.github.io/webcrypto/#Crypto-method-getRandomValues, step 1). */
const INTEGER_ARRAYS = dataRecord<Record<string, true>>();
for (const kind of [
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'BigInt64Array',
  'BigUint64Array',
]) {
  INTEGER_ARRAYS[kind] = true;
}

function isDataView(value: unknown): boolean {
  try {
    DataViewPrototypeGetBuffer(value);
    return true;
  } catch {
    return false;
  }
}

const CONSTRUCTING = {};
let isCrypto: (value: unknown) => boolean;

export class Crypto {
  #subtle: SubtleCrypto;

  constructor(token: unknown = undefined) {
    if (token !== CONSTRUCTING) throw new TypeErrorCtor('Illegal constructor');
    this.#subtle = createSubtleCrypto();
  }

  get subtle(): SubtleCrypto {
    if (!isCrypto(this)) throw illegalInvocation();
    return this.#subtle;
  }

  /** https://w3c.github.io/webcrypto/#Crypto-method-getRandomValues */
  getRandomValues<T extends ArrayBufferView | null>(array: T = undefined as unknown as T): T {
    if (!isCrypto(this)) throw illegalInvocation();
    assertRequestScope();
    const kind = TypedArrayPrototypeGetSymbolToStringTag(array);
    if (kind === undefined && !isDataView(array)) {
      throw new TypeErrorCtor(
        "Failed to execute 'getRandomValues' on 'Crypto': parameter 1 is not of type 'ArrayBufferView'.",
      );
    }
    // 1. Not an integer type (a float array, a DataView): TypeMismatchError.
    if (kind === undefined || INTEGER_ARRAYS[kind] !== true) {
      throw new DOMException(
        'ArrayBufferView argument to getRandomValues() must be an integer-typed view.',
        'TypeMismatchError',
      );
    }
    // 2. More than 65536 bytes: QuotaExceededError.
    const length = TypedArrayPrototypeGetByteLength(array);
    if (length > RANDOM_VALUES_LIMIT) {
      throw new DOMException(
        `getRandomValues() only accepts buffers of size <= 64K but provided ${length} bytes.`,
        'QuotaExceededError',
      );
    }
    // 3-4. Overwrite the elements with random values, and return the same array.
    if (length === 0) return array;
    const bytes = hostOf().randomBytes.sync([length], COPY_RESULT) as unknown;
    // Copied into the array below, a shorter answer would leave zeros (or what the array held)
    // where randomness was promised, and a longer or foreign one would throw mid-copy.
    if (
      TypedArrayPrototypeGetSymbolToStringTag(bytes) !== 'Uint8Array' ||
      TypedArrayPrototypeGetByteLength(bytes) !== length
    ) {
      throw new DOMException(randomAnswerMessage(length), 'OperationError');
    }
    const target = new Uint8ArrayCtor(
      TypedArrayPrototypeGetBuffer(array) as ArrayBuffer,
      TypedArrayPrototypeGetByteOffset(array),
      length,
    );
    TypedArrayPrototypeSet(target, bytes as Uint8Array);
    return array;
  }

  /** https://w3c.github.io/webcrypto/#Crypto-method-randomUUID */
  randomUUID(): string {
    if (!isCrypto(this)) throw illegalInvocation();
    assertRequestScope();
    const uuid = hostOf().randomUUID.sync([]) as unknown;
    if (!isVersion4Uuid(uuid)) throw new DOMException(RANDOM_UUID_ANSWER_MESSAGE, 'OperationError');
    return uuid;
  }

  static {
    isCrypto = (value) => typeof value === 'object' && value !== null && #subtle in value;
  }
}

defineWorkerdInterface(Crypto);

/** The global scope's `crypto`. */
export function createCrypto(): Crypto {
  return new Crypto(CONSTRUCTING);
}
