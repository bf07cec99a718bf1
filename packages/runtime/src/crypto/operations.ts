/**
 * The crypto piece's entry (../pieces.ts): SubtleCrypto's operations, one function per method,
 * called by ./subtle-crypto.ts once its brand check passed. Each converts its arguments as WebIDL
 * does, runs the steps of the standard that come before the operation itself (normalizing the
 * algorithm, checking the key's algorithm, usages and extractability), and performs the operation
 * on the host through the crypto bridge. Keys cross as the numbers that name them. A function
 * throws what the standard rejects with; the method turns it into the rejection.
 *
 * Kept out of the startup snapshot: scripts/build-runtime-piece.mjs bundles this module with the ones
 * only it imports (algorithms, usages, the JsonWebKey conversion, the bridge and its crossing
 * budget), and every other module it imports is the snapshot's own, handed to the piece's factory.
 * timingSafeEqual is workerd's synchronous extra. In this executor every operation that reaches
 * the host is refused in global scope.
 */
import { DOMException } from '../dom-exception.ts';
import { ObjectKeys, PromisePrototypeThen, TypeErrorCtor, Uint8ArrayCtor } from '../primordials.ts';
import { copyBufferSource, toDOMString, toInteger } from '../webidl.ts';
import {
  type AlgorithmContext,
  algorithmForHost,
  type NormalizedAlgorithm,
  normalizeAlgorithm,
  type Operation,
} from './algorithms.ts';
import { performOnHost } from './bridge.ts';
import { type CryptoKey, createCryptoKey, type KeySlots, keyReference, keySlots } from './crypto-key.ts';
import { toJsonWebKey } from './json-web-key.ts';
import { dataRecord, defineData, ownValue } from './records.ts';
import { checkGeneratedUsages, checkImportedUsages, importedKeyType, toKeyUsages } from './usages.ts';

const OWNER = 'SubtleCrypto';
const KEY_FORMATS = ['raw', 'spki', 'pkcs8', 'jwk'];

// workerd's names for the algorithm dictionaries, which its TypeErrors quote.
const ENCRYPT_ALGORITHM = 'EncryptAlgorithm';
const SIGN_ALGORITHM = 'SignAlgorithm';
const DERIVE_KEY_ALGORITHM = 'DeriveKeyAlgorithm';
const IMPORT_KEY_ALGORITHM = 'ImportKeyAlgorithm';

function parameterTypeError(method: string, position: number, type: string): TypeError {
  return new TypeErrorCtor(
    `Failed to execute '${method}' on '${OWNER}': parameter ${position} is not of type '${type}'.`,
  );
}

function then<T, R>(promise: Promise<T>, onFulfilled: (value: T) => R): Promise<R> {
  return PromisePrototypeThen(promise, onFulfilled) as Promise<R>;
}

// WebIDL conversions of the arguments, with workerd's texts.

/** AlgorithmIdentifier, `(object or DOMString)`: an object stays one, anything else becomes its name. */
function toAlgorithmIdentifier(
  value: unknown,
  method: string,
  position: number,
  dictionary: string,
): unknown {
  if (value === undefined || value === null)
    throw parameterTypeError(method, position, `string or ${dictionary}`);
  return (typeof value === 'object' && value !== null) || typeof value === 'function'
    ? value
    : toDOMString(value);
}

function toCryptoKey(value: unknown, method: string, position: number): KeySlots {
  const slots = keySlots(value);
  if (slots === undefined) throw parameterTypeError(method, position, 'CryptoKey');
  return slots;
}

function toBufferSource(value: unknown, method: string, position: number): ArrayBuffer {
  const bytes = copyBufferSource(value);
  if (bytes === undefined) throw parameterTypeError(method, position, 'BufferSource');
  return bytes;
}

function toRequiredBoolean(value: unknown, method: string, position: number): boolean {
  if (value === undefined) throw parameterTypeError(method, position, 'boolean');
  return !!value;
}

/** KeyFormat, an enumeration: a value outside it is a TypeError. */
function toKeyFormat(value: unknown, method: string): string {
  if (value === undefined) throw parameterTypeError(method, 1, 'string');
  const format = toDOMString(value);
  for (let index = 0; index < KEY_FORMATS.length; index++) if (KEY_FORMATS[index] === format) return format;
  throw new TypeErrorCtor(
    `Failed to execute '${method}' on '${OWNER}': The provided value '${format}' is not a valid enum value of type KeyFormat.`,
  );
}

