/**
 * Algorithm normalization (WebCrypto, https://w3c.github.io/webcrypto/#algorithm-normalization-normalize-an-algorithm)
 * and the algorithm-specific checks the runtime makes before an operation crosses to the host.
 *
 * The isolate has no cryptography: what it does here is what the standard does before any key
 * material is touched, so an argument the standard rejects is rejected where user code can see the
 * right error, and only data the host's webcrypto accepts crosses. A member of an algorithm
 * dictionary that its IDL dictionary does not declare is never read, so it never crosses
 * (docs/runtime-deviations.md, "What never crosses to the host").
 */
import { DOMException } from '../dom-exception.ts';
import {
  ObjectKeys,
  StringFromCharCode,
  StringPrototypeCharCodeAt,
  TypedArrayPrototypeGetSymbolToStringTag,
  TypeErrorCtor,
  Uint8ArrayCtor,
} from '../primordials.ts';
import { copyBufferSource, toDOMString, toInteger } from '../webidl.ts';
import { type KeySlots, keyReference, keySlots } from './crypto-key.ts';
import { dataRecord } from './records.ts';

/** The operations of the standard's registry, plus wrap/unwrap, which fall back to encrypt/decrypt. */
export type Operation =
  | 'encrypt'
  | 'decrypt'
  | 'sign'
  | 'verify'
  | 'digest'
  | 'generateKey'
  | 'importKey'
  | 'deriveBits'
  | 'get key length'
  | 'wrapKey'
  | 'unwrapKey';

type MemberType =
  | 'BufferSource'
  | 'BigInteger'
  | 'HashAlgorithmIdentifier'
  | 'CryptoKey'
  | 'octet'
  | 'unsigned short'
  | 'unsigned long'
  | 'DOMString';

interface Member {
  readonly name: string;
  readonly type: MemberType;
  readonly required: boolean;
}

/**
 * An IDL dictionary inheriting from Algorithm: its members past `name`, in the order WebIDL reads
 * them (inherited dictionaries first, then each dictionary's members in lexicographic order).
 */
type Dictionary = readonly Member[];

const member = (name: string, type: MemberType, required = true): Member => ({ name, type, required });

// https://w3c.github.io/webcrypto/#dfn-Algorithm and the dictionaries of each algorithm's section.
const ALGORITHM: Dictionary = [];
const RSA_HASHED_KEY_GEN_PARAMS: Dictionary = [
  member('modulusLength', 'unsigned long'),
  member('publicExponent', 'BigInteger'),
  member('hash', 'HashAlgorithmIdentifier'),
];
const RSA_HASHED_IMPORT_PARAMS: Dictionary = [member('hash', 'HashAlgorithmIdentifier')];
const RSA_PSS_PARAMS: Dictionary = [member('saltLength', 'unsigned long')];
const RSA_OAEP_PARAMS: Dictionary = [member('label', 'BufferSource', false)];
const ECDSA_PARAMS: Dictionary = [member('hash', 'HashAlgorithmIdentifier')];
const EC_KEY_GEN_PARAMS: Dictionary = [member('namedCurve', 'DOMString')];
const EC_KEY_IMPORT_PARAMS: Dictionary = [member('namedCurve', 'DOMString')];
const ECDH_KEY_DERIVE_PARAMS: Dictionary = [member('public', 'CryptoKey')];
const AES_CTR_PARAMS: Dictionary = [member('counter', 'BufferSource'), member('length', 'octet')];
const AES_KEY_GEN_PARAMS: Dictionary = [member('length', 'unsigned short')];
const AES_DERIVED_KEY_PARAMS: Dictionary = [member('length', 'unsigned short')];
const AES_CBC_PARAMS: Dictionary = [member('iv', 'BufferSource')];
const AES_GCM_PARAMS: Dictionary = [
  member('additionalData', 'BufferSource', false),
  member('iv', 'BufferSource'),
  member('tagLength', 'octet', false),
];
const HMAC_IMPORT_PARAMS: Dictionary = [
  member('hash', 'HashAlgorithmIdentifier'),
  member('length', 'unsigned long', false),
];
const HMAC_KEY_GEN_PARAMS: Dictionary = HMAC_IMPORT_PARAMS;
const HKDF_PARAMS: Dictionary = [
  member('hash', 'HashAlgorithmIdentifier'),
  member('info', 'BufferSource'),
  member('salt', 'BufferSource'),
];
const PBKDF2_PARAMS: Dictionary = [
  member('hash', 'HashAlgorithmIdentifier'),
  member('iterations', 'unsigned long'),
  member('salt', 'BufferSource'),
];

