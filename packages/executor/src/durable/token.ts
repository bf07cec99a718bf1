/**
 * Sealing a paused run's journal into a token, and opening it again: AES-256-GCM (node:crypto)
 * under a per-token key derived from the key ring's current key, the header (key id, token id,
 * nonce, times, the binding's fingerprints) authenticated as associated data, the text base64url
 * so it fits a JSON message. Opening checks, in this order, each refused with its own code: the
 * format's bounds (format.ts), the key, the tag, the expiry, the binding field by field, the
 * journal's length, and last the claim, so a token that fails a check is never claimed. A resume
 * opens without the claim, checks its answers against the journal, then claims (durability.ts).
 *
 * The plaintext is never compressed before it is encrypted. Compression makes the ciphertext's
 * length depend on how much of the content repeats, and a program's journal mixes what an
 * attacker can steer (a tool's argument, a fetched page) with what it should not learn (another
 * tool's answer): from the lengths of tokens for inputs it chose, an attacker could guess the
 * secrets byte by byte, as CRIME and BREACH did to TLS and HTTP.
 */
import { nodeCrypto } from '../sandbox/node-crypto.ts';
import { bindingValues, type DurableBinding, fingerprints, firstDifference } from './binding.ts';
import type { ClaimStore } from './claims.ts';
import { DurableTokenError } from './errors.ts';
import {
  NONCE_BYTES,
  parseToken,
  TAG_BYTES,
  TOKEN_ID_BYTES,
  tokenLength,
  writeHeader,
  writeToken,
} from './format.ts';
import { currentKeys, type DerivedKeys, DurableKeyRing, findKeys, tokenKey } from './keys.ts';
import {
  DEFAULT_JOURNAL_LENGTH,
  DEFAULT_TTL,
  MAX_JOURNAL_LENGTH,
  MAX_TOKEN_SIZE,
  MAX_TTL,
} from './limits.ts';
import {
  CLAIM_UNAVAILABLE_MESSAGE,
  CONTENTS_JSON_MESSAGE,
  CONTENTS_MESSAGE,
  expiredMessage,
  FORGED_TAG_MESSAGE,
  FORGED_UNKNOWN_KEY_MESSAGE,
  JOURNAL_LENGTH_OPTION_MESSAGE,
  journalTooLongMessage,
  MALFORMED,
  malformedMessage,
  mismatchMessage,
  REPLAYED_MESSAGE,
  SEQUENCE_MESSAGE,
  sealTooLargeMessage,
  TTL_MESSAGE,
} from './texts.ts';

const CIPHER = 'aes-256-gcm';
/** Bytes of the plaintext's first field, the length of its JSON. */
const JSON_LENGTH_BYTES = 4;

/**
 * What a token carries, sealed: the journal (its entries are opaque here, each a JSON value),
 * whatever else a resume needs (`state`, JSON), and binary data the journal refers to (`bytes`),
 * carried as bytes rather than base64 inside JSON. What JSON.stringify drops or changes (undefined,
 * a Date) comes back as JSON.parse reads it; empty `bytes` come back absent.
 */
export interface TokenContents {
  readonly journal: readonly unknown[];
  readonly state?: unknown;
  readonly bytes?: Uint8Array;
}

export interface DurableTokensOptions {
  readonly keys: DurableKeyRing;
  /** How long a token can be resumed after it is sealed, in ms (default DEFAULT_TTL, 1 hour; at most MAX_TTL). */
  readonly ttl?: number;
  /** Entries a journal may hold, sealing and opening (default DEFAULT_JOURNAL_LENGTH; at most MAX_JOURNAL_LENGTH). */
  readonly maxJournalLength?: number;
  /** Claims each token once; without one a token resumes as often as it is presented until it expires. */
  readonly claims?: ClaimStore;
  /** The clock, in ms since the epoch (default Date.now); tests pass their own. */
  readonly now?: () => number;
}

/** A sealed token and what its header says about it. */
export interface SealedToken {
  readonly token: string;
  /** The id a claim store knows it by: base64url of 16 random bytes. */
  readonly tokenId: string;
  readonly issuedAt: number;
  readonly expiresAt: number;
}

/** An opened token: authentic, unexpired, bound to the caller's binding, and claimed if there is a store. */
export class OpenedToken {
  readonly tokenId: string;
  /** The id of the key that sealed it. */
  readonly keyId: string;
  readonly issuedAt: number;
  readonly expiresAt: number;
  readonly contents: TokenContents;
  readonly #idempotency: DerivedKeys['idempotency'];
  readonly #tokenId: Uint8Array;

  constructor(
    keys: DerivedKeys,
    tokenId: Uint8Array,
    issuedAt: number,
    expiresAt: number,
    contents: TokenContents,
  ) {
    this.tokenId = Buffer.from(tokenId).toString('base64url');
    this.keyId = keys.id;
    this.issuedAt = issuedAt;
    this.expiresAt = expiresAt;
    this.contents = contents;
    this.#idempotency = keys.idempotency;
    this.#tokenId = Uint8Array.from(tokenId);
  }

