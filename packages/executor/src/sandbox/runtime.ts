/**
 * The runtime snapshot, and the handshake that hands each restored isolate the privileges it
 * cannot hold on its own. readRuntimeSnapshot serializes the heap the runtime bundle builds once
 * per process (or a pool child adopts the one its parent handed on); every isolate starts from that
 * copy and no isolate parses the bundle again.
 */
import { RUNTIME_SOURCE } from '@supolka/codemode-runtime/bundle';
import ivm from 'isolated-vm';
import type { SeededRandom } from '../durable/random.ts';
import { nodeCrypto } from './node-crypto.ts';
import { SANDBOX_SOURCE, WARMUP_SOURCE } from './setup/sandbox-source.ts';

export { RUNTIME_SOURCE };

let snapshot: ivm.ExternalCopy<ArrayBuffer> | undefined;

/**
 * The startup snapshot, made once per process: the runtime bundle, then the sandbox's own code,
 * warmed up so their functions arrive compiled. isolated-vm runs the scripts it snapshots outside
 * its usual protections, which is why the only scripts ever handed to it are this package's own.
 */
export function readRuntimeSnapshot(): ivm.ExternalCopy<ArrayBuffer> {
  snapshot ??= ivm.Isolate.createSnapshot(
    [
      { code: RUNTIME_SOURCE, filename: 'codemode-runtime.js' },
      { code: SANDBOX_SOURCE, filename: 'codemode-sandbox.js' },
    ],
    WARMUP_SOURCE,
  );
  return snapshot;
}

/**
 * Makes `copy` the snapshot of this process, made elsewhere from the same scripts and checked
 * (setup/handed-snapshot.ts), before one was made here. False once this process has one: every
 * isolate of a process starts from the same snapshot.
 */
export function adoptRuntimeSnapshot(copy: ivm.ExternalCopy<ArrayBuffer>): boolean {
  if (snapshot !== undefined) return false;
  snapshot = copy;
  return true;
}

/** The host references of the handshake, by the name the runtime knows each under. */
export interface RuntimeReferences {
  readonly randomUUID: ivm.Reference<() => string>;
  readonly randomBytes: ivm.Reference<(length: number) => Uint8Array>;
  readonly sendRequest?: ivm.Reference<unknown>;
  readonly performSubtleOperation?: ivm.Reference<unknown>;
  /** Answers the source of a runtime piece, which the isolate compiles on its first use (setup/pieces.ts). */
  readonly loadPiece?: ivm.Reference<unknown>;
}

/**
 * The randomness references every isolate gets: crypto.randomUUID and crypto.getRandomValues,
 * from the host's random source, or from a durable run's seeded one while `seeded` answers it.
 */
export function randomReferences(
  seeded: () => SeededRandom | undefined = () => undefined,
): Pick<RuntimeReferences, 'randomUUID' | 'randomBytes'> {
  return {
    randomUUID: new ivm.Reference(() => seeded()?.uuid() ?? nodeCrypto().randomUUID()),
    // The runtime checks the length first; the host clamps it anyway, since it is guest input.
    randomBytes: new ivm.Reference((length: number) => {
      const clamped = Math.max(0, Math.min(Number(length) || 0, 65536));
      return seeded()?.bytes(clamped) ?? new Uint8Array(nodeCrypto().randomBytes(clamped));
    }),
  };
}
