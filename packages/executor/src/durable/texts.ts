/**
 * Every sentence a durable token's refusal can say, defined once and asserted verbatim by the
 * tests. Each says what was wrong and what the caller can do about it. None repeats what the token
 * or the binding held (a principal, a key, a journal entry): a refusal may be logged or shown to
 * someone the token was never meant for.
 */
import { MAX_JOURNAL_LENGTH, MAX_TOKEN_SIZE, MAX_TTL, MIN_KEY_BYTES } from './limits.ts';

// The key ring's rules, refused when the ring is made.

export const KEY_RING_SHAPE_MESSAGE =
  'A durable key ring takes { keys: [{ id, key }, ...], current? } with at least one key.';

export function keyIdMessage(index: number): string {
  return `A durable key ring's keys[${index}].id must be 1 to 64 characters of A-Z, a-z, 0-9, '.', '_' or '-': the id is written into every token in the clear.`;
}

export function keyBytesMessage(index: number): string {
  return `A durable key ring's keys[${index}].key must be bytes (a Uint8Array, for example Buffer.from(secret, 'base64')): a text passphrase is not a key.`;
}

export function keyLengthMessage(index: number, length: number): string {
  return `A durable key ring's keys[${index}].key has ${length} bytes; a key needs at least ${MIN_KEY_BYTES} (256 bits, MIN_KEY_BYTES): make one with crypto.randomBytes(${MIN_KEY_BYTES}).`;
}

export function duplicateKeyIdMessage(index: number): string {
  return `A durable key ring's keys[${index}].id is listed twice: each key needs an id of its own, so a token names exactly one key.`;
}

export const CURRENT_KEY_REQUIRED_MESSAGE =
  'A durable key ring with more than one key must name its current key (current: id): the key that seals new tokens is chosen on purpose, never by list order.';

export const CURRENT_KEY_UNKNOWN_MESSAGE =
  "A durable key ring's current key must be the id of one of its keys.";

// The token service's options, refused when it is made.

export const TTL_MESSAGE = `A durable token's ttl must be a whole number of milliseconds from 1 to ${MAX_TTL} (7 days, MAX_TTL).`;

export const JOURNAL_LENGTH_OPTION_MESSAGE = `A durable token's maxJournalLength must be a whole number from 1 to ${MAX_JOURNAL_LENGTH} (MAX_JOURNAL_LENGTH).`;

export const CONTENTS_MESSAGE =
  'A durable token seals { journal: [...], state?, bytes? }: journal an array, bytes a Uint8Array if given.';

export const CONTENTS_JSON_MESSAGE =
  "A durable token's journal and state must be JSON-serializable (no BigInt, no cycles).";

export const SEQUENCE_MESSAGE = 'An idempotency key needs a call sequence that is a whole number from 0.';

// Refusals of a token, by code.

/** How a refusal of a malformed token ends: the caller has one thing to do. */
const PASS_AS_RETURNED = 'pass the token text exactly as the executor returned it';

export function malformedMessage(reason: string): string {
  return `This durable token cannot be read: ${reason}; ${PASS_AS_RETURNED}.`;
}

/** The reasons malformedMessage gives, one per check of the format (format.ts). */
export const MALFORMED = {
  notText: 'it is not a string',
  prefix: 'it does not start with the token prefix',
  alphabet: 'it holds characters outside base64url',
  padding: 'its base64url ends in a way no encoder writes',
  short: 'it is shorter than its header',
  version: 'it is of a format version this executor does not read',
  keyId: "its key id's length or characters break the format's rules",
  length: 'its declared ciphertext length differs from what it carries',
  times: 'its expiry does not follow its issue time within the longest life a token may have',
  plaintext: 'its sealed contents are not a journal this executor wrote',
} as const;

export const FORGED_UNKNOWN_KEY_MESSAGE =
  'This durable token names a key this executor does not hold (never held, or retired since): resume it on a server whose key ring still lists that key, or start the run again.';

export const FORGED_TAG_MESSAGE =
  'This durable token failed authentication: it was altered or sealed with another key under the same id; pass the token exactly as the executor returned it, or start the run again.';