function table(entries: [string, Dictionary][]): Record<string, Dictionary> {
  const result = dataRecord<Record<string, Dictionary>>();
  for (let index = 0; index < entries.length; index++) {
    // Index reads, not a destructuring: this runs when the crypto piece loads, after a program
    // may have replaced the array iterator.
    const entry = entries[index] as [string, Dictionary];
    result[entry[0]] = entry[1];
  }
  return result;
}

const AES_ENCRYPT = table([
  ['RSA-OAEP', RSA_OAEP_PARAMS],
  ['AES-CTR', AES_CTR_PARAMS],
  ['AES-CBC', AES_CBC_PARAMS],
  ['AES-GCM', AES_GCM_PARAMS],
]);
const SIGN = table([
  ['RSASSA-PKCS1-v1_5', ALGORITHM],
  ['RSA-PSS', RSA_PSS_PARAMS],
  ['ECDSA', ECDSA_PARAMS],
  ['HMAC', ALGORITHM],
  ['Ed25519', ALGORITHM],
]);

/** supportedAlgorithms (https://w3c.github.io/webcrypto/#dfn-supportedAlgorithms), as this runtime registers it. */
const REGISTERED: Record<Operation, Record<string, Dictionary>> = {
  encrypt: AES_ENCRYPT,
  decrypt: AES_ENCRYPT,
  sign: SIGN,
  verify: SIGN,
  digest: table([
    // Not in WebCrypto; workerd digests it, and the host answers it with Node's MD5.
    ['MD5', ALGORITHM],
    ['SHA-1', ALGORITHM],
    ['SHA-256', ALGORITHM],
    ['SHA-384', ALGORITHM],
    ['SHA-512', ALGORITHM],
  ]),
  generateKey: table([
    ['RSASSA-PKCS1-v1_5', RSA_HASHED_KEY_GEN_PARAMS],
    ['RSA-PSS', RSA_HASHED_KEY_GEN_PARAMS],
    ['RSA-OAEP', RSA_HASHED_KEY_GEN_PARAMS],
    ['ECDSA', EC_KEY_GEN_PARAMS],
    ['ECDH', EC_KEY_GEN_PARAMS],
    ['AES-CTR', AES_KEY_GEN_PARAMS],
    ['AES-CBC', AES_KEY_GEN_PARAMS],
    ['AES-GCM', AES_KEY_GEN_PARAMS],
    ['AES-KW', AES_KEY_GEN_PARAMS],
    ['HMAC', HMAC_KEY_GEN_PARAMS],
    ['Ed25519', ALGORITHM],
    ['X25519', ALGORITHM],
  ]),
  importKey: table([
    ['RSASSA-PKCS1-v1_5', RSA_HASHED_IMPORT_PARAMS],
    ['RSA-PSS', RSA_HASHED_IMPORT_PARAMS],
    ['RSA-OAEP', RSA_HASHED_IMPORT_PARAMS],
    ['ECDSA', EC_KEY_IMPORT_PARAMS],
    ['ECDH', EC_KEY_IMPORT_PARAMS],
    ['AES-CTR', ALGORITHM],
    ['AES-CBC', ALGORITHM],
    ['AES-GCM', ALGORITHM],
    ['AES-KW', ALGORITHM],
    ['HMAC', HMAC_IMPORT_PARAMS],
    ['HKDF', ALGORITHM],
    ['PBKDF2', ALGORITHM],
    ['Ed25519', ALGORITHM],
    ['X25519', ALGORITHM],
  ]),
  deriveBits: table([
    ['ECDH', ECDH_KEY_DERIVE_PARAMS],
    ['X25519', ECDH_KEY_DERIVE_PARAMS],
    ['HKDF', HKDF_PARAMS],
    ['PBKDF2', PBKDF2_PARAMS],
  ]),
  'get key length': table([
    ['AES-CTR', AES_DERIVED_KEY_PARAMS],
    ['AES-CBC', AES_DERIVED_KEY_PARAMS],
    ['AES-GCM', AES_DERIVED_KEY_PARAMS],
    ['AES-KW', AES_DERIVED_KEY_PARAMS],
    ['HMAC', HMAC_IMPORT_PARAMS],
    ['HKDF', ALGORITHM],
    ['PBKDF2', ALGORITHM],
  ]),
  wrapKey: table([['AES-KW', ALGORITHM]]),
  unwrapKey: table([['AES-KW', ALGORITHM]]),
};

