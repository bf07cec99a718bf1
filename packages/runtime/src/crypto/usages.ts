/**
 * Key usages: the KeyUsage conversion and the usage checks each algorithm's generate key and import
 * key operations open with (https://w3c.github.io/webcrypto/#algorithm-overview), made here so a
 * wrong usage is refused before anything crosses to the host, with workerd's texts.
 */
import { DOMException } from '../dom-exception.ts';
import { ArrayPrototypePush, ReflectApply, SymbolIterator, TypeErrorCtor } from '../primordials.ts';
import { toDOMString } from '../webidl.ts';
import { KEY_USAGES, type KeyType } from './crypto-key.ts';
import { dataRecord } from './records.ts';

const ENCRYPTION = ['encrypt', 'decrypt', 'wrapKey', 'unwrapKey'];
const DERIVATION = ['deriveKey', 'deriveBits'];

/** The usages a secret key of each symmetric algorithm may have. */
const SECRET_USAGES = dataRecord<Record<string, readonly string[]>>();
SECRET_USAGES.HMAC = ['sign', 'verify'];
SECRET_USAGES['AES-CTR'] = ENCRYPTION;
SECRET_USAGES['AES-CBC'] = ENCRYPTION;
SECRET_USAGES['AES-GCM'] = ENCRYPTION;
SECRET_USAGES['AES-KW'] = ['wrapKey', 'unwrapKey'];
SECRET_USAGES.HKDF = DERIVATION;
SECRET_USAGES.PBKDF2 = DERIVATION;

interface PairUsages {
  readonly public: readonly string[];
  readonly private: readonly string[];
}
const SIGNATURE: PairUsages = { public: ['verify'], private: ['sign'] };
const AGREEMENT: PairUsages = { public: [], private: DERIVATION };

/** The usages each half of an asymmetric algorithm's key pair may have. */
const PAIR_USAGES = dataRecord<Record<string, PairUsages>>();
PAIR_USAGES['RSASSA-PKCS1-v1_5'] = SIGNATURE;
PAIR_USAGES['RSA-PSS'] = SIGNATURE;
PAIR_USAGES.ECDSA = SIGNATURE;
PAIR_USAGES.Ed25519 = SIGNATURE;
PAIR_USAGES['RSA-OAEP'] = { public: ['encrypt', 'wrapKey'], private: ['decrypt', 'unwrapKey'] };
PAIR_USAGES.ECDH = AGREEMENT;
PAIR_USAGES.X25519 = AGREEMENT;

const EMPTY_USAGES_MESSAGE = 'Secret/private CryptoKeys must have at least one usage.';

function includes(list: readonly string[], value: string): boolean {
  for (let index = 0; index < list.length; index++) if (list[index] === value) return true;
  return false;
}

export function isSecretAlgorithm(name: string): boolean {
  return SECRET_USAGES[name] !== undefined;
}

function syntaxError(message: string): DOMException {
  return new DOMException(message, 'SyntaxError');
}

/**
 * sequence<KeyUsage> (https://webidl.spec.whatwg.org/#es-sequence): any iterable, each value a
 * member of the KeyUsage enumeration.
 */
export function toKeyUsages(value: unknown, method: string, position: number): string[] {
  const notASequence = () =>
    new TypeErrorCtor(
      `Failed to execute '${method}' on 'SubtleCrypto': parameter ${position} is not of type 'Array'.`,
    );
  if ((typeof value !== 'object' || value === null) && typeof value !== 'function') throw notASequence();
  const iteratorMethod = (value as Record<symbol, unknown>)[SymbolIterator];
  if (typeof iteratorMethod !== 'function') throw notASequence();
  const iterator = ReflectApply(iteratorMethod, value, []) as Record<string, unknown>;
  if ((typeof iterator !== 'object' || iterator === null) && typeof iterator !== 'function')
    throw new TypeErrorCtor('Result of the Symbol.iterator method is not an object');
  const next = iterator.next;
  const usages: string[] = [];
  for (;;) {
    const step = ReflectApply(next as () => unknown, iterator, []) as Record<string, unknown>;
    if ((typeof step !== 'object' || step === null) && typeof step !== 'function')
      throw new TypeErrorCtor(`Iterator result ${step} is not an object`);
    if (step.done) break;
    const usage = toDOMString(step.value);
    if (!includes(KEY_USAGES, usage)) {
      throw new TypeErrorCtor(
        `Failed to execute '${method}' on 'SubtleCrypto': The provided value '${usage}' is not a valid enum value of type KeyUsage.`,
      );
    }
    ArrayPrototypePush(usages, usage);
  }
  return usages;
}

