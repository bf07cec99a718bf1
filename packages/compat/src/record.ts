/**
 * What one side of a case produced: the envelope `{ result, error?, code?, logs }` with the codec
 * rules applied, plus, for a case that asks to retain a handler, whether it was retained and what
 * each invocation answered. Both sides produce exactly this shape; src/compare diffs two of them.
 */
import type { LogLine } from '@supolka/codemode-protocol';

export interface InvocationRecord {
  readonly status?: number;
  readonly statusText?: string;
  readonly headers?: readonly (readonly [string, string])[];
  /** The response body as UTF-8 text. */
  readonly body?: string;
  /** What the invocation failed with instead of a response. */
  readonly error?: string;
}

export interface RunRecord {
  /** The decoded result; absent when the program resolved to undefined (the codec drops the key). */
  readonly result?: unknown;
  readonly error?: string;
  readonly code?: string;
  readonly logs: readonly LogLine[];
  /** Only for cases with invocations: whether the run granted a retained handler. */
  readonly retained?: boolean;
  readonly responses?: readonly InvocationRecord[];
}

/** The suite itself failed on one side (not the program): the case cannot be judged. */
export class HarnessError extends Error {
  override name = 'HarnessError';
}
