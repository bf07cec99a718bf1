/**
 * The two errors of durable tokens. DurableTokenError refuses a token, or a journal that cannot be
 * sealed, with a code from a closed set, so a caller (and later the wire) branches on the code and
 * never on the sentence. DurableKeyError refuses a key ring at construction, where the mistake was
 * written.
 */
import { BadRequestError } from '@supolka/codemode-protocol/wire';
import type { BindingField } from './texts.ts';

export const DURABLE_TOKEN_CODES = [
  /** The text is not a token of this format: wrong prefix, alphabet, version or field bounds. */
  'TOKEN_MALFORMED',
  /** The token names no key this executor holds, or its authentication tag does not verify. */
  'TOKEN_FORGED',
  /** The token is authentic and past its expiry. */
  'TOKEN_EXPIRED',
  /** The token is authentic and bound to another request, runtime, engine version or principal. */
  'TOKEN_MISMATCH',
  /** A claim store says the token has already resumed its run. */
  'TOKEN_REPLAYED',
  /** The token's text is past MAX_TOKEN_SIZE, or a journal would seal into one that is. */
  'TOKEN_TOO_LARGE',
  /** The journal holds more entries than the executor's maxJournalLength. */
  'JOURNAL_TOO_LONG',
  /** The claim store failed (full, or unreachable), so whether the token was used is not known. */
  'CLAIM_UNAVAILABLE',
] as const;
export type DurableTokenCode = (typeof DURABLE_TOKEN_CODES)[number];

export class DurableTokenError extends Error {
  override name = 'DurableTokenError';
  readonly code: DurableTokenCode;
  /** On TOKEN_MISMATCH: which binding differs. */
  readonly mismatch: BindingField | undefined;
  constructor(code: DurableTokenCode, message: string, options?: ErrorOptions & { mismatch?: BindingField }) {
    super(message, options);
    this.code = code;
    this.mismatch = options?.mismatch;
  }
}

/** A key ring refused at construction; the message names the key and the rule. */
export class DurableKeyError extends BadRequestError {
  override name = 'DurableKeyError';
}
