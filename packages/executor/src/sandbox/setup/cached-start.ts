/**
 * A pool child's start kept on disk between processes (docs/pool.md, "The start cache on disk"):
 * the runtime snapshot and the engine report a child made, in one file of a trusted folder
 * (cache/trusted-directory.ts), so the first child of the next process (a CLI run, a server's
 * replica, the MCP bridge a client spawns) starts from it instead of making both again.
 *
 * V8 restores a snapshot without defending against its bytes, and ends the process on one it cannot
 * use, so an entry is taken only when its key names this process's build exactly; the child then
 * adopts it as it adopts a start handed on (handed-snapshot.ts), once its bytes match the CRC-32
 * written beside them. The key is the hand-on's (runtimeSnapshotKey) widened by what the disk
 * outlives and the channel does not: the isolated-vm binary by its real path, its size and its
 * CRC-32, and the Node binary by its real path, size and time. The file is named by the key's CRC-32
 * and holds the key whole, so two keys that share a name refuse each other's entry, never take it.
 *
 * The file: one line of JSON (the format, the key, the digest, the CRC-32, the engine report), then
 * the bytes.
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { CacheBounds, TrustedDirectory } from '../../cache/trusted-directory.ts';
import type { EngineReport } from '../isolate.ts';
import { type HandedSnapshot, ownSnapshot, runtimeSnapshotKey } from './handed-snapshot.ts';
import { SNAPSHOT_BYTES_LIMIT } from './snapshot-limit.ts';
import { checkName, isSha256 } from './start-check.ts';

/** A start is about 1.3 MB; a few builds side by side (Node upgrades, two installs) fit. */
export const START_CACHE_BOUNDS: CacheBounds = { maxEntries: 8, maxBytes: 64 * 2 ** 20 };
/**
 * Bumped when the file's layout changes: an entry of another layout is another key. Layout 2 (a
 * CRC-32 beside the digest, the key written whole) is read under other names than layout 1 was.
 */
const FORMAT = 2;
/**
 * The header line's bound. The engine report is a few hundred bytes and the key about a thousand,
 * but the key holds the runtime's key (up to START_KEY_LIMIT) as a string inside a string, escaped
 * twice over: flags full of backslashes or quotes grow it eightfold. A header past the bound is
 * not written (no reader would take it).
 */
export const HEADER_LIMIT = 256 * 1024;
const NEWLINE = 0x0a;

export const CACHED_KEY_MESSAGE =
  'the cached start was made by another build (its key names another Node, isolated-vm binary, scripts or flags)';
export const CACHED_LAYOUT_MESSAGE = 'the cached start is not laid out as this release writes one';

/** A start read from disk, as a start handed on travels, with the engine report beside it. */
export interface CachedStart extends HandedSnapshot {
  readonly engine: EngineReport;
}

let diskKey: string | null | undefined;

/**
 * The key a start is kept on disk under, or undefined when the isolated-vm binary in use cannot be
 * found (then nothing is kept: a start on disk is only ever read by the build that wrote it).
 */
export function cachedStartKey(): string | undefined {
  if (diskKey !== undefined) return diskKey ?? undefined;
  try {
    const runtimeKey = runtimeSnapshotKey();
    if (runtimeKey === undefined) throw new Error('no key');
    const binary = realpathSync(isolatedVmBinary());
    const node = realpathSync(process.execPath);
    const nodeStat = statSync(node);
    const addon = readFileSync(binary);
    diskKey = JSON.stringify([
      FORMAT,
      runtimeKey,
      binary,
      checkName(addon),
      node,
      nodeStat.size,
      nodeStat.mtimeMs,
    ]);
  } catch {
    diskKey = null;
  }
  return diskKey ?? undefined;
}

/** The binary isolated-vm loads, found as it finds it (node-gyp-build, its own dependency). */
function isolatedVmBinary(): string {
  const manifest = createRequire(import.meta.url).resolve('isolated-vm/package.json');
  const folder = dirname(manifest);
  const gypBuild = createRequire(manifest)('node-gyp-build') as { path(folder: string): string };
  return gypBuild.path(folder);
}

/** The entry's name: the key's CRC-32 and length (the header holds the key whole). */
function entryName(key: string): string {
  return `${checkName(key)}.start`;
}