/** The longest algorithm name, or curve name, normalization reads further. */
export const ALGORITHM_STRING_LIMIT = 256;

/** The NotSupportedError text for an algorithm's `member` (name, namedCurve) past ALGORITHM_STRING_LIMIT. */
export function algorithmStringLimitMessage(member: string, length: number): string {
  return `An algorithm's ${member} may be at most ${ALGORITHM_STRING_LIMIT} characters long; this one has ${length}. No algorithm has such a ${member}.`;
}

/** A normalized algorithm: `name` as registered, every declared member converted; `public` holds a key's slots. */
export type NormalizedAlgorithm = { readonly name: string } & Readonly<Record<string, unknown>>;

/** Where an algorithm argument came from, for the error texts (workerd's dictionary names). */
export interface AlgorithmContext {
  readonly method: string;
  readonly position: number;
  /** workerd's name for the dictionary: EncryptAlgorithm, SignAlgorithm, ... */
  readonly dictionary: string;
  /** What a missing member is said to be missing from: "algorithm", "derivedKeyParams". */
  readonly where: string;
}

/** ASCII lowercase, for the ASCII case-insensitive match the standard asks for (no locale, no Unicode folding). */
function asciiLowercase(text: string): string {
  let result = '';
  for (let index = 0; index < text.length; index++) {
    const unit = StringPrototypeCharCodeAt(text, index);
    result += StringFromCharCode(unit >= 0x41 && unit <= 0x5a ? unit + 0x20 : unit);
  }
  return result;
}

function unrecognized(operation: Operation, name: string): DOMException {
  let message: string;
  switch (operation) {
    case 'digest':
      message = 'Unrecognized or unimplemented digest algorithm requested.';
      break;
    case 'generateKey':
      message = `Unrecognized key generation algorithm "${name}" requested.`;
      break;
    case 'importKey':
      message = `Unrecognized key import algorithm "${name}" requested.`;
      break;
    case 'get key length':
      message = `Unrecognized derived key type "${name}" requested.`;
      break;
    default:
      message = `Unrecognized or unimplemented ${operation} algorithm "${name}" requested.`;
  }
  return new DOMException(message, 'NotSupportedError');
}

function isObject(value: unknown): value is object {
  return (typeof value === 'object' && value !== null) || typeof value === 'function';
}

/**
 * Normalize an algorithm (https://w3c.github.io/webcrypto/#algorithm-normalization-normalize-an-algorithm)
 * given as a method's argument. Throws what the standard returns as an error; the caller turns it
 * into a rejection.
 */
export function normalizeAlgorithm(
  operation: Operation,
  algorithm: unknown,
  context: AlgorithmContext,
): NormalizedAlgorithm {
  // A missing argument (undefined, or null, which the AlgorithmIdentifier union turns into no
  // dictionary) reads as workerd reads it.
  if (algorithm === undefined || algorithm === null) {
    throw new TypeErrorCtor(
      `Failed to execute '${context.method}' on 'SubtleCrypto': parameter ${context.position} is not of type 'string or ${context.dictionary}'.`,
    );
  }
  return normalize(operation, algorithm, context);
}

