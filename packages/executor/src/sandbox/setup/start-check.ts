/**
 * The two checks of a start's bytes (docs/pool.md, "Handing the start on", "The start cache on
 * disk"): the SHA-256 a maker commits to, which the parent checks, and the CRC-32 a child checks
 * before V8 sees them.
 *
 * The SHA-256 binds: a child commits to it before any program ran in it and sends the bytes later,
 * when an escaped program could have chosen them, so the parent needs a hash no one can match on
 * purpose. The CRC-32 guards against damage only: bytes torn by a crash, cut short, flipped on a
 * disk, spoilt between the parent and a child. Against a writer who means harm no check of the
 * child's would help, a SHA-256 no more than a CRC-32: whoever can write an entry can write its
 * digest beside it, which is why the cache trusts a folder only when no one but its user can write
 * to it, and the parent that sends a start has checked its SHA-256 itself. A CRC-32 catches every
 * burst of up to 32 damaged bits and misses other damage about once in four billion; it costs a
 * child node:zlib (about 2 ms) where a SHA-256 costs node:crypto (about 10 ms, node-crypto.ts).
 */
import { nodeCrypto } from '../node-crypto.ts';

/** A SHA-256 as a digest is written: 64 lowercase hexadecimal digits. */
export const SHA256_HEX = /^[0-9a-f]{64}$/;

export function isSha256(value: unknown): value is string {
  return typeof value === 'string' && value.length === 64 && SHA256_HEX.test(value);
}

/** The SHA-256 of a snapshot's `bytes` in hex: what a maker commits to and the parent checks. */
export function snapshotDigest(bytes: Uint8Array): string {
  return nodeCrypto().createHash('sha256').update(bytes).digest('hex');
}

/**
 * The CRC-32 of `digest` (as text) followed by `bytes`. The digest is in it because a child that
 * adopts the bytes takes the digest as its own, and commits to it when it is asked to hand its start
 * on: a digest damaged beside whole bytes would have the parent end that child as a forger, and
 * every child after it that read the same entry.
 */
export function startCheck(digest: string, bytes: Uint8Array): number {
  const { crc32 } = process.getBuiltinModule('node:zlib');
  return crc32(bytes, crc32(digest));
}

/**
 * The CRC-32 of `data` (a text as UTF-8) and its length, as a name: a cache entry's, from its key,
 * and the isolated-vm binary's within that key, where it tells a binary rebuilt in place from the
 * one before (its path and the release are in the key whole).
 */
export function checkName(data: string | Uint8Array): string {
  const check = process.getBuiltinModule('node:zlib').crc32(data);
  const length = typeof data === 'string' ? data.length : data.byteLength;
  return `${check.toString(16).padStart(8, '0')}-${length}`;
}