/**
 * This build's start from `directory`: the entry when it passed its checks, why it was refused
 * otherwise, or undefined when there is none (or no key). Nothing of it has reached V8.
 */
export function readCachedStart(
  directory: TrustedDirectory,
): { readonly start: CachedStart } | { readonly refused: string } | undefined {
  const key = cachedStartKey();
  if (key === undefined) return undefined;
  const read = directory.read(entryName(key), HEADER_LIMIT + SNAPSHOT_BYTES_LIMIT);
  if (read === undefined || 'refused' in read) return read;
  const { bytes } = read;
  const end = bytes.indexOf(NEWLINE);
  if (end < 0 || end > HEADER_LIMIT) return { refused: CACHED_LAYOUT_MESSAGE };
  let header: unknown;
  try {
    header = JSON.parse(bytes.toString('utf8', 0, end));
  } catch {
    return { refused: CACHED_LAYOUT_MESSAGE };
  }
  if (!isHeader(header)) return { refused: CACHED_LAYOUT_MESSAGE };
  if (header.format !== FORMAT || header.key !== key) return { refused: CACHED_KEY_MESSAGE };
  const runtimeKey = runtimeSnapshotKey();
  if (runtimeKey === undefined) return undefined;
  // The CRC-32 is checked where the bytes are adopted (adoptHandedSnapshot), before V8 sees them.
  return {
    start: {
      key: runtimeKey,
      digest: header.digest,
      check: header.check,
      bytes: new Uint8Array(bytes.buffer, bytes.byteOffset + end + 1, bytes.length - end - 1),
      engine: header.engine,
    },
  };
}

/**
 * This process's snapshot as it is to be kept, its disk key found: the part of a write that needs no
 * engine report, which a child does while its probes run. Undefined when nothing can be kept.
 */
export function startToKeep(): HandedSnapshot | undefined {
  if (cachedStartKey() === undefined) return undefined;
  try {
    return ownSnapshot();
  } catch {
    return undefined;
  }
}

/**
 * Keeps `own` (this process's snapshot, startToKeep) and `engine` in `directory`, then lets the
 * oldest entries go past the folder's bounds. False when nothing was written.
 */
export function writeCachedStart(
  directory: TrustedDirectory,
  engine: EngineReport,
  own: HandedSnapshot | undefined = startToKeep(),
): boolean {
  const key = cachedStartKey();
  if (key === undefined || own === undefined) return false;
  const header = JSON.stringify({ format: FORMAT, key, digest: own.digest, check: own.check, engine });
  // A reader refuses a header past its bound, so one is not written (a key full of escapes).
  if (Buffer.byteLength(header) >= HEADER_LIMIT) return false;
  const name = entryName(key);
  if (!directory.write(name, [Buffer.from(`${header}\n`), own.bytes])) return false;
  directory.evict(START_CACHE_BOUNDS, name);
  return true;
}

interface Header {
  readonly format: number;
  readonly key: string;
  readonly digest: string;
  readonly check: number;
  readonly engine: EngineReport;
}

/** The header's shape; what its engine report names is checked where it is taken (hand-on-start.ts). */
function isHeader(value: unknown): value is Header {
  if (typeof value !== 'object' || value === null) return false;
  const { format, key, digest, check, engine } = value as Record<string, unknown>;
  if (typeof format !== 'number' || typeof key !== 'string') return false;
  if (!isSha256(digest)) return false;
  if (typeof check !== 'number' || !Number.isInteger(check) || check < 0 || check > 0xffffffff) return false;
  if (typeof engine !== 'object' || engine === null) return false;
  const { isolatedVm, node, behaviours, fallbacks } = engine as Record<string, unknown>;
  if (typeof isolatedVm !== 'string' || typeof node !== 'string') return false;
  if (!Array.isArray(fallbacks) || !fallbacks.every((sentence) => typeof sentence === 'string')) return false;
  if (typeof behaviours !== 'object' || behaviours === null) return false;
  return Object.values(behaviours).every((behaviour: unknown) => {
    if (typeof behaviour !== 'object' || behaviour === null) return false;
    const { present, reason } = behaviour as Record<string, unknown>;
    return typeof present === 'boolean' && (reason === undefined || typeof reason === 'string');
  });
}
