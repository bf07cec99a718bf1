/**
 * A runtime snapshot made by another process, and the checks its bytes pass before V8 sees them.
 * The pool's first child makes the snapshot (runtime.ts) and the parent hands it to the children
 * that replace it, so they skip making their own (docs/pool.md, "Handing the start on").
 *
 * V8 does not refuse a snapshot it cannot use: restoring one made by another V8 build, under other
 * flags, or with a byte changed ends the whole process in a fatal error, which no `try` catches, and
 * its deserializer is not built to meet hostile bytes. So a handed snapshot is adopted only when its
 * key names exactly what made this process's own (the scripts snapshotted, Node and V8, the
 * isolated-vm install, the flags) and its bytes hash to the digest its maker sent; anything else is
 * refused with a sentence saying why, and the process makes its own as it always did.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import ivm from 'isolated-vm';
import { adoptRuntimeSnapshot, RUNTIME_SOURCE, readRuntimeSnapshot } from '../runtime.ts';
import { installedIsolatedVm } from './engine-addon.ts';
import { SANDBOX_SOURCE, WARMUP_SOURCE } from './sandbox-source.ts';
import { SNAPSHOT_BYTES_LIMIT } from './snapshot-limit.ts';

/** A snapshot as it travels: what made it, the SHA-256 of its bytes (both hex), the bytes. */
export interface HandedSnapshot {
  readonly key: string;
  readonly digest: string;
  readonly bytes: Uint8Array;
}

export const FOREIGN_SNAPSHOT_MESSAGE =
  'the snapshot was made by another build (its key names other scripts, another Node or V8, another isolated-vm or other flags)';

export function snapshotTooLargeMessage(bytes: number): string {
  return `the snapshot holds ${bytes} bytes, past the limit of ${SNAPSHOT_BYTES_LIMIT}`;
}

export const SNAPSHOT_DIGEST_MESSAGE = "the snapshot's bytes do not hash to the digest its maker sent";

export const SNAPSHOT_ALREADY_MADE_MESSAGE = 'this process made its own snapshot already';

let key: string | undefined;

/**
 * What a snapshot of this process depends on, hashed: the three scripts it is made from, Node, V8
 * and the platform, the isolated-vm release and where it is installed, and every way V8 is given
 * flags (the command line's and NODE_OPTIONS). Two processes with the same key make the same snapshot.
 */
export function runtimeSnapshotKey(): string {
  if (key !== undefined) return key;
  const scripts = createHash('sha256');
  for (const script of [RUNTIME_SOURCE, SANDBOX_SOURCE, WARMUP_SOURCE]) scripts.update(script).update('\0');
  const parts = [
    scripts.digest('hex'),
    process.version,
    process.versions.v8,
    process.platform,
    process.arch,
    installedIsolatedVm() ?? 'unknown',
    isolatedVmFolder(),
    process.execArgv,
    process.env.NODE_OPTIONS ?? '',
  ];
  key = createHash('sha256').update(JSON.stringify(parts)).digest('hex');
  return key;
}

function isolatedVmFolder(): string {
  try {
    return dirname(createRequire(import.meta.url).resolve('isolated-vm/package.json'));
  } catch {
    return 'unknown';
  }
}

export function snapshotDigest(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * The digest of this process's snapshot once known: hashed once, or taken from the start it adopted
 * after its bytes were checked against it. A process has one snapshot for its life.
 */
let ownDigest: string | undefined;

/** This process's own snapshot (made now if it was not), ready to hand on or keep on disk. */
export function ownSnapshot(): HandedSnapshot {
  const bytes = new Uint8Array(readRuntimeSnapshot().copy());
  ownDigest ??= snapshotDigest(bytes);
  return { key: runtimeSnapshotKey(), digest: ownDigest, bytes };
}

/** Why this process must not restore from `handed`, or undefined when it may. */
export function snapshotRefusal(handed: HandedSnapshot): string | undefined {
  if (handed.key !== runtimeSnapshotKey()) return FOREIGN_SNAPSHOT_MESSAGE;
  if (handed.bytes.byteLength > SNAPSHOT_BYTES_LIMIT) return snapshotTooLargeMessage(handed.bytes.byteLength);
  if (snapshotDigest(handed.bytes) !== handed.digest) return SNAPSHOT_DIGEST_MESSAGE;
  return undefined;
}

/**
 * Makes `handed` this process's runtime snapshot once it passed every check, so no isolate of this
 * process waits for one to be made; answers why not otherwise, and nothing of it reached V8. The
 * bytes checked are moved, not copied (`handed.bytes` is left empty): no second megabyte waits for
 * a collection a child at rest may not run for long.
 */
export function adoptHandedSnapshot(handed: HandedSnapshot): string | undefined {
  const refusal = snapshotRefusal(handed);
  if (refusal !== undefined) return refusal;
  const view = handed.bytes;
  const whole = view.byteOffset === 0 && view.byteLength === view.buffer.byteLength ? view : view.slice();
  const copy = new ivm.ExternalCopy(whole.buffer as ArrayBuffer, { transferOut: true });
  if (adoptRuntimeSnapshot(copy)) {
    ownDigest = handed.digest;
    return undefined;
  }
  copy.release();
  return SNAPSHOT_ALREADY_MADE_MESSAGE;
}
