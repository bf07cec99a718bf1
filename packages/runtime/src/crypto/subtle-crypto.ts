/**
 * SubtleCrypto (WebCrypto, https://w3c.github.io/webcrypto/#subtlecrypto-interface), as the
 * startup snapshot holds it: the interface, its brand check and the promise each method answers.
 * What a method does is in the crypto piece (./operations.ts), which the first method called
 * loads (../pieces.ts): a trivial program never touches the algorithm tables, the usage rules or
 * the bridge, so they are compiled on first use instead of living in every isolate.
 *
 * As in workerd: a method called on something that is not a SubtleCrypto throws; every other
 * failure rejects the promise, a failed load of the piece too; each method's `length` is 0; and
 * timingSafeEqual is a synchronous extra. In this executor every operation that reaches the host
 * is refused in global scope.
 */
import { loadPiece, type Pieces } from '../pieces.ts';
import { PromiseCtor, TypeErrorCtor } from '../primordials.ts';
import { defineWorkerdInterface, illegalInvocation } from '../webidl.ts';
import { PIECE_IMPORTS } from './generated/crypto-piece-imports.generated.ts';

/** The piece's operations, loaded on the first call in this isolate. */
function operations(): Pieces['crypto'] {
  return loadPiece('crypto', PIECE_IMPORTS);
}

function rejected(error: unknown): Promise<never> {
  return new PromiseCtor((_, reject) => reject(error));
}

/** Runs a method's steps: what they throw becomes the rejection the standard returns. */
function attempt<T>(steps: () => Promise<T>): Promise<T> {
  try {
    return steps();
  } catch (error) {
    return rejected(error);
  }
}

const CONSTRUCTING = {};
let isSubtle: (value: unknown) => boolean;

export class SubtleCrypto {
  #brand = true;

  constructor(token: unknown = undefined) {
    if (token !== CONSTRUCTING) throw new TypeErrorCtor('Illegal constructor');
  }

  static {
    isSubtle = (value) => typeof value === 'object' && value !== null && #brand in value;
  }

  /** https://w3c.github.io/webcrypto/#SubtleCrypto-method-encrypt */
  encrypt(
    algorithm: unknown = undefined,
    key: unknown = undefined,
    data: unknown = undefined,
  ): Promise<unknown> {
    if (!isSubtle(this)) throw illegalInvocation();
    return attempt(() => operations().encrypt(algorithm, key, data));
  }

  /** https://w3c.github.io/webcrypto/#SubtleCrypto-method-decrypt */
  decrypt(
    algorithm: unknown = undefined,
    key: unknown = undefined,
    data: unknown = undefined,
  ): Promise<unknown> {
    if (!isSubtle(this)) throw illegalInvocation();
    return attempt(() => operations().decrypt(algorithm, key, data));
  }

  /** https://w3c.github.io/webcrypto/#SubtleCrypto-method-sign */
  sign(
    algorithm: unknown = undefined,
    key: unknown = undefined,
    data: unknown = undefined,
  ): Promise<unknown> {
    if (!isSubtle(this)) throw illegalInvocation();
    return attempt(() => operations().sign(algorithm, key, data));
  }

  /** https://w3c.github.io/webcrypto/#SubtleCrypto-method-verify */
  verify(
    algorithm: unknown = undefined,
    key: unknown = undefined,
    signature: unknown = undefined,
    data: unknown = undefined,
  ): Promise<unknown> {
    if (!isSubtle(this)) throw illegalInvocation();
    return attempt(() => operations().verify(algorithm, key, signature, data));
  }

  /** https://w3c.github.io/webcrypto/#SubtleCrypto-method-digest */
  digest(algorithm: unknown = undefined, data: unknown = undefined): Promise<unknown> {
    if (!isSubtle(this)) throw illegalInvocation();
    return attempt(() => operations().digest(algorithm, data));
  }