function isObject(value: unknown): value is object {
  return (typeof value === 'object' && value !== null) || typeof value === 'function';
}

// Steps the standard runs before the operation itself.

const context = (
  method: string,
  position: number,
  dictionary: string,
  where = 'algorithm',
): AlgorithmContext => ({
  method,
  position,
  dictionary,
  where,
});

/**
 * The key checks every operation on an existing key opens with: the algorithm named is the key's
 * own, and the key's usages allow the operation (InvalidAccessError otherwise).
 */
function checkKey(algorithm: NormalizedAlgorithm, key: KeySlots, usage: string): void {
  if (algorithm.name !== key.algorithm.name) {
    throw new DOMException(
      `Requested algorithm "${algorithm.name}" does not match this CryptoKey's algorithm "${key.algorithm.name}".`,
      'InvalidAccessError',
    );
  }
  let listed = false;
  for (let index = 0; index < key.usages.length; index++) if (key.usages[index] === usage) listed = true;
  if (!listed) {
    throw new DOMException(
      `Requested key usage "${usage}" does not match any usage listed in this CryptoKey.`,
      'InvalidAccessError',
    );
  }
}

/** The opening steps of ECDH's and X25519's derive bits: a private key, and a public key that matches it. */
function checkAgreement(algorithm: NormalizedAlgorithm, key: KeySlots): void {
  const publicKey = algorithm.public as KeySlots | undefined;
  if (publicKey === undefined) return;
  if (key.type !== 'private')
    throw new DOMException(`The provided key has type "${key.type}", not "private"`, 'InvalidAccessError');
  if (publicKey.type !== 'public')
    throw new DOMException(
      `The provided key has type "${publicKey.type}", not "public"`,
      'InvalidAccessError',
    );
  if (publicKey.algorithm.name !== key.algorithm.name) {
    throw new DOMException(
      `Private key for derivation is using "${key.algorithm.name}" while public key is using "${publicKey.algorithm.name}".`,
      'InvalidAccessError',
    );
  }
  if (publicKey.algorithm.namedCurve !== key.algorithm.namedCurve) {
    throw new DOMException(
      `Private key for derivation is using curve "${key.algorithm.namedCurve}" while public key is using "${publicKey.algorithm.namedCurve}".`,
      'InvalidAccessError',
    );
  }
}

/** Export key's opening check, also the one wrapKey makes of the key it wraps. */
function checkExtractable(key: KeySlots): void {
  if (!key.extractable) {
    throw new DOMException(
      `Attempt to export non-extractable ${key.algorithm.name} key.`,
      'InvalidAccessError',
    );
  }
}

/**
 * The format checks that open each algorithm's export key operation: a secret key exports as raw
 * or jwk (NotSupportedError otherwise), RSA has no raw format, and the raw form of an elliptic
 * curve or 25519 key is its public key's (InvalidAccessError for a private key).
 */
function checkExportFormat(key: KeySlots, format: string): void {
  const name = key.algorithm.name;
  const unimplemented = () =>
    new DOMException(`Unimplemented key export format "${format}".`, 'NotSupportedError');
  if (key.type === 'secret') {
    if (format !== 'raw' && format !== 'jwk') throw unimplemented();
    return;
  }
  if (format !== 'raw') return;
  if (name === 'RSASSA-PKCS1-v1_5' || name === 'RSA-PSS' || name === 'RSA-OAEP') throw unimplemented();
  if (key.type !== 'public') {
    const family = name === 'ECDSA' || name === 'ECDH' ? 'elliptic curve' : name;
    throw new DOMException(
      `Raw export of ${family} keys is only allowed for public keys.`,
      'InvalidAccessError',
    );
  }
}

const AES_LENGTHS = [128, 192, 256];
function isAesLength(length: unknown): boolean {
  for (let index = 0; index < AES_LENGTHS.length; index++) if (AES_LENGTHS[index] === length) return true;
  return false;
}
function isAes(name: string): boolean {
  return name === 'AES-CTR' || name === 'AES-CBC' || name === 'AES-GCM' || name === 'AES-KW';
}

