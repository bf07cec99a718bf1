/**
 * The bounds of a durable token, named once: the key size, the token's size, the journal's length
 * and the token's life. docs/durable.md, "Limits", says why each has the value it has.
 */
import { DURABLE_TOKEN_LIMIT } from '@supolka/codemode-protocol/wire';

/** Bytes a key must have at least: 256 bits, the key size of AES-256. */
export const MIN_KEY_BYTES = 32;

/**
 * Characters a token's text may hold. A resume sends the token and the request in one message,
 * and one message is at most PAYLOAD_LIMIT; half of it for the token leaves the request the other
 * half. Checked on the text's length before anything else reads it. The protocol's bound on a
 * token in a message, so the wire carries every token this executor seals and no larger one.
 */
export const MAX_TOKEN_SIZE = DURABLE_TOKEN_LIMIT;

/** Entries a journal may hold unless the executor is configured otherwise. */
export const DEFAULT_JOURNAL_LENGTH = 256;

/** The most entries any configuration may allow. */
export const MAX_JOURNAL_LENGTH = 10_000;

/** How long a token can be resumed after it was sealed, in ms, unless configured otherwise: 1 hour. */
export const DEFAULT_TTL = 60 * 60 * 1000;

/**
 * The longest life a configuration may give a token, in ms: 7 days. A token can be replayed until
 * it expires wherever no shared claim store is used, so its life is its replay window.
 */
export const MAX_TTL = 7 * 24 * 60 * 60 * 1000;
