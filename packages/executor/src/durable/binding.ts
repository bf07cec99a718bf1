/**
 * What a token is bound to, and the fingerprints that carry the binding in the token's header.
 *
 * The header holds, for each field, an HMAC of its value under a key derived from the sealing key,
 * and the whole header is the AEAD's associated data. So the binding is authenticated with the
 * ciphertext, a token holder learns nothing of the values (not the principal, not the engine
 * versions: without the key a fingerprint cannot be checked against a guess), and an opener that
 * recomputes the fingerprints from its own values can say which field differs once the tag has
 * verified. A fingerprint is 128 bits: to pass one off for another value an attacker would have to
 * compute HMACs under a key they do not hold.
 */
import { nodeCrypto } from '../sandbox/node-crypto.ts';
import { canonicalHash } from './canonical.ts';
import type { DerivedKeys } from './keys.ts';
import type { BindingField } from './texts.ts';

/** The engine a token is sealed under: a resume under any other version is refused. */
export interface DurableVersions {
  /** The executor package's version. */
  readonly executor: string;
  /** V8's version (process.versions.v8). */
  readonly v8: string;
  /** The installed isolated-vm's version. */
  readonly isolatedVm: string;
}

/**
 * Everything a token is bound to. The same binding must be given to seal the token and to open it;
 * a field that differs refuses the token (TOKEN_MISMATCH, naming the field).
 */
export interface DurableBinding {
  /**
   * The request's parts as plain JSON data, hashed canonically (canonical.ts): the code, the
   * modules, the provider and tool names, the prelude, the proxy source, the positional arguments,
   * the outbound mode and the bounds. Build it the same way when pausing and when resuming.
   */
  readonly request: Readonly<Record<string, unknown>>;
  /** The hash of the runtime bundle the isolates are made from. */
  readonly runtime: string;
  readonly versions: DurableVersions;
  /**
   * Who the run paused for, as the caller names them. A token opens only for the same principal:
   * everyone a server knows by one name (one bearer token, for example) is one audience.
   */
  readonly principal: string;
}

/** The fields in the order they sit in the header and are compared. */
export const BINDING_FIELDS: readonly BindingField[] = [
  'executor',
  'v8',
  'isolated-vm',
  'runtime',
  'request',
  'principal',
];

export const FINGERPRINT_BYTES = 16;
export const FINGERPRINTS_BYTES = FINGERPRINT_BYTES * BINDING_FIELDS.length;

/** The domain of the request's hash (canonical.ts, canonicalHash). */
const REQUEST_DOMAIN = 'codemode durable request 1';

/** Each field's value as text, the request hashed; a binding of the wrong shape is a caller's mistake. */
export function bindingValues(binding: DurableBinding): Readonly<Record<BindingField, string>> {
  if (typeof binding !== 'object' || binding === null) throw shapeError('the binding must be an object');
  const { request, runtime, versions, principal } = binding;
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    throw shapeError('request must be an object of the request parts');
  }
  if (typeof versions !== 'object' || versions === null) throw shapeError('versions must be an object');
  const texts = {
    runtime,
    principal,
    executor: versions.executor,
    v8: versions.v8,
    isolatedVm: versions.isolatedVm,
  };
  for (const [name, text] of Object.entries(texts)) {
    if (typeof text !== 'string') throw shapeError(`${name} must be a string`);
  }
  return {
    executor: versions.executor,
    v8: versions.v8,
    'isolated-vm': versions.isolatedVm,
    runtime,
    request: canonicalHash(REQUEST_DOMAIN, request),
    principal,
  };
}

/** The header's fingerprints of these values under this key, field after field. */
export function fingerprints(keys: DerivedKeys, values: Readonly<Record<BindingField, string>>): Buffer {
  const out = Buffer.alloc(FINGERPRINTS_BYTES);
  BINDING_FIELDS.forEach((field, index) => {
    // The field's name is hashed with its value, so a value never passes for another field's.
    const mac = nodeCrypto()
      .createHmac('sha256', keys.fingerprint)
      .update(field)
      .update('\0')
      .update(values[field])
      .digest();
    mac.copy(out, index * FINGERPRINT_BYTES, 0, FINGERPRINT_BYTES);
  });
  return out;
}

/** The first field whose fingerprints differ, or undefined when all agree. */
export function firstDifference(expected: Uint8Array, carried: Uint8Array): BindingField | undefined {
  return BINDING_FIELDS.find((_field, index) => {
    const start = index * FINGERPRINT_BYTES;
    const end = start + FINGERPRINT_BYTES;
    return !nodeCrypto().timingSafeEqual(expected.subarray(start, end), carried.subarray(start, end));
  });
}

function shapeError(rule: string): TypeError {
  return new TypeError(
    `A durable token's binding is { request, runtime, versions: { executor, v8, isolatedVm }, principal }: ${rule}.`,
  );
}
