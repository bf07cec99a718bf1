/**
 * One text per value, so two processes that build the same request hash it alike: the request a
 * token is bound to is hashed here when the run pauses and again when it resumes, perhaps on
 * another server. The rules are those of JSON with its freedoms removed (as RFC 8785 does):
 * object keys sorted by UTF-16 code units, no whitespace, numbers and strings as JSON.stringify
 * writes them. Only plain data is accepted; anything JSON would change silently (a Date, a Map,
 * NaN, a function) is refused with its path, since two spellings of one request must never hash
 * differently by accident. A property whose value is undefined counts as absent, as in JSON.
 */

import { echo } from '@supolka/codemode-protocol/wire';
import { nodeCrypto } from '../sandbox/node-crypto.ts';

/** How deep a value may nest; the walk is recursive, and requests are far shallower. */
export const CANONICAL_DEPTH_LIMIT = 256;

export function canonicalJson(value: unknown): string {
  const parts: string[] = [];
  write(value, '$', 0, new Set(), parts);
  return parts.join('');
}

/**
 * SHA-256 of the canonical text, as base64url. `domain` names what is hashed, so a hash of one
 * kind of thing never equals a hash of another that happens to have the same text.
 */
export function canonicalHash(domain: string, value: unknown): string {
  return nodeCrypto()
    .createHash('sha256')
    .update(`${domain}\n`)
    .update(canonicalJson(value))
    .digest('base64url');
}

function write(value: unknown, path: string, depth: number, open: Set<object>, parts: string[]): void {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') {
    parts.push(JSON.stringify(value));
    return;
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw refusal(path, 'is not a finite number');
    parts.push(JSON.stringify(value));
    return;
  }
  if (typeof value !== 'object') throw refusal(path, `is ${typeof value}, which JSON cannot hold`);
  if (depth >= CANONICAL_DEPTH_LIMIT)
    throw refusal(path, `nests deeper than ${CANONICAL_DEPTH_LIMIT} levels`);
  if (open.has(value)) throw refusal(path, 'refers back to itself');
  open.add(value);
  if (Array.isArray(value)) {
    parts.push('[');
    for (let index = 0; index < value.length; index++) {
      if (index > 0) parts.push(',');
      const item = value[index];
      if (item === undefined) throw refusal(`${path}[${index}]`, 'is undefined');
      write(item, `${path}[${index}]`, depth + 1, open, parts);
    }
    parts.push(']');
  } else {
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) throw refusal(path, 'is not a plain object');
    const keys = Object.keys(value)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .sort();
    parts.push('{');
    keys.forEach((key, index) => {
      if (index > 0) parts.push(',');
      parts.push(JSON.stringify(key), ':');
      write((value as Record<string, unknown>)[key], `${path}.${key}`, depth + 1, open, parts);
    });
    parts.push('}');
  }
  open.delete(value);
}

function refusal(path: string, rule: string): TypeError {
  return new TypeError(
    `A durable request part ${echo(path)} ${rule}: request parts must be plain JSON data.`,
  );
}
