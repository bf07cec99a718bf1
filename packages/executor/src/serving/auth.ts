/**
 * Who may connect: the bearer token, compared in constant time, the origins a browser may connect
 * from, and the rule that a server without a token serves loopback only.
 */

import { isIP } from 'node:net';
import { nodeCrypto } from '../sandbox/node-crypto.ts';

/** Shorter tokens are too easy to guess for a service that runs code. */
export const MIN_TOKEN_LENGTH = 16;

/**
 * Whether `given` is the token. Both sides are hashed first, so the comparison takes the same time
 * whatever the lengths and wherever the first difference is.
 */
export function tokenMatches(expected: string, given: string | undefined): boolean {
  if (given === undefined) return false;
  const digest = (text: string) => nodeCrypto().createHash('sha256').update(text, 'utf8').digest();
  return nodeCrypto().timingSafeEqual(digest(expected), digest(given));
}

/** The token of an `Authorization: Bearer <token>` header, or undefined for any other form. */
export function bearerToken(header: string): string | undefined {
  const match = /^Bearer +(\S+) *$/i.exec(header);
  return match?.[1];
}

/** Loopback only: 127.0.0.0/8, ::1, the IPv4-mapped form of either, and the name localhost. */
export function isLoopback(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || /^::ffff:127\./i.test(bare);
  return false;
}