export function expiredMessage(expiresAt: number): string {
  return `This durable token expired at ${new Date(expiresAt).toISOString()}: a paused run can be resumed only until its token expires; start the run again.`;
}

/** What a token is bound to, each named in the refusal when it differs. */
export type BindingField = 'request' | 'runtime' | 'executor' | 'v8' | 'isolated-vm' | 'principal';

const MISMATCH_REASONS: Readonly<Record<BindingField, string>> = {
  request:
    'it was sealed for another request: resume with exactly the code, modules, providers and tools, prelude, proxy source, arguments, outbound mode and bounds of the run that paused',
  runtime:
    'it was sealed by an executor with another runtime bundle: resume it on a server running the release that paused it, or start the run again',
  executor:
    'it was sealed by another version of the executor: resume it on a server running the version that paused it, or start the run again',
  v8: 'it was sealed under another V8 version: resume it on a server running the Node.js that paused it, or start the run again',
  'isolated-vm':
    'it was sealed under another isolated-vm version: resume it on a server running the isolated-vm that paused it, or start the run again',
  principal:
    'it was sealed for another principal: only the caller a run paused for can resume it; start the run again as this caller',
};

export function mismatchMessage(field: BindingField): string {
  return `This durable token does not match this resume: ${MISMATCH_REASONS[field]}.`;
}

export function journalTooLongMessage(length: number, limit: number): string {
  return `The journal holds ${length} entries, past this executor's limit of ${limit} (maxJournalLength, at most ${MAX_JOURNAL_LENGTH}): pause the run after fewer calls, or give every executor that seals and resumes it a higher limit.`;
}

export function tokenTooLargeMessage(length: number): string {
  return `This durable token is ${length} characters long, past the limit of ${MAX_TOKEN_SIZE} (MAX_TOKEN_SIZE): the executor seals no larger token, so this one was not issued by it; ${PASS_AS_RETURNED}.`;
}

export function sealTooLargeMessage(length: number): string {
  return `The paused run's journal would seal into a token of ${length} characters, past the limit of ${MAX_TOKEN_SIZE} (MAX_TOKEN_SIZE): pause the run before its tools and fetch requests return this much, or have them return less.`;
}

export function journalTooLargeMessage(): string {
  return `The paused run's calls, fetch requests and delays, with their arguments and answers, came to more than the ${MAX_TOKEN_SIZE} characters a token can hold (MAX_TOKEN_SIZE), so its journal was not kept: pause the run before it exchanges this much, or have its tools take and return less.`;
}

export function journalPastMostMessage(length: number): string {
  return `The paused run made ${length} calls and fetch requests, past the ${MAX_JOURNAL_LENGTH} any journal may hold (MAX_JOURNAL_LENGTH), so its journal was not kept: pause the run after fewer calls.`;
}

export function fetchBodiesTooLargeMessage(limit: number): string {
  return `The paused run's fetch requests read more than ${limit} bytes of response bodies, which no token can hold (MAX_TOKEN_SIZE): pause the run before it fetches this much, or fetch less in a durable run.`;
}

export const REPLAYED_MESSAGE =
  'This durable token has already been used to resume its run, and a token resumes once: use the token that resume returned, or start the run again.';

export const CLAIM_UNAVAILABLE_MESSAGE =
  'The claim store could not record this durable token as used, so the run was not resumed: try the resume again later.';

/** A paused run's journal that does not read back as one: a pool child that is not running the sandbox handed it back. */
export const PAUSED_JOURNAL_MESSAGE =
  'The paused run handed back a journal of another shape, which is never sealed.';

/** A durable run or a resume asked for from inside a durable run's tool call (docs/durable.md, "Nested executions"). */
export const NESTED_DURABLE_MESSAGE =
  "A durable run cannot start inside a durable run's tool call: run the nested execution without durable.";
export const NESTED_RESUME_MESSAGE = "A durable run cannot be resumed inside a durable run's tool call.";

export const DURABLE_RETAINS_MESSAGE =
  'A durable run cannot retain handles: a paused run holds no isolate for them to live in.';

/** A durable request to an executor built without a key ring. */
export const NO_KEY_RING_MESSAGE =
  'A durable run needs a key ring: construct the executor with { durable: { keys } }.';
