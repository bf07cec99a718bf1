/**
 * The token's layout: the bytes, their text, and a parser that checks every field against its
 * bounds before any key is looked up or any byte decrypted. Parsing is one pass over the text and
 * one over the bytes; nothing it reads from the token decides how much it allocates, so a token of
 * any shape is refused as cheaply as its length allows.
 *
 *   text   = "cmdt." base64url(bytes)              (no padding; MAX_TOKEN_SIZE characters at most)
 *   bytes  = header ciphertext tag
 *   header = version        1 byte    FORMAT_VERSION
 *            keyIdLength    1 byte    1 to 64
 *            keyId          keyIdLength bytes of [A-Za-z0-9._-]
 *            tokenId        16 bytes  random per seal; names the token to a claim store
 *            nonce          12 bytes  random per seal (96 bits, GCM's own size)
 *            issuedAt       6 bytes   ms since the epoch, unsigned big-endian
 *            expiresAt      6 bytes   ms since the epoch, at most MAX_TTL after issuedAt
 *            fingerprints   96 bytes  binding.ts: 16 per bound field
 *            ciphertextLength 4 bytes unsigned big-endian; must equal what follows, minus the tag
 *   tag    = 16 bytes, AES-256-GCM's authentication tag over header (as associated data) and ciphertext
 *
 * docs/durable.md, "The token's format", says why each field is there.
 */
import { FINGERPRINTS_BYTES } from './binding.ts';
import { DurableTokenError } from './errors.ts';
import { KEY_ID_PATTERN } from './keys.ts';
import { MAX_TOKEN_SIZE, MAX_TTL } from './limits.ts';
import { MALFORMED, malformedMessage, tokenTooLargeMessage } from './texts.ts';

export const TOKEN_PREFIX = 'cmdt.';
export const FORMAT_VERSION = 1;
export const TOKEN_ID_BYTES = 16;
export const NONCE_BYTES = 12;
export const TAG_BYTES = 16;
const TIME_BYTES = 6;
const LENGTH_BYTES = 4;
/** A header's bytes besides the key id. */
const FIXED_HEADER_BYTES =
  1 + 1 + TOKEN_ID_BYTES + NONCE_BYTES + 2 * TIME_BYTES + FINGERPRINTS_BYTES + LENGTH_BYTES;

/** The header's fields: what a token says about itself in the clear. */
export interface TokenHeader {
  readonly keyId: string;
  readonly tokenId: Uint8Array;
  readonly nonce: Uint8Array;
  readonly issuedAt: number;
  readonly expiresAt: number;
  readonly fingerprints: Uint8Array;
}

/** A token taken apart: its header's fields, the header's bytes (the associated data), ciphertext and tag. */
export interface ParsedToken extends TokenHeader {
  readonly header: Buffer;
  readonly ciphertext: Buffer;
  readonly tag: Buffer;
}

/** The header's bytes for these fields and a ciphertext of this length. */
export function writeHeader(fields: TokenHeader, ciphertextLength: number): Buffer {
  const keyId = Buffer.from(fields.keyId, 'latin1');
  const header = Buffer.alloc(FIXED_HEADER_BYTES + keyId.length);
  let at = header.writeUInt8(FORMAT_VERSION, 0);
  at = header.writeUInt8(keyId.length, at);
  at += keyId.copy(header, at);
  header.set(fields.tokenId, at);
  at += TOKEN_ID_BYTES;
  header.set(fields.nonce, at);
  at += NONCE_BYTES;
  at = header.writeUIntBE(fields.issuedAt, at, TIME_BYTES);
  at = header.writeUIntBE(fields.expiresAt, at, TIME_BYTES);
  header.set(fields.fingerprints, at);
  at += FINGERPRINTS_BYTES;
  header.writeUInt32BE(ciphertextLength, at);
  return header;
}

/** The token's text. */
export function writeToken(header: Uint8Array, ciphertext: Uint8Array, tag: Uint8Array): string {
  return TOKEN_PREFIX + Buffer.concat([header, ciphertext, tag]).toString('base64url');
}