/** The checks of import key that need no key material (usages, and what PBKDF2 and HKDF refuse). */
function checkImport(
  algorithm: NormalizedAlgorithm,
  format: string,
  keyData: ArrayBuffer | Record<string, unknown> | undefined,
  extractable: boolean,
  usages: readonly string[],
  jwkKnown: boolean,
): void {
  const name = algorithm.name;
  const jwk = format === 'jwk' && jwkKnown ? (keyData as Record<string, unknown>) : undefined;
  checkImportedUsages(name, importedKeyType(name, format, jwk), usages);
  if ((name === 'PBKDF2' || name === 'HKDF') && format === 'raw' && extractable)
    throw new DOMException(`${name} key cannot be extractable.`, 'SyntaxError');
  if (isAes(name) && format === 'raw' && keyData !== undefined && !jwkKnown) {
    const bits = new Uint8ArrayCtor(keyData as ArrayBuffer).length * 8;
    if (!isAesLength(bits)) {
      throw new DOMException(
        `Imported AES key length must be 128, 192, or 256 bits but provided ${bits}.`,
        'DataError',
      );
    }
  }
}

/** A NormalizedAlgorithm merged with another's members, for deriveKey's derived key type. */
function merge(first: NormalizedAlgorithm, second: NormalizedAlgorithm): NormalizedAlgorithm {
  const merged = dataRecord();
  const sources = [first, second];
  for (let at = 0; at < sources.length; at++) {
    const source = sources[at] as NormalizedAlgorithm;
    const keys = ObjectKeys(source);
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index] as string;
      merged[key] = source[key];
    }
  }
  return merged as NormalizedAlgorithm;
}

/** An algorithm normalized for `operation`, or for `fallback` when that fails (wrapKey, unwrapKey). */
function normalizeEither(
  operation: Operation,
  fallback: Operation,
  algorithm: unknown,
  where: AlgorithmContext,
): NormalizedAlgorithm {
  try {
    return normalizeAlgorithm(operation, algorithm, where);
  } catch {
    return normalizeAlgorithm(fallback, algorithm, where);
  }
}

/** What generateKey's host answer becomes: a CryptoKey, or a CryptoKeyPair record. */
function keyOrPair(answer: unknown): CryptoKey | object {
  if (ownValue(answer, 'cryptoKey') !== undefined) return createCryptoKey(answer);
  const pair = {};
  defineData(pair, 'publicKey', createCryptoKey(ownValue(answer, 'publicKey')));
  defineData(pair, 'privateKey', createCryptoKey(ownValue(answer, 'privateKey')));
  return pair;
}

/**
 * The steps encrypt, decrypt, sign and verify share: convert the algorithm, the key and each
 * buffer argument in order (parameters 3 and on), normalize the algorithm for the operation,
 * check the key's algorithm and usages against it, and run the operation on the host.
 */
function keyedOperation(
  operation: 'encrypt' | 'decrypt' | 'sign' | 'verify',
  algorithmType: string,
  algorithm: unknown,
  key: unknown,
  buffers: readonly unknown[],
): Promise<unknown> {
  const identifier = toAlgorithmIdentifier(algorithm, operation, 1, algorithmType);
  const slots = toCryptoKey(key, operation, 2);
  // Index loops, not spread: a program may have replaced the array iterator.
  const bytes: unknown[] = [];
  for (let index = 0; index < buffers.length; index++) {
    bytes[index] = toBufferSource(buffers[index], operation, index + 3);
  }
  const normalized = normalizeAlgorithm(operation, identifier, context(operation, 1, algorithmType));
  checkKey(normalized, slots, operation);
  const args: unknown[] = [algorithmForHost(normalized), keyReference(slots)];
  for (let index = 0; index < bytes.length; index++) args[index + 2] = bytes[index];
  return performOnHost(operation, args);
}

/** https://w3c.github.io/webcrypto/#SubtleCrypto-method-encrypt */
export function encrypt(algorithm: unknown, key: unknown, data: unknown): Promise<unknown> {
  return keyedOperation('encrypt', ENCRYPT_ALGORITHM, algorithm, key, [data]);
}

