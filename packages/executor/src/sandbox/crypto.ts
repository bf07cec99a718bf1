/**
 * The host's half of crypto.subtle: the crypto bridge (docs/sandbox.md, "Crypto bridge").
 * One bridge belongs to one isolate; keys never enter the isolate.
 */
import ivm from 'isolated-vm';
import type { IsolateHandle } from './isolate.ts';

/** The reference the runtime's crypto.subtle calls, for one isolate. */
export function subtleReference(_handle: IsolateHandle): ivm.Reference<unknown> {
  return new ivm.Reference(async () => [
    'thrown',
    'NotSupportedError',
    'crypto.subtle is not available yet.',
  ]);
}