function normalize(operation: Operation, algorithm: unknown, context: AlgorithmContext): NormalizedAlgorithm {
  // 1. If alg is an instance of a DOMString: return the result of normalizing { name: alg }.
  if (!isObject(algorithm)) {
    const named = dataRecord();
    named.name = toDOMString(algorithm);
    return normalize(operation, named, context);
  }
  const source = algorithm as Record<string, unknown>;
  // 2.1-2.3. registeredAlgorithms; initialAlg: alg converted to the Algorithm dictionary.
  const registered = REGISTERED[operation];
  const initialName = source.name;
  if (initialName === undefined) throw missingMember('name', context);
  // 2.4. Let algName be the value of the name attribute of initialAlg.
  const algName = toDOMString(initialName);
  // No registered name is longer than 17 characters; a longer one is refused before it is
  // lowercased, copied into a message or sent anywhere.
  if (algName.length > ALGORITHM_STRING_LIMIT)
    throw new DOMException(algorithmStringLimitMessage('name', algName.length), 'NotSupportedError');
  // 2.5. A registered name that is an ASCII case-insensitive match wins; otherwise NotSupportedError.
  let registeredName: string | undefined;
  const wanted = asciiLowercase(algName);
  const names = ObjectKeys(registered);
  for (let index = 0; index < names.length; index++) {
    const key = names[index] as string;
    if (asciiLowercase(key) === wanted) {
      registeredName = key;
      break;
    }
  }
  if (registeredName === undefined) throw unrecognized(operation, algName);
  const desiredType = registered[registeredName] as Dictionary;
  // 2.6-2.8. Convert alg to desiredType, member by member, in WebIDL's order; `name` first.
  const name = source.name;
  if (name === undefined) throw missingMember('name', context);
  toDOMString(name);
  const normalized = dataRecord();
  for (let index = 0; index < desiredType.length; index++) {
    const { name: memberName, type, required } = desiredType[index] as Member;
    const value = source[memberName];
    if (value === undefined) {
      if (required) throw missingMember(memberName, context);
      continue;
    }
    normalized[memberName] = convertMember(memberName, type, value, context);
  }
  // 2.9. Set the name attribute of normalizedAlgorithm to algName.
  normalized.name = registeredName;
  // 2.10. Members that are algorithm identifiers (hash) are normalized in turn, with op "digest";
  // the buffer sources were copied as they were converted.
  for (let index = 0; index < desiredType.length; index++) {
    const { name: memberName, type } = desiredType[index] as Member;
    if (type === 'HashAlgorithmIdentifier' && normalized[memberName] !== undefined) {
      const hash = normalize('digest', normalized[memberName], context);
      // MD5 is a digest only: the host's webcrypto keys no HMAC or signature with it.
      if (hash.name === 'MD5') throw unrecognized('digest', 'MD5');
      normalized[memberName] = hash;
    }
  }
  return normalized as NormalizedAlgorithm;
}

function missingMember(name: string, context: AlgorithmContext): TypeError {
  // workerd says an ECDH public key is missing from "derivedKeyParams" whatever the method.
  const where = name === 'public' ? 'derivedKeyParams' : context.where;
  return new TypeErrorCtor(`Missing field "${name}" in "${where}".`);
}

function wrongMemberType(name: string, type: string, context: AlgorithmContext): TypeError {
  return new TypeErrorCtor(
    `Incorrect type for the '${name}' field on '${context.dictionary}': the provided value is not of type '${type}'.`,
  );
}

/** 2.10. Each member converted to its IDL type: buffer sources copied, hashes normalized, keys checked. */
function convertMember(name: string, type: MemberType, value: unknown, context: AlgorithmContext): unknown {
  const range = `The '${name}' field on '${context.dictionary}'`;
  switch (type) {
    case 'BufferSource': {
      const bytes = copyBufferSource(value);
      if (bytes === undefined) throw wrongMemberType(name, 'BufferSource', context);
      return bytes;
    }
    case 'BigInteger': {
      // BigInteger is a Uint8Array; the bytes are copied when the call is made.
      if (!isUint8Array(value)) throw wrongMemberType(name, 'Uint8Array', context);
      return new Uint8ArrayCtor(copyBufferSource(value) as ArrayBuffer);
    }
    case 'HashAlgorithmIdentifier':
      // The (object or DOMString) union; normalized once the whole dictionary is converted (2.10).
      return isObject(value) ? value : toDOMString(value);
    case 'CryptoKey': {
      const slots = keySlots(value);
      if (slots === undefined) throw wrongMemberType(name, 'CryptoKey', context);
      return slots;
    }
    case 'octet':
      return toInteger(value, 8, false, { enforceRange: true, context: range });
    case 'unsigned short':
      return toInteger(value, 16, false, { enforceRange: true, context: range });
    case 'unsigned long':
      return toInteger(value, 32, false, { enforceRange: true, context: range });
    case 'DOMString': {
      // namedCurve: every curve's name is a few characters; a longer one never crosses.
      const text = toDOMString(value);
      if (text.length > ALGORITHM_STRING_LIMIT)
        throw new DOMException(algorithmStringLimitMessage(name, text.length), 'NotSupportedError');
      return text;
    }
  }
}

function isUint8Array(value: unknown): boolean {
  return TypedArrayPrototypeGetSymbolToStringTag(value) === 'Uint8Array';
}

/**
 * The form a normalized algorithm crosses to the host in: plain data, with a nested key (the
 * `public` member of ECDH and X25519) as the number that names it.
 */
export function algorithmForHost(algorithm: NormalizedAlgorithm): Record<string, unknown> {
  const wire = dataRecord();
  const keys = ObjectKeys(algorithm);
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as string;
    const value = algorithm[key];
    if (key === 'public') wire[key] = keyReference(value as KeySlots);
    else if (key === 'hash') wire[key] = algorithmForHost(value as NormalizedAlgorithm);
    else wire[key] = value;
  }
  return wire;
}
