/**
 * BINDINGS_SOURCE (setup/runtime-bindings.ts): passes the references it is called with into the
 * __hostBindings handshake the snapshot published. Without the handshake the isolate was not
 * restored from the snapshot, and the script says so instead of failing on a global it cannot
 * explain.
 */
import type { SandboxGlobal } from './host.ts';

export interface BindingsValues {
  /** MISSING_SNAPSHOT_MESSAGE. */
  readonly missingSnapshot: string;
}

export default function connectRuntime(values: BindingsValues, references: unknown): void {
  const global = globalThis as SandboxGlobal;
  if (typeof global.__hostBindings !== 'function') throw new Error(values.missingSnapshot);
  global.__hostBindings(references);
}
