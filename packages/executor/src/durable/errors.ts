/**
 * The two errors of durable tokens. DurableTokenError refuses a token, or a journal that cannot be
 * sealed, with a code from a closed set, so a caller (and later the wire) branches on the code and
 * never on the sentence. DurableKeyError refuses a key ring at construction, where the mistake was
 * written.
 */
import { BadRequestError, DURABLE_TOKEN_CODES, type DurableTokenCode } from '@supolka/codemode-protocol/wire';
import type { BindingField } from './texts.ts';

// The codes are the protocol's, since a durable envelope carries them over the wire too.
export { DURABLE_TOKEN_CODES, type DurableTokenCode };

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
