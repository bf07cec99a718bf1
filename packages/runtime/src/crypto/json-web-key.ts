/**
 * The JsonWebKey dictionary (https://w3c.github.io/webcrypto/#JsonWebKey-dictionary) as WebIDL
 * converts it for importKey: members read in lexicographic order, each converted to its type.
 * Members the dictionary does not declare are never read, so they never cross to the host.
 */
import { ArrayPrototypePush, ReflectApply, SymbolIterator, TypeErrorCtor } from '../primordials.ts';
import { toDOMString } from '../webidl.ts';
import { dataRecord } from './records.ts';

function isObject(value: unknown): value is object {
  return (typeof value === 'object' && value !== null) || typeof value === 'function';
}

const JWK_STRINGS = ['alg', 'crv', 'd', 'dp', 'dq', 'e'];
const JWK_STRINGS_AFTER_KTY = ['n'];
const JWK_STRINGS_LAST = ['p', 'q', 'qi', 'use', 'x', 'y'];

function jwkTypeError(field: string, type: string): TypeError {
  return new TypeErrorCtor(
    `Incorrect type for the '${field}' field on 'JsonWebKey': the provided value is not of type '${type}'.`,
  );
}

/** A sequence<T> member of a dictionary, converted item by item. */
function toSequence<T>(value: unknown, field: string, convert: (item: unknown) => T): T[] {
  if (!isObject(value)) throw jwkTypeError(field, 'Array');
  const iteratorMethod = (value as Record<symbol, unknown>)[SymbolIterator];
  if (typeof iteratorMethod !== 'function') throw jwkTypeError(field, 'Array');
  const iterator = ReflectApply(iteratorMethod, value, []) as Record<string, unknown>;
  const next = iterator.next;
  const items: T[] = [];
  for (;;) {
    const step = ReflectApply(next as () => unknown, iterator, []) as Record<string, unknown>;
    if (!isObject(step)) throw new TypeErrorCtor(`Iterator result ${step} is not an object`);
    if (step.done) break;
    ArrayPrototypePush(items, convert(step.value));
  }
  return items;
}

/** A JsonWebKey from user code; undefined and null are the empty dictionary. */
export function toJsonWebKey(value: unknown): Record<string, unknown> {
  const jwk = dataRecord();
  if (value === undefined || value === null) return jwk;
  const source = value as Record<string, unknown>;
  const strings = (names: readonly string[]) => {
    for (let index = 0; index < names.length; index++) {
      const name = names[index] as string;
      const member = source[name];
      if (member !== undefined) jwk[name] = toDOMString(member);
    }
  };
  strings(JWK_STRINGS);
  const ext = source.ext;
  if (ext !== undefined) jwk.ext = !!ext;
  strings(['k']);
  const keyOps = source.key_ops;
  if (keyOps !== undefined) jwk.key_ops = toSequence(keyOps, 'key_ops', toDOMString);
  strings(['kty']);
  strings(JWK_STRINGS_AFTER_KTY);
  const oth = source.oth;
  if (oth !== undefined) {
    jwk.oth = toSequence(oth, 'oth', (item) => {
      // RsaOtherPrimesInfo: d, r, t.
      const info = dataRecord();
      if (item !== undefined && item !== null) {
        if (!isObject(item)) throw jwkTypeError('oth', 'RsaOtherPrimesInfo');
        const entry = item as Record<string, unknown>;
        const names = ['d', 'r', 't'];
        for (let index = 0; index < names.length; index++) {
          const name = names[index] as string;
          const member = entry[name];
          if (member !== undefined) info[name] = toDOMString(member);
        }
      }
      return info;
    });
  }
  strings(JWK_STRINGS_LAST);
  return jwk;
}
