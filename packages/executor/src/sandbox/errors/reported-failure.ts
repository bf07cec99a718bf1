/**
 * The failure the run support reports beside a failed envelope: the kind it observed, and the
 * error's name and stack as data. The run support signals it through a host reference the prepared
 * isolate holds (setup/prepared-isolate.ts), and the timeouts read it into the outcome (timeout.ts). It
 * lives apart from both so that the timeouts need nothing of how an isolate is prepared: through
 * this one type, timeout.ts and setup/prepared-isolate.ts imported each other by way of the snapshot.
 */
import { ERROR_NAME_LIMIT, type ErrorKind, isErrorKind } from '@supolka/codemode-protocol/wire';
import { STACK_READ_LIMIT } from './stack.ts';

/** A failure as the run support reports it beside the envelope: the observed kind, and the error's name and stack as data. */
export interface ReportedFailure {
  readonly kind: ErrorKind;
  readonly name: string | undefined;
  readonly stack: string | undefined;
}

/** The failure as the signal reference received it: strings from the isolate, checked and bounded. */
export function readFailure(kind: unknown, name: unknown, stack: unknown): ReportedFailure {
  return {
    kind: isErrorKind(kind) ? kind : 'thrown',
    name: typeof name === 'string' ? name.slice(0, ERROR_NAME_LIMIT) : undefined,
    stack: typeof stack === 'string' ? stack.slice(0, STACK_READ_LIMIT) : undefined,
  };
}
