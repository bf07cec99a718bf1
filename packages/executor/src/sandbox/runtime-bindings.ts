/**
 * The runtime's half of the handshake, called with the host references while an isolate is
 * prepared (sandbox-source.ts): it hands them to the __hostBindings function the runtime bundle
 * published in the snapshot, which keeps them in closures user code cannot reach.
 */
import { MISSING_SNAPSHOT_MESSAGE } from '@supolka/codemode-protocol';

/**
 * Passes the references it is called with into the __hostBindings handshake the snapshot
 * published. Without the handshake the isolate was not restored from the snapshot, and the script
 * says so instead of failing on a global it cannot explain.
 */
export const BINDINGS_SOURCE = `((references) => {
  if (typeof globalThis.__hostBindings !== 'function') throw new Error(${JSON.stringify(MISSING_SNAPSHOT_MESSAGE)});
  globalThis.__hostBindings(references);
})`;
