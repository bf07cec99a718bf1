/**
 * The executor's envelope carries `errorKind` (docs/protocol.md, "The result envelope"); workerd has
 * no such field, so the diff never compares it. What the suite checks instead is that the executor
 * keeps it consistent on every case both runtimes run: a kind from the closed set beside every
 * error user code met, and none beside a success or a `code`. A broken rule is the executor's
 * fault, not a difference between runtimes, so the case fails as a harness error naming it.
 */
import { type ExecuteResult, isErrorKind } from '@supolka/codemode-protocol';
import { HarnessError } from '../record.ts';

export function errorKindInconsistency(envelope: ExecuteResult): string | undefined {
  const expected = envelope.error !== undefined && envelope.code === undefined;
  if (expected && !isErrorKind(envelope.errorKind)) {
    return `the executor's envelope has the error ${JSON.stringify(envelope.error)} and no code, but its errorKind is ${JSON.stringify(envelope.errorKind)}, not one of the documented kinds`;
  }
  if (!expected && envelope.errorKind !== undefined) {
    return `the executor's envelope carries errorKind ${JSON.stringify(envelope.errorKind)} ${envelope.code !== undefined ? `beside the code ${envelope.code}` : 'on a success'}`;
  }
  return undefined;
}

export function assertErrorKindConsistent(envelope: ExecuteResult): void {
  const inconsistency = errorKindInconsistency(envelope);
  if (inconsistency !== undefined) throw new HarnessError(inconsistency);
}