/** https://w3c.github.io/webcrypto/#SubtleCrypto-method-decrypt */
export function decrypt(algorithm: unknown, key: unknown, data: unknown): Promise<unknown> {
  return keyedOperation('decrypt', ENCRYPT_ALGORITHM, algorithm, key, [data]);
}

/** https://w3c.github.io/webcrypto/#SubtleCrypto-method-sign */
export function sign(algorithm: unknown, key: unknown, data: unknown): Promise<unknown> {
  return keyedOperation('sign', SIGN_ALGORITHM, algorithm, key, [data]);
}

/** https://w3c.github.io/webcrypto/#SubtleCrypto-method-verify */
export function verify(
  algorithm: unknown,
  key: unknown,
  signature: unknown,
  data: unknown,
): Promise<unknown> {
  return keyedOperation('verify', SIGN_ALGORITHM, algorithm, key, [signature, data]);
}

/** https://w3c.github.io/webcrypto/#SubtleCrypto-method-digest */
export function digest(algorithm: unknown, data: unknown): Promise<unknown> {
  const identifier = toAlgorithmIdentifier(algorithm, 'digest', 1, 'HashAlgorithm');
  const bytes = toBufferSource(data, 'digest', 2);
  const normalized = normalizeAlgorithm('digest', identifier, context('digest', 1, 'HashAlgorithm'));
  return performOnHost('digest', [algorithmForHost(normalized), bytes]);
}

/** https://w3c.github.io/webcrypto/#SubtleCrypto-method-generateKey */
export function generateKey(algorithm: unknown, extractable: unknown, keyUsages: unknown): Promise<unknown> {
  const identifier = toAlgorithmIdentifier(algorithm, 'generateKey', 1, 'GenerateKeyAlgorithm');
  const isExtractable = toRequiredBoolean(extractable, 'generateKey', 2);
  const usages = toKeyUsages(keyUsages, 'generateKey', 3);
  // 2. Normalize with op "generateKey".
  const normalized = normalizeAlgorithm(
    'generateKey',
    identifier,
    context('generateKey', 1, 'GenerateKeyAlgorithm'),
  );
  // 8-9. The generate key operation's own opening checks, then the usage rule of step 9.
  checkGeneratedUsages(normalized.name, usages, () => {
    if (isAes(normalized.name) && !isAesLength(normalized.length)) {
      throw new DOMException(
        `Generated AES key length must be 128, 192, or 256 bits but requested ${normalized.length as number}.`,
        'OperationError',
      );
    }
    if (normalized.name === 'HMAC' && normalized.length === 0) {
      throw new DOMException(
        'HMAC key length must be a non-zero unsigned long integer (requested 0).',
        'OperationError',
      );
    }
  });
  return then(performOnHost('generateKey', [algorithmForHost(normalized), isExtractable, usages]), keyOrPair);
}

/** https://w3c.github.io/webcrypto/#SubtleCrypto-method-deriveKey */
export function deriveKey(
  algorithm: unknown,
  baseKey: unknown,
  derivedKeyType: unknown,
  extractable: unknown,
  keyUsages: unknown,
): Promise<unknown> {
  const identifier = toAlgorithmIdentifier(algorithm, 'deriveKey', 1, DERIVE_KEY_ALGORITHM);
  const slots = toCryptoKey(baseKey, 'deriveKey', 2);
  const derivedType = toAlgorithmIdentifier(derivedKeyType, 'deriveKey', 3, IMPORT_KEY_ALGORITHM);
  const isExtractable = toRequiredBoolean(extractable, 'deriveKey', 4);
  const usages = toKeyUsages(keyUsages, 'deriveKey', 5);
  // 2. Normalize algorithm with op "deriveBits".
  const normalized = normalizeAlgorithm(
    'deriveBits',
    identifier,
    context('deriveKey', 1, DERIVE_KEY_ALGORITHM),
  );
  // 4. Normalize derivedKeyType with op "importKey", then 6. with op "get key length".
  const derivedContext = context('deriveKey', 3, IMPORT_KEY_ALGORITHM, 'derivedKeyParams');
  const importAlgorithm = normalizeAlgorithm('importKey', derivedType, derivedContext);
  const lengthAlgorithm = normalizeAlgorithm('get key length', derivedType, derivedContext);
  // 11-12. The base key's algorithm and usages.
  checkKey(normalized, slots, 'deriveKey');
  checkAgreement(normalized, slots);
  // 13. Get key length: AES needs one of its three lengths.
  if (isAes(lengthAlgorithm.name) && !isAesLength(lengthAlgorithm.length)) {
    throw new DOMException(
      `Derived AES key must be 128, 192, or 256 bits in length but provided ${lengthAlgorithm.length as number}.`,
      'OperationError',
    );
  }
  // 15-16. The derived key is imported as a raw secret key with these usages.
  checkImport(importAlgorithm, 'raw', undefined, isExtractable, usages, false);
  return then(
    performOnHost('deriveKey', [
      algorithmForHost(normalized),
      keyReference(slots),
      algorithmForHost(merge(importAlgorithm, lengthAlgorithm)),
      isExtractable,
      usages,
    ]),
    createCryptoKey,
  );
}