/** How many characters a token whose ciphertext has this length takes, with a key id this long. */
export function tokenLength(keyIdLength: number, ciphertextLength: number): number {
  const bytes = FIXED_HEADER_BYTES + keyIdLength + ciphertextLength + TAG_BYTES;
  return TOKEN_PREFIX.length + Math.ceil((bytes * 4) / 3);
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;
const BASE64URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The token's fields, or TOKEN_TOO_LARGE or TOKEN_MALFORMED saying which rule it breaks. */
export function parseToken(text: unknown): ParsedToken {
  if (typeof text !== 'string') throw malformed(MALFORMED.notText);
  // First, before reading a character: a length past the bound is refused whatever it holds.
  if (text.length > MAX_TOKEN_SIZE)
    throw new DurableTokenError('TOKEN_TOO_LARGE', tokenTooLargeMessage(text.length));
  if (!text.startsWith(TOKEN_PREFIX)) throw malformed(MALFORMED.prefix);
  const body = text.slice(TOKEN_PREFIX.length);
  if (!BASE64URL.test(body)) throw malformed(MALFORMED.alphabet);
  if (!canonicalBase64url(body)) throw malformed(MALFORMED.padding);
  const bytes = Buffer.from(body, 'base64url');
  if (bytes.length < FIXED_HEADER_BYTES + 1 + TAG_BYTES) throw malformed(MALFORMED.short);
  if (bytes[0] !== FORMAT_VERSION) throw malformed(MALFORMED.version);
  const keyIdLength = bytes[1] as number;
  const headerLength = FIXED_HEADER_BYTES + keyIdLength;
  if (keyIdLength === 0 || bytes.length < headerLength + TAG_BYTES) throw malformed(MALFORMED.keyId);
  // Every field's place is known once the key id's length is: fixed widths after it.
  let at = 2;
  const take = (length: number) => {
    const field = bytes.subarray(at, at + length);
    at += length;
    return field;
  };
  const keyId = take(keyIdLength).toString('latin1');
  if (!KEY_ID_PATTERN.test(keyId)) throw malformed(MALFORMED.keyId);
  const tokenId = take(TOKEN_ID_BYTES);
  const nonce = take(NONCE_BYTES);
  const issuedAt = take(TIME_BYTES).readUIntBE(0, TIME_BYTES);
  const expiresAt = take(TIME_BYTES).readUIntBE(0, TIME_BYTES);
  if (expiresAt <= issuedAt || expiresAt - issuedAt > MAX_TTL) throw malformed(MALFORMED.times);
  const fingerprints = take(FINGERPRINTS_BYTES);
  const ciphertextLength = take(LENGTH_BYTES).readUInt32BE(0);
  if (ciphertextLength !== bytes.length - headerLength - TAG_BYTES) throw malformed(MALFORMED.length);
  return {
    keyId,
    tokenId,
    nonce,
    issuedAt,
    expiresAt,
    fingerprints,
    header: bytes.subarray(0, headerLength),
    ciphertext: bytes.subarray(headerLength, headerLength + ciphertextLength),
    tag: bytes.subarray(headerLength + ciphertextLength),
  };
}

/**
 * Whether `body` is the one base64url spelling of its bytes: no length a whole number of bytes
 * cannot make, and no bits set past the last byte. Node's decoder ignores those bits, so without
 * this check several texts would open as one token.
 */
function canonicalBase64url(body: string): boolean {
  const rest = body.length % 4;
  if (rest === 0) return true;
  if (rest === 1) return false;
  const last = BASE64URL_ALPHABET.indexOf(body.charAt(body.length - 1));
  return (last & (rest === 2 ? 0x0f : 0x03)) === 0;
}

function malformed(reason: string): DurableTokenError {
  return new DurableTokenError('TOKEN_MALFORMED', malformedMessage(reason));
}
