/**
 * The key ring a durable executor is given: keys with ids, one of them current. New tokens are
 * sealed with the current key and name its id; a token opens with whichever listed key its id
 * names, so keys rotate without stranding tokens sealed before the rotation (docs/durable.md, "Key
 * rotation").
 *
 * Each key is used only through keys derived from it with HKDF-SHA256, one per purpose, so no
 * two uses ever share key material: a per-token encryption key (derived again for every token
 * from its random id), the key of the binding's fingerprints, and the key of idempotency keys.
 * The ring copies the bytes it is given into KeyObjects, which never print their material, and
 * keeps them in a module-private table that nothing outside this package reaches.
 */
import type { KeyObject } from 'node:crypto';
import { nodeCrypto } from '../sandbox/node-crypto.ts';
import { DurableKeyError } from './errors.ts';
import { MIN_KEY_BYTES } from './limits.ts';
import {
  CURRENT_KEY_REQUIRED_MESSAGE,
  CURRENT_KEY_UNKNOWN_MESSAGE,
  duplicateKeyIdMessage,
  KEY_RING_SHAPE_MESSAGE,
  keyBytesMessage,
  keyIdMessage,
  keyLengthMessage,
} from './texts.ts';

/** One key of a ring: an id written into the tokens it seals, and at least MIN_KEY_BYTES of secret. */
export interface DurableKey {
  readonly id: string;
  readonly key: Uint8Array;
}

export interface DurableKeyRingOptions {
  /** Every key a token may be opened with. */
  readonly keys: readonly DurableKey[];
  /** The id of the key that seals new tokens; may be left out only when there is one key. */
  readonly current?: string;
}

/** Key ids travel in the clear in every token, so they are short and plain. */
export const KEY_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/** What one listed key becomes: the keys derived from it, never the key itself. */
export interface DerivedKeys {
  readonly id: string;
  /** Input of the per-token encryption key (tokenKey). */
  readonly master: KeyObject;
  /** Keys the HMAC of each binding field (binding.ts). */
  readonly fingerprint: KeyObject;
  /** Keys the HMAC of an idempotency key (token.ts). */
  readonly idempotency: KeyObject;
}

/** HKDF's info strings: each names the format version, so a later format derives other keys. */
const INFO = {
  encryption: 'codemode durable token 1: encryption',
  fingerprint: 'codemode durable token 1: binding fingerprint',
  idempotency: 'codemode durable token 1: idempotency key',
} as const;

const rings = new WeakMap<DurableKeyRing, ReadonlyMap<string, DerivedKeys>>();

export class DurableKeyRing {
  /** The id new tokens are sealed under. */
  readonly currentKeyId: string;
  /** Every id a token may name and still open. */
  readonly keyIds: readonly string[];

  constructor(options: DurableKeyRingOptions) {
    if (typeof options !== 'object' || options === null || !Array.isArray(options.keys)) {
      throw new DurableKeyError(KEY_RING_SHAPE_MESSAGE);
    }
    const { keys, current } = options;
    if (keys.length === 0) throw new DurableKeyError(KEY_RING_SHAPE_MESSAGE);
    const derived = new Map<string, DerivedKeys>();
    keys.forEach((entry, index) => {
      if (typeof entry !== 'object' || entry === null) throw new DurableKeyError(KEY_RING_SHAPE_MESSAGE);
      const { id, key } = entry;
      if (typeof id !== 'string' || !KEY_ID_PATTERN.test(id)) throw new DurableKeyError(keyIdMessage(index));
      if (!(key instanceof Uint8Array)) throw new DurableKeyError(keyBytesMessage(index));
      if (key.byteLength < MIN_KEY_BYTES) throw new DurableKeyError(keyLengthMessage(index, key.byteLength));
      if (derived.has(id)) throw new DurableKeyError(duplicateKeyIdMessage(index));
      derived.set(id, deriveKeys(id, key));
    });
    if (current === undefined && keys.length > 1) throw new DurableKeyError(CURRENT_KEY_REQUIRED_MESSAGE);
    const currentId = current ?? (keys[0] as DurableKey).id;
    if (!derived.has(currentId)) throw new DurableKeyError(CURRENT_KEY_UNKNOWN_MESSAGE);
    this.currentKeyId = currentId;
    this.keyIds = Object.freeze([...derived.keys()]);
    rings.set(this, derived);
  }
}

function deriveKeys(id: string, key: Uint8Array): DerivedKeys {
  // createSecretKey copies the bytes: the caller may wipe or reuse its buffer afterwards.
  const master = nodeCrypto().createSecretKey(Buffer.from(key));
  const derive = (info: string) =>
    nodeCrypto().createSecretKey(
      Buffer.from(nodeCrypto().hkdfSync('sha256', master, new Uint8Array(0), info, 32)),
    );
  return { id, master, fingerprint: derive(INFO.fingerprint), idempotency: derive(INFO.idempotency) };
}

/** The derived keys of the ring's current key. */
export function currentKeys(ring: DurableKeyRing): DerivedKeys {
  return keysOf(ring).get(ring.currentKeyId) as DerivedKeys;
}

/** The derived keys of the key a token names, or undefined when the ring does not list it. */
export function findKeys(ring: DurableKeyRing, id: string): DerivedKeys | undefined {
  return keysOf(ring).get(id);
}

function keysOf(ring: DurableKeyRing): ReadonlyMap<string, DerivedKeys> {
  const keys = rings.get(ring);
  // Only a ring this module constructed has keys: an object shaped like one is a caller's mistake.
  if (keys === undefined)
    throw new TypeError('A durable key ring must be made with new DurableKeyRing(...).');
  return keys;
}

/**
 * The AES-256-GCM key of one token: derived from the master key with the token's random id as the
 * salt, so every token is sealed under a key of its own and the nonce never repeats under one key,
 * however many tokens a key seals.
 */
export function tokenKey(keys: DerivedKeys, tokenId: Uint8Array): KeyObject {
  return nodeCrypto().createSecretKey(
    Buffer.from(nodeCrypto().hkdfSync('sha256', keys.master, tokenId, INFO.encryption, 32)),
  );
}
