/**
 * CryptoKey (WebCrypto, https://w3c.github.io/webcrypto/#cryptokey-interface). The key material
 * never enters the isolate: the host keeps the key and the isolate holds a description of it and
 * the number the host names it by (docs/runtime-deviations.md, "How crypto.subtle works here").
 *
 * As in workerd, type, extractable, algorithm and usages are own read-only data properties of each
 * key, so JSON.stringify and console.log show them; WebIDL puts accessors on the prototype. The
 * algorithm and usages objects are made once per key, so each read answers the same object (the
 * spec's "cached ECMAScript object"), and user code may change them without changing the key: the
 * operations read the private copies below.
 */
import { ArrayPrototypePush, ObjectDefineProperty, TypeErrorCtor, Uint8ArrayCtor } from '../primordials.ts';
import { defineWorkerdInterface } from '../webidl.ts';
import { dataRecord, defineData, ownValue } from './records.ts';

export type KeyType = 'public' | 'private' | 'secret';

/** The key's [[algorithm]] as the runtime reads it: plain data, never the object user code holds. */
export interface KeyAlgorithm {
  readonly name: string;
  readonly length?: number;
  readonly hash?: string;
  readonly namedCurve?: string;
  readonly modulusLength?: number;
  readonly publicExponent?: Uint8Array;
}

/** A key's internal slots: [[type]], [[extractable]], [[algorithm]], [[usages]] and the host's number. */
export interface KeySlots {
  readonly number: number;
  readonly type: KeyType;
  readonly extractable: boolean;
  readonly algorithm: KeyAlgorithm;
  readonly usages: readonly string[];
}

/** The recognized key usages, in the order workerd (and Node) list a key's usages. */
export const KEY_USAGES: readonly string[] = [
  'encrypt',
  'decrypt',
  'sign',
  'verify',
  'deriveKey',
  'deriveBits',
  'wrapKey',
  'unwrapKey',
];

const CONSTRUCTING = {};

/** Module-only access to a key's slots; undefined for anything that is not a CryptoKey. */
export let keySlots: (value: unknown) => KeySlots | undefined;

export class CryptoKey {
  #slots: KeySlots;

  constructor(token: unknown = undefined, slots: KeySlots | undefined = undefined) {
    if (token !== CONSTRUCTING || slots === undefined) throw new TypeErrorCtor('Illegal constructor');
    this.#slots = slots;
    // workerd's order and attributes: own, read-only, enumerable, configurable.
    const own = (name: string, value: unknown) =>
      ObjectDefineProperty(this, name, { value, writable: false, enumerable: true, configurable: true });
    own('usages', usagesObject(slots.usages));
    own('algorithm', algorithmObject(slots.algorithm));
    own('extractable', slots.extractable);
    own('type', slots.type);
  }

  static {
    keySlots = (value) =>
      typeof value === 'object' && value !== null && #slots in value ? value.#slots : undefined;
  }
}

defineWorkerdInterface(CryptoKey);

/** A CryptoKey for a key the host created, from the description it answered with. */
export function createCryptoKey(description: unknown): CryptoKey {
  const source = ownValue(description, 'algorithm');
  const algorithm = dataRecord<{
    name: string;
    length?: number;
    hash?: string;
    namedCurve?: string;
    modulusLength?: number;
    publicExponent?: Uint8Array;
  }>();
  algorithm.name = `${ownValue(source, 'name') as string}`;
  const modulusLength = ownValue(source, 'modulusLength');
  if (modulusLength !== undefined) algorithm.modulusLength = +(modulusLength as number);
  const publicExponent = ownValue(source, 'publicExponent');
  if (publicExponent !== undefined)
    algorithm.publicExponent = new Uint8ArrayCtor(publicExponent as Uint8Array);
  const hash = ownValue(source, 'hash');
  if (hash !== undefined) algorithm.hash = `${ownValue(hash, 'name') as string}`;
  const namedCurve = ownValue(source, 'namedCurve');
  if (namedCurve !== undefined) algorithm.namedCurve = `${namedCurve as string}`;
  const length = ownValue(source, 'length');
  if (length !== undefined) algorithm.length = +(length as number);
  // The usages in the recognized order, whatever order the host listed them in.
  const listed = ownValue(description, 'usages') as readonly string[];
  const usages: string[] = [];
  for (let index = 0; index < KEY_USAGES.length; index++) {
    const usage = KEY_USAGES[index] as string;
    for (let at = 0; at < listed.length; at++) {
      if (listed[at] === usage) {
        ArrayPrototypePush(usages, usage);
        break;
      }
    }
  }
  return new CryptoKey(CONSTRUCTING, {
    number: +(ownValue(description, 'cryptoKey') as number),
    type: `${ownValue(description, 'type') as string}` as KeyType,
    extractable: ownValue(description, 'extractable') === true,
    algorithm,
    usages,
  });
}

/** The KeyAlgorithm dictionary user code reads, members in workerd's order. */
function algorithmObject(algorithm: KeyAlgorithm): object {
  const object = {};
  defineData(object, 'name', algorithm.name);
  if (algorithm.modulusLength !== undefined) defineData(object, 'modulusLength', algorithm.modulusLength);
  if (algorithm.publicExponent !== undefined)
    defineData(object, 'publicExponent', new Uint8ArrayCtor(algorithm.publicExponent));
  if (algorithm.hash !== undefined) {
    const hash = {};
    defineData(hash, 'name', algorithm.hash);
    defineData(object, 'hash', hash);
  }
  if (algorithm.namedCurve !== undefined) defineData(object, 'namedCurve', algorithm.namedCurve);
  if (algorithm.length !== undefined) defineData(object, 'length', algorithm.length);
  return object;
}

function usagesObject(usages: readonly string[]): string[] {
  const array: string[] = [];
  for (let index = 0; index < usages.length; index++) defineData(array, `${index}`, usages[index]);
  return array;
}

/** The form a key crosses to the host in: the number, which the host swaps back for the key. */
export function keyReference(slots: KeySlots): { cryptoKey: number } {
  return { cryptoKey: slots.number };
}