  /**
   * The idempotency key of the call with this sequence: an HMAC of the token's id and the
   * sequence under a key derived from the key that sealed the token. The same token and call give
   * the same key on every retry, on every server that holds the key, after rotations too; another
   * call or another token gives another. A tool passes it to the service it calls, so a resume
   * retried without a claim store does each call's work once.
   */
  idempotencyKey(sequence: number): string {
    if (!Number.isSafeInteger(sequence) || sequence < 0) throw new RangeError(SEQUENCE_MESSAGE);
    const counter = Buffer.alloc(8);
    counter.writeBigUInt64BE(BigInt(sequence));
    return nodeCrypto()
      .createHmac('sha256', this.#idempotency)
      .update(this.#tokenId)
      .update(counter)
      .digest('base64url');
  }
}

/** Seals and opens the tokens of one executor's configuration. */
export class DurableTokens {
  readonly #ring: DurableKeyRing;
  readonly #ttl: number;
  readonly #maxJournalLength: number;
  readonly #claims: ClaimStore | undefined;
  readonly #now: () => number;

  constructor(options: DurableTokensOptions) {
    if (!(options?.keys instanceof DurableKeyRing)) {
      throw new TypeError('DurableTokens needs { keys } made with new DurableKeyRing(...).');
    }
    const { ttl = DEFAULT_TTL, maxJournalLength = DEFAULT_JOURNAL_LENGTH, claims, now = Date.now } = options;
    if (!Number.isSafeInteger(ttl) || ttl < 1 || ttl > MAX_TTL) throw new RangeError(TTL_MESSAGE);
    if (
      !Number.isSafeInteger(maxJournalLength) ||
      maxJournalLength < 1 ||
      maxJournalLength > MAX_JOURNAL_LENGTH
    ) {
      throw new RangeError(JOURNAL_LENGTH_OPTION_MESSAGE);
    }
    if (claims !== undefined && typeof claims?.claim !== 'function') {
      throw new TypeError(
        'DurableTokens claims must be a claim store: an object with a claim(tokenId, expiresAt) method.',
      );
    }
    this.#ring = options.keys;
    this.#ttl = ttl;
    this.#maxJournalLength = maxJournalLength;
    this.#claims = claims;
    this.#now = now;
  }

  /**
   * Seals the contents under the ring's current key, bound to `binding`. Refuses a journal past
   * maxJournalLength (JOURNAL_TOO_LONG) and contents that would seal past MAX_TOKEN_SIZE
   * (TOKEN_TOO_LARGE), before encrypting anything.
   */
  seal(contents: TokenContents, binding: DurableBinding): SealedToken {
    if (typeof contents !== 'object' || contents === null || !Array.isArray(contents.journal)) {
      throw new TypeError(CONTENTS_MESSAGE);
    }
    if (contents.bytes !== undefined && !(contents.bytes instanceof Uint8Array))
      throw new TypeError(CONTENTS_MESSAGE);
    this.checkJournalLength(contents.journal.length);
    const values = bindingValues(binding);
    const json = jsonOf(contents);
    const bytes = contents.bytes ?? new Uint8Array(0);
    const keys = currentKeys(this.#ring);
    const length = tokenLength(keys.id.length, JSON_LENGTH_BYTES + Buffer.byteLength(json) + bytes.length);
    if (length > MAX_TOKEN_SIZE) throw new DurableTokenError('TOKEN_TOO_LARGE', sealTooLargeMessage(length));
    const plaintext = writePlaintext(json, bytes);

    // Whole milliseconds: the header holds integers, and an injected clock may not.
    const issuedAt = Math.floor(this.#now());
    const expiresAt = issuedAt + this.#ttl;
    // Both random for every token: the id salts the token's own key, the nonce is GCM's.
    const tokenId = nodeCrypto().randomBytes(TOKEN_ID_BYTES);
    const nonce = nodeCrypto().randomBytes(NONCE_BYTES);
    const header = writeHeader(
      { keyId: keys.id, tokenId, nonce, issuedAt, expiresAt, fingerprints: fingerprints(keys, values) },
      plaintext.length,
    );
    const cipher = nodeCrypto().createCipheriv(CIPHER, tokenKey(keys, tokenId), nonce, {
      authTagLength: TAG_BYTES,
    });
    cipher.setAAD(header);
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    const token = writeToken(header, ciphertext, cipher.getAuthTag());
    return { token, tokenId: tokenId.toString('base64url'), issuedAt, expiresAt };
  }

  /**
   * Opens a token presented for a resume under `binding`. Rejects only with DurableTokenError
   * (a binding of the wrong shape is the caller's mistake, a TypeError), whatever the text holds.
   */
  async open(
    text: unknown,
    binding: DurableBinding,
    { claim = true }: { claim?: boolean } = {},
  ): Promise<OpenedToken> {
    const values = bindingValues(binding);
    const parsed = parseToken(text);
    const keys = findKeys(this.#ring, parsed.keyId);
    if (keys === undefined) throw new DurableTokenError('TOKEN_FORGED', FORGED_UNKNOWN_KEY_MESSAGE);
    const decipher = nodeCrypto().createDecipheriv(CIPHER, tokenKey(keys, parsed.tokenId), parsed.nonce, {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(parsed.header);
    decipher.setAuthTag(parsed.tag);
    const opened = decipher.update(parsed.ciphertext);
    let plaintext: Buffer;
    try {
      // final() verifies the tag; until it has, `opened` is unauthenticated and nothing reads it.
      plaintext = Buffer.concat([opened, decipher.final()]);
    } catch (cause) {
      throw new DurableTokenError('TOKEN_FORGED', FORGED_TAG_MESSAGE, { cause });
    }
    if (this.#now() >= parsed.expiresAt) {
      throw new DurableTokenError('TOKEN_EXPIRED', expiredMessage(parsed.expiresAt));
    }
    const mismatch = firstDifference(fingerprints(keys, values), parsed.fingerprints);
    if (mismatch !== undefined) {
      throw new DurableTokenError('TOKEN_MISMATCH', mismatchMessage(mismatch), { mismatch });
    }
    const contents = readPlaintext(plaintext);
    this.checkJournalLength(contents.journal.length);
    const opening = new OpenedToken(keys, parsed.tokenId, parsed.issuedAt, parsed.expiresAt, contents);
    if (claim) await this.claim(opening);
    return opening;
  }

  /**
   * Claims an opened token with the claim store, if there is one (TOKEN_REPLAYED when it was
   * claimed before): for a caller that opened it with `claim: false` to check more first.
   */
  async claim(opening: OpenedToken): Promise<void> {
    if (this.#claims !== undefined) await this.#claim(opening);
  }

  /** Refuses a journal of more entries than maxJournalLength (JOURNAL_TOO_LONG): calls and fetches, counted by the caller. */
  checkJournalLength(length: number): void {
    if (length > this.#maxJournalLength) {
      throw new DurableTokenError('JOURNAL_TOO_LONG', journalTooLongMessage(length, this.#maxJournalLength));
    }
  }

  async #claim(opening: OpenedToken): Promise<void> {
    let claimed: boolean;
    try {
      claimed = await (this.#claims as ClaimStore).claim(opening.tokenId, opening.expiresAt);
    } catch (cause) {
      throw new DurableTokenError('CLAIM_UNAVAILABLE', CLAIM_UNAVAILABLE_MESSAGE, { cause });
    }
    if (claimed !== true) throw new DurableTokenError('TOKEN_REPLAYED', REPLAYED_MESSAGE);
  }
}

function jsonOf(contents: TokenContents): string {
  try {
    return JSON.stringify({ journal: contents.journal, state: contents.state });
  } catch (cause) {
    throw new TypeError(CONTENTS_JSON_MESSAGE, { cause });
  }
}

/** The plaintext: the JSON's length (4 bytes, big-endian), the JSON of journal and state, then the bytes. */
function writePlaintext(json: string, bytes: Uint8Array): Buffer {
  const jsonLength = Buffer.byteLength(json);
  const plaintext = Buffer.allocUnsafe(JSON_LENGTH_BYTES + jsonLength + bytes.length);
  plaintext.writeUInt32BE(jsonLength, 0);
  plaintext.write(json, JSON_LENGTH_BYTES, 'utf8');
  plaintext.set(bytes, JSON_LENGTH_BYTES + jsonLength);
  return plaintext;
}

/**
 * The contents of an authentic plaintext. It was written by writePlaintext under a key of the
 * ring, so a plaintext that does not read back is a defect or another writer's; it is refused as
 * malformed all the same, never thrown as anything else.
 */
function readPlaintext(plaintext: Buffer): TokenContents {
  const malformed = () => new DurableTokenError('TOKEN_MALFORMED', malformedMessage(MALFORMED.plaintext));
  if (plaintext.length < JSON_LENGTH_BYTES) throw malformed();
  const jsonLength = plaintext.readUInt32BE(0);
  if (jsonLength > plaintext.length - JSON_LENGTH_BYTES) throw malformed();
  let parsed: unknown;
  try {
    parsed = JSON.parse(plaintext.toString('utf8', JSON_LENGTH_BYTES, JSON_LENGTH_BYTES + jsonLength));
  } catch {
    throw malformed();
  }
  if (typeof parsed !== 'object' || parsed === null) throw malformed();
  const { journal, state } = parsed as { journal?: unknown; state?: unknown };
  if (!Array.isArray(journal)) throw malformed();
  const rest = plaintext.subarray(JSON_LENGTH_BYTES + jsonLength);
  return {
    journal,
    ...(state === undefined ? {} : { state }),
    // A copy: a view would keep the whole plaintext alive as long as the bytes.
    ...(rest.length === 0 ? {} : { bytes: new Uint8Array(rest) }),
  };
}