/**
 * The usage checks of generate key: every usage one the algorithm allows (SyntaxError), and, as
 * generateKey's step 9 asks of the result, a secret or private key with at least one usage.
 */
export function checkGeneratedUsages(
  name: string,
  usages: readonly string[],
  algorithmChecks: () => void,
): void {
  const secret = SECRET_USAGES[name];
  const pair = PAIR_USAGES[name];
  for (let index = 0; index < usages.length; index++) {
    const usage = usages[index] as string;
    const allowed = secret
      ? includes(secret, usage)
      : pair !== undefined && (includes(pair.public, usage) || includes(pair.private, usage));
    if (!allowed) throw syntaxError(`Attempt to generate ${name} key with invalid usage "${usage}".`);
  }
  algorithmChecks();
  if (secret && usages.length === 0) throw syntaxError(EMPTY_USAGES_MESSAGE);
  if (pair !== undefined) {
    let privateUsages = 0;
    for (let index = 0; index < usages.length; index++)
      if (includes(pair.private, usages[index] as string)) privateUsages++;
    if (privateUsages === 0)
      throw syntaxError('Attempt to generate asymmetric keys with no valid private key usages.');
  }
}

/**
 * The usage checks of import key for a key of a known type: every usage one that type of key of
 * the algorithm allows, and, as importKey's step 9 asks, a secret or private key with at least
 * one usage. A type the runtime cannot tell before the key is parsed (undefined) is left to the host.
 */
export function checkImportedUsages(
  name: string,
  type: KeyType | undefined,
  usages: readonly string[],
): void {
  if (type === undefined) return;
  const allowed = type === 'secret' ? SECRET_USAGES[name] : PAIR_USAGES[name]?.[type];
  if (allowed === undefined) return;
  for (let index = 0; index < usages.length; index++) {
    const usage = usages[index] as string;
    if (!includes(allowed, usage))
      throw syntaxError(`Attempt to import ${type} ${name} key with invalid usage "${usage}".`);
  }
  if (type !== 'public' && usages.length === 0) throw syntaxError(EMPTY_USAGES_MESSAGE);
}

/**
 * The type a key imported in `format` will have, where the algorithm's import key operation says
 * so before parsing the data: secret for symmetric algorithms, and for asymmetric ones by the
 * format (a JWK with a private member `d` is private). Undefined where the data decides or the
 * format is one the algorithm refuses first.
 */
export function importedKeyType(
  name: string,
  format: string,
  jwk: Record<string, unknown> | undefined,
): KeyType | undefined {
  if (isSecretAlgorithm(name)) {
    // PBKDF2 and HKDF refuse every format but raw before they look at usages.
    if ((name === 'PBKDF2' || name === 'HKDF') && format !== 'raw') return undefined;
    return 'secret';
  }
  switch (format) {
    case 'spki':
      return 'public';
    case 'pkcs8':
      return 'private';
    case 'raw':
      // RSA has no raw format: NotSupportedError comes first, from the host.
      return name === 'RSASSA-PKCS1-v1_5' || name === 'RSA-PSS' || name === 'RSA-OAEP' ? undefined : 'public';
    case 'jwk':
      return jwk === undefined ? undefined : jwk.d !== undefined ? 'private' : 'public';
    default:
      return undefined;
  }
}