/** https://w3c.github.io/webcrypto/#SubtleCrypto-method-deriveBits */
export function deriveBits(algorithm: unknown, baseKey: unknown, length: unknown): Promise<unknown> {
  const identifier = toAlgorithmIdentifier(algorithm, 'deriveBits', 1, DERIVE_KEY_ALGORITHM);
  const slots = toCryptoKey(baseKey, 'deriveBits', 2);
  // `optional unsigned long? length = null`.
  const bits = length === undefined || length === null ? null : toInteger(length, 32, false);
  const normalized = normalizeAlgorithm(
    'deriveBits',
    identifier,
    context('deriveBits', 1, DERIVE_KEY_ALGORITHM),
  );
  // 8-9. The base key's algorithm and usages.
  checkKey(normalized, slots, 'deriveBits');
  checkAgreement(normalized, slots);
  return performOnHost('deriveBits', [algorithmForHost(normalized), keyReference(slots), bits]);
}

/** https://w3c.github.io/webcrypto/#SubtleCrypto-method-importKey */
export function importKey(
  format: unknown,
  keyData: unknown,
  algorithm: unknown,
  extractable: unknown,
  keyUsages: unknown,
): Promise<unknown> {
  const keyFormat = toKeyFormat(format, 'importKey');
  // keyData: (BufferSource or JsonWebKey).
  if (keyData === undefined || (!isObject(keyData) && keyData !== null))
    throw parameterTypeError('importKey', 2, 'BufferSource or JsonWebKey');
  const bytes = copyBufferSource(keyData);
  const jwk = bytes === undefined ? toJsonWebKey(keyData) : undefined;
  const identifier = toAlgorithmIdentifier(algorithm, 'importKey', 3, IMPORT_KEY_ALGORITHM);
  const isExtractable = toRequiredBoolean(extractable, 'importKey', 4);
  const usages = toKeyUsages(keyUsages, 'importKey', 5);
  // 2. Normalize with op "importKey".
  const normalized = normalizeAlgorithm(
    'importKey',
    identifier,
    context('importKey', 3, IMPORT_KEY_ALGORITHM),
  );
  // 8. A JsonWebKey for "jwk", a BufferSource for every other format.
  if (keyFormat === 'jwk' && jwk === undefined)
    throw new TypeErrorCtor('Import data provided for "jwk" import format must be a JsonWebKey.');
  if (keyFormat !== 'jwk' && bytes === undefined)
    throw new TypeErrorCtor('Import data provided for buffer-based import formats must be a buffer source.');
  checkImport(normalized, keyFormat, jwk ?? bytes, isExtractable, usages, jwk !== undefined);
  return then(
    performOnHost('importKey', [
      keyFormat,
      jwk ?? bytes,
      algorithmForHost(normalized),
      isExtractable,
      usages,
    ]),
    createCryptoKey,
  );
}

/** https://w3c.github.io/webcrypto/#SubtleCrypto-method-exportKey */
export function exportKey(format: unknown, key: unknown): Promise<unknown> {
  const keyFormat = toKeyFormat(format, 'exportKey');
  const slots = toCryptoKey(key, 'exportKey', 2);
  // 5. A key that is not extractable is refused; its material never left the host.
  checkExtractable(slots);
  // 6. The export key operation's own format checks.
  checkExportFormat(slots, keyFormat);
  return performOnHost('exportKey', [keyFormat, keyReference(slots)]);
}

