/**
 * The runtime snapshot, and the handshake that hands each restored isolate the privileges it
 * cannot hold on its own. readRuntimeSnapshot serializes the heap the runtime bundle builds once
 * per process; every isolate starts from that copy and no isolate parses the bundle again.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { MISSING_SNAPSHOT_MESSAGE } from '@supolka/codemode-protocol';
import ivm from 'isolated-vm';
import { RUNTIME_SOURCE } from './generated/runtime-bundle.generated.ts';
import type { IsolateHandle } from './isolate.ts';

export { RUNTIME_SOURCE };

let snapshot: ivm.ExternalCopy<ArrayBuffer> | undefined;

/**
 * The startup snapshot of the runtime bundle, made once per process. isolated-vm runs the script it
 * snapshots outside its usual protections, which is why the only script ever handed to it is this
 * package's own generated bundle.
 */
export function readRuntimeSnapshot(): ivm.ExternalCopy<ArrayBuffer> {
  snapshot ??= ivm.Isolate.createSnapshot([{ code: RUNTIME_SOURCE, filename: 'codemode-runtime.js' }]);
  return snapshot;
}

/** The host references of the handshake, by the global name each is published under. */
export interface RuntimeReferences {
  readonly __randomUUID: ivm.Reference<() => string>;
  readonly __randomBytes: ivm.Reference<(length: number) => Uint8Array>;
  readonly __sendRequest?: ivm.Reference<unknown>;
  readonly __performSubtleOperation?: ivm.Reference<unknown>;
}

/** The randomness references every isolate gets: crypto.randomUUID and crypto.getRandomValues. */
export function randomReferences(): Pick<RuntimeReferences, '__randomUUID' | '__randomBytes'> {
  return {
    __randomUUID: new ivm.Reference(() => randomUUID()),
    // The runtime checks the length first; the host clamps it anyway, since it is guest input.
    __randomBytes: new ivm.Reference(
      (length: number) => new Uint8Array(randomBytes(Math.max(0, Math.min(Number(length) || 0, 65536)))),
    ),
  };
}

/**
 * Reads each reference, deletes its name, and passes them to the __hostBindings handshake the
 * snapshot published. Without the handshake the isolate was not restored from the snapshot, and
 * the script says so instead of failing on a global it cannot explain.
 */
export const BINDINGS_SOURCE = `(() => {
  if (typeof globalThis.__hostBindings !== 'function') throw new Error(${JSON.stringify(MISSING_SNAPSHOT_MESSAGE)});
  const take = (name) => {
    const value = globalThis[name];
    delete globalThis[name];
    return value;
  };
  globalThis.__hostBindings({
    randomUUID: take('__randomUUID'),
    randomBytes: take('__randomBytes'),
    sendRequest: take('__sendRequest'),
    performSubtleOperation: take('__performSubtleOperation'),
  });
})();`;

export function installRuntime(handle: IsolateHandle, references: RuntimeReferences): void {
  for (const [name, reference] of Object.entries(references)) {
    if (reference !== undefined) handle.jail.setSync(name, reference);
  }
  handle.context.evalSync(BINDINGS_SOURCE, { filename: 'codemode-bindings.js' });
}