  /** https://w3c.github.io/webcrypto/#SubtleCrypto-method-generateKey */
  generateKey(
    algorithm: unknown = undefined,
    extractable: unknown = undefined,
    keyUsages: unknown = undefined,
  ): Promise<unknown> {
    if (!isSubtle(this)) throw illegalInvocation();
    return attempt(() => operations().generateKey(algorithm, extractable, keyUsages));
  }

  /** https://w3c.github.io/webcrypto/#SubtleCrypto-method-deriveKey */
  deriveKey(
    algorithm: unknown = undefined,
    baseKey: unknown = undefined,
    derivedKeyType: unknown = undefined,
    extractable: unknown = undefined,
    keyUsages: unknown = undefined,
  ): Promise<unknown> {
    if (!isSubtle(this)) throw illegalInvocation();
    return attempt(() => operations().deriveKey(algorithm, baseKey, derivedKeyType, extractable, keyUsages));
  }

  /** https://w3c.github.io/webcrypto/#SubtleCrypto-method-deriveBits */
  deriveBits(
    algorithm: unknown = undefined,
    baseKey: unknown = undefined,
    length: unknown = null,
  ): Promise<unknown> {
    if (!isSubtle(this)) throw illegalInvocation();
    return attempt(() => operations().deriveBits(algorithm, baseKey, length));
  }

  /** https://w3c.github.io/webcrypto/#SubtleCrypto-method-importKey */
  importKey(
    format: unknown = undefined,
    keyData: unknown = undefined,
    algorithm: unknown = undefined,
    extractable: unknown = undefined,
    keyUsages: unknown = undefined,
  ): Promise<unknown> {
    if (!isSubtle(this)) throw illegalInvocation();
    return attempt(() => operations().importKey(format, keyData, algorithm, extractable, keyUsages));
  }

  /** https://w3c.github.io/webcrypto/#SubtleCrypto-method-exportKey */
  exportKey(format: unknown = undefined, key: unknown = undefined): Promise<unknown> {
    if (!isSubtle(this)) throw illegalInvocation();
    return attempt(() => operations().exportKey(format, key));
  }

  /** https://w3c.github.io/webcrypto/#SubtleCrypto-method-wrapKey */
  wrapKey(
    format: unknown = undefined,
    key: unknown = undefined,
    wrappingKey: unknown = undefined,
    wrapAlgorithm: unknown = undefined,
  ): Promise<unknown> {
    if (!isSubtle(this)) throw illegalInvocation();
    return attempt(() => operations().wrapKey(format, key, wrappingKey, wrapAlgorithm));
  }

  /** https://w3c.github.io/webcrypto/#SubtleCrypto-method-unwrapKey */
  unwrapKey(
    format: unknown = undefined,
    wrappedKey: unknown = undefined,
    unwrappingKey: unknown = undefined,
    unwrapAlgorithm: unknown = undefined,
    unwrappedKeyAlgorithm: unknown = undefined,
    extractable: unknown = undefined,
    keyUsages: unknown = undefined,
  ): Promise<unknown> {
    if (!isSubtle(this)) throw illegalInvocation();
    return attempt(() =>
      operations().unwrapKey(
        format,
        wrappedKey,
        unwrappingKey,
        unwrapAlgorithm,
        unwrappedKeyAlgorithm,
        extractable,
        keyUsages,
      ),
    );
  }

  /**
   * workerd's extension: whether two buffers hold the same bytes, comparing all of them whatever
   * the first difference. Synchronous, and it never reaches the host.
   */
  timingSafeEqual(a: unknown = undefined, b: unknown = undefined): boolean {
    if (!isSubtle(this)) throw illegalInvocation();
    return operations().timingSafeEqual(a, b);
  }
}

defineWorkerdInterface(SubtleCrypto);

/** The one SubtleCrypto of the global scope's Crypto. */
export function createSubtleCrypto(): SubtleCrypto {
  return new SubtleCrypto(CONSTRUCTING);
}