/** https://w3c.github.io/webcrypto/#SubtleCrypto-method-wrapKey */
export function wrapKey(
  format: unknown,
  key: unknown,
  wrappingKey: unknown,
  wrapAlgorithm: unknown,
): Promise<unknown> {
  const keyFormat = toKeyFormat(format, 'wrapKey');
  const slots = toCryptoKey(key, 'wrapKey', 2);
  const wrapping = toCryptoKey(wrappingKey, 'wrapKey', 3);
  const identifier = toAlgorithmIdentifier(wrapAlgorithm, 'wrapKey', 4, ENCRYPT_ALGORITHM);
  // 2-3. Normalize with op "wrapKey", else with op "encrypt".
  const normalized = normalizeEither(
    'wrapKey',
    'encrypt',
    identifier,
    context('wrapKey', 4, ENCRYPT_ALGORITHM),
  );
  // 9-10. The wrapping key's algorithm and usages; 12. the wrapped key must be extractable.
  checkKey(normalized, wrapping, 'wrapKey');
  checkExtractable(slots);
  checkExportFormat(slots, keyFormat);
  return performOnHost('wrapKey', [
    keyFormat,
    keyReference(slots),
    keyReference(wrapping),
    algorithmForHost(normalized),
  ]);
}

/** https://w3c.github.io/webcrypto/#SubtleCrypto-method-unwrapKey */
export function unwrapKey(
  format: unknown,
  wrappedKey: unknown,
  unwrappingKey: unknown,
  unwrapAlgorithm: unknown,
  unwrappedKeyAlgorithm: unknown,
  extractable: unknown,
  keyUsages: unknown,
): Promise<unknown> {
  const keyFormat = toKeyFormat(format, 'unwrapKey');
  const bytes = toBufferSource(wrappedKey, 'unwrapKey', 2);
  const unwrapping = toCryptoKey(unwrappingKey, 'unwrapKey', 3);
  const identifier = toAlgorithmIdentifier(unwrapAlgorithm, 'unwrapKey', 4, ENCRYPT_ALGORITHM);
  const keyIdentifier = toAlgorithmIdentifier(unwrappedKeyAlgorithm, 'unwrapKey', 5, IMPORT_KEY_ALGORITHM);
  const isExtractable = toRequiredBoolean(extractable, 'unwrapKey', 6);
  const usages = toKeyUsages(keyUsages, 'unwrapKey', 7);
  // 2-3. Normalize with op "unwrapKey", else with op "decrypt"; 4. the key's with op "importKey".
  const normalized = normalizeEither(
    'unwrapKey',
    'decrypt',
    identifier,
    context('unwrapKey', 4, ENCRYPT_ALGORITHM),
  );
  const keyAlgorithm = normalizeAlgorithm(
    'importKey',
    keyIdentifier,
    context('unwrapKey', 5, IMPORT_KEY_ALGORITHM),
  );
  // 10-11. The unwrapping key's algorithm and usages.
  checkKey(normalized, unwrapping, 'unwrapKey');
  // 14. Import key's checks, where they need no key material (a wrapped JWK is not read here).
  checkImport(keyAlgorithm, keyFormat, undefined, isExtractable, usages, false);
  return then(
    performOnHost('unwrapKey', [
      keyFormat,
      bytes,
      keyReference(unwrapping),
      algorithmForHost(normalized),
      algorithmForHost(keyAlgorithm),
      isExtractable,
      usages,
    ]),
    createCryptoKey,
  );
}

/**
 * workerd's extension: whether two buffers hold the same bytes, comparing all of them whatever
 * the first difference. Synchronous, and it never reaches the host.
 */
export function timingSafeEqual(a: unknown, b: unknown): boolean {
  const first = copyBufferSource(a);
  if (first === undefined) throw parameterTypeError('timingSafeEqual', 1, 'BufferSource');
  const second = copyBufferSource(b);
  if (second === undefined) throw parameterTypeError('timingSafeEqual', 2, 'BufferSource');
  const left = new Uint8ArrayCtor(first);
  const right = new Uint8ArrayCtor(second);
  if (left.length !== right.length) throw new TypeErrorCtor('Input buffers must have the same byte length.');
  let difference = 0;
  for (let index = 0; index < left.length; index++)
    difference |= (left[index] as number) ^ (right[index] as number);
  return difference === 0;
}
