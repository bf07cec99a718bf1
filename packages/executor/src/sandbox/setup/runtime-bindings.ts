/**
 * The runtime's half of the handshake, called with the host references while an isolate is
 * prepared (sandbox-source.ts): it hands them to the __hostBindings function the runtime bundle
 * published in the snapshot, which keeps them in closures user code cannot reach.
 */
import { MISSING_SNAPSHOT_MESSAGE } from '@supolka/codemode-protocol/wire';
import { BINDINGS_INSTALL_SOURCE } from '../generated/sandbox-sources.generated.ts';
import type { BindingsValues } from '../inside/bindings.ts';
import { bindValues } from './bound-source.ts';

/**
 * Passes the references it is called with into the __hostBindings handshake the snapshot
 * published. Without the handshake the isolate was not restored from the snapshot, and the script
 * says so instead of failing on a global it cannot explain. The code is inside/bindings.ts.
 */
export const BINDINGS_SOURCE = bindValues(
  BINDINGS_INSTALL_SOURCE,
  { missingSnapshot: MISSING_SNAPSHOT_MESSAGE } satisfies BindingsValues,
  ['references'],
);
