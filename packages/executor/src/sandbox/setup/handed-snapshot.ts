/**
 * A runtime snapshot made by another process, and the checks its bytes pass before V8 sees them.
 * The pool's first child makes the snapshot (runtime.ts) and the parent hands it to the children
 * that replace it, so they skip making their own (docs/pool.md, "Handing the start on").
 *
 * V8 does not refuse a snapshot it cannot use: restoring one made by another V8 build, under other
 * flags, or with a byte changed ends the whole process in a fatal error, which no `try` catches, and
 * its deserializer is not built to meet hostile bytes. So a handed snapshot is adopted only when its
 * key names exactly what made this process's own (the scripts snapshotted, Node and V8, the
 * isolated-vm install, the flags) and its bytes match the CRC-32 that came with them
 * (start-check.ts); anything else is refused with a sentence saying why, and the process makes its
 * own as it always did. The SHA-256 digest travels beside them: it is what a maker commits to and
 * what the parent checks (pool/handed-start.ts); a child that only adopts never hashes.
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import ivm from 'isolated-vm';
import { nodeCrypto } from '../node-crypto.ts';
import { adoptRuntimeSnapshot, RUNTIME_SOURCE, readRuntimeSnapshot } from '../runtime.ts';
import { installedIsolatedVm } from './engine-addon.ts';
import { SANDBOX_SOURCE, WARMUP_SOURCE } from './sandbox-source.ts';
import { SNAPSHOT_BYTES_LIMIT, START_KEY_LIMIT } from './snapshot-limit.ts';
import { snapshotDigest, startCheck } from './start-check.ts';

/**
 * A snapshot as it travels: what made it (its key), the SHA-256 of its bytes in hex (what its maker
 * committed to), their CRC-32 (what a child checks before V8 sees them), and the bytes.
 */
export interface HandedSnapshot {
  readonly key: string;
  readonly digest: string;
  readonly check: number;
  readonly bytes: Uint8Array;
}

export const FOREIGN_SNAPSHOT_MESSAGE =
  'the snapshot was made by another build (its key names other scripts, another Node or V8, another isolated-vm or other flags)';

export function snapshotTooLargeMessage(bytes: number): string {
  return `the snapshot holds ${bytes} bytes, past the limit of ${SNAPSHOT_BYTES_LIMIT}`;
}

export const SNAPSHOT_CHECK_MESSAGE = "the snapshot's bytes do not match the CRC-32 that came with them";

export const SNAPSHOT_ALREADY_MADE_MESSAGE = 'this process made its own snapshot already';

let key: string | null | undefined;

/**
 * The SHA-256 of the three scripts a snapshot is made from, each closed by a NUL, in hex. The
 * child's bundle is built with it written in (scripts/bundle-child.mjs, from the same strings the
 * bundle carries), so a child hashes none of their 700 KB and loads no node:crypto for them; a
 * process run from the sources hashes them itself.
 */
declare const RUNTIME_SCRIPTS_DIGEST: string | undefined;

export function runtimeScriptsDigest(): string {
  if (typeof RUNTIME_SCRIPTS_DIGEST === 'string') return RUNTIME_SCRIPTS_DIGEST;
  const hash = nodeCrypto().createHash('sha256');
  for (const script of [RUNTIME_SOURCE, SANDBOX_SOURCE, WARMUP_SOURCE]) hash.update(script).update('\0');
  return hash.digest('hex');
}

/**
 * What a snapshot of this process depends on, as a line of JSON: the three scripts it is made from
 * (runtimeScriptsDigest), Node, V8 and the platform, the isolated-vm release and where it is
 * installed, and every way V8 is given flags (the command line's and NODE_OPTIONS), word for word.
 * Two processes with the same key make the same snapshot. Undefined past START_KEY_LIMIT. Only
 * the scripts are hashed: the versions and flags V8 would abort over are compared whole.
 */
export function runtimeSnapshotKey(): string | undefined {
  if (key !== undefined) return key ?? undefined;
  const text = JSON.stringify([
    'runtime snapshot',
    runtimeScriptsDigest(),
    process.version,
    process.versions.v8,
    process.platform,
    process.arch,
    installedIsolatedVm() ?? 'unknown',
    isolatedVmFolder(),
    process.execArgv,
    process.env.NODE_OPTIONS ?? '',
  ]);
  key = text.length <= START_KEY_LIMIT ? text : null;
  return key ?? undefined;
}

function isolatedVmFolder(): string {
  try {
    return dirname(createRequire(import.meta.url).resolve('isolated-vm/package.json'));
  } catch {
    return 'unknown';
  }
}

/**
 * The digest and the CRC-32 of this process's snapshot once known: each computed when first needed
 * (a child that only hands its start on needs no CRC-32, one that only keeps it on disk needs both),
 * or taken from the start it adopted. A process has one snapshot for its life.
 */
let ownDigest: string | undefined;
let ownCheck: number | undefined;

/**
 * This process's own snapshot (made now if it was not), ready to keep on disk; undefined when its
 * key is past START_KEY_LIMIT.
 */
export function ownSnapshot(): HandedSnapshot | undefined {
  const own = runtimeSnapshotKey();
  if (own === undefined) return undefined;
  const bytes = new Uint8Array(readRuntimeSnapshot().copy());
  ownDigest ??= snapshotDigest(bytes);
  ownCheck ??= startCheck(ownDigest, bytes);
  return { key: own, digest: ownDigest, check: ownCheck, bytes };
}

/**
 * What this process commits to in its first healthy answer when it hands its start on: its key and
 * its snapshot's digest (hashed now if it was not known), without a copy of the bytes when it was.
 * Undefined when its key is past START_KEY_LIMIT.
 */
export function ownCommitment(): { readonly key: string; readonly digest: string } | undefined {
  const own = runtimeSnapshotKey();
  if (own === undefined) return undefined;
  ownDigest ??= snapshotDigest(new Uint8Array(readRuntimeSnapshot().copy()));
  return { key: own, digest: ownDigest };
}

/** Why this process must not restore from `handed`, or undefined when it may. */
export function snapshotRefusal(handed: HandedSnapshot): string | undefined {
  const own = runtimeSnapshotKey();
  if (own === undefined || handed.key !== own) return FOREIGN_SNAPSHOT_MESSAGE;
  if (handed.bytes.byteLength > SNAPSHOT_BYTES_LIMIT) return snapshotTooLargeMessage(handed.bytes.byteLength);
  if (startCheck(handed.digest, handed.bytes) !== handed.check) return SNAPSHOT_CHECK_MESSAGE;
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
    ownCheck = handed.check;
    return undefined;
  }
  copy.release();
  return SNAPSHOT_ALREADY_MADE_MESSAGE;
}
