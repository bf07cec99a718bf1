/**
 * A folder on disk whose files this package reads back as its own work: the runtime start a pool
 * child would otherwise make (sandbox/setup/cached-start.ts), and any other cache that follows the
 * same rules (a bundle of allowed packages). What such a file holds may reach V8 unguarded, so the
 * folder is trusted only as far as the user's own files are (docs/pool.md, "The start cache on disk"):
 *
 * - it and every folder above it is owned by this process's effective user (or, above it, by root),
 *   and no other user can write to it: above it, a folder others may write to must be sticky (as
 *   /tmp is), so nobody else can rename the way to it; the folder itself is made 0700;
 * - an entry is opened without following links, must be a regular file of this user writable by no
 *   one else, and is read up to a bound;
 * - an entry is written whole under a temporary name in the same folder, then renamed over the
 *   old, so a reader sees the old file or the new one, never half of one.
 *
 * None of this throws: a folder that fails its checks is refused with a sentence saying why, and a
 * read or write that fails (a full disk, a read-only folder) reads as nothing there or nothing
 * written. A cache never fails a run. Each entry's own content is its reader's to check (a digest
 * beside the bytes): a file can still be damaged on disk.
 */
import {
  closeSync,
  constants,
  fstatSync,
  futimesSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  renameSync,
  rmdirSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { nodeCrypto } from '../sandbox/node-crypto.ts';

/** An entry's name: letters, digits, dots, dashes and underscores, not starting with a dot (temporaries do). */
const ENTRY_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;
/** Temporary files start with this; one older than STALE_TEMPORARY is a writer that died, and goes. */
const TEMPORARY_PREFIX = '.tmp-';
const STALE_TEMPORARY = 10 * 60 * 1000;
/** The sticky bit: in such a folder only an entry's owner may rename or remove it. */
const STICKY = 0o1000;

/** How much a cache folder keeps: past either bound the oldest entries go. */
export interface CacheBounds {
  readonly maxEntries: number;
  readonly maxBytes: number;
}

/** A read: the entry's bytes, why it was not read, or undefined when there is none. */
export type EntryRead = { readonly bytes: Buffer } | { readonly refused: string } | undefined;

/** The folder at `path`, once trusted (made when `create` and missing); or why not. */
export function openTrustedDirectory(
  path: string,
  { create }: { readonly create: boolean },
): { readonly directory: TrustedDirectory } | { readonly refused: string } {
  const user = process.geteuid?.();
  if (user === undefined)
    return { refused: 'this platform has no user ids to check the cache folder against' };
  try {
    if (create) mkdirSync(path, { recursive: true, mode: 0o700 });
    const real = realpathSync(path);
    const refused = folderRefusal(real, user, true);
    if (refused !== undefined) return { refused };
    for (let above = dirname(real); ; above = dirname(above)) {
      const refusedAbove = folderRefusal(above, user, false);
      if (refusedAbove !== undefined) return { refused: refusedAbove };
      if (dirname(above) === above) break;
    }
    return { directory: new TrustedDirectory(real, user) };
  } catch (error) {
    return { refused: `the cache folder ${path} could not be made or read (${describe(error)})` };
  }
}

/** Why the folder at `path` (a real path) is not to be trusted, or undefined when it is. */
function folderRefusal(path: string, user: number, own: boolean): string | undefined {
  const stat = lstatSync(path);
  if (!stat.isDirectory()) return `${path} is not a folder`;
  if (own ? stat.uid !== user : stat.uid !== user && stat.uid !== 0) {
    return `the cache folder ${path} is owned by user ${stat.uid}, not by this process's user (${user})${own ? '' : ' or root'}`;
  }
  const othersWrite = (stat.mode & 0o022) !== 0;
  if (othersWrite && (own || (stat.mode & STICKY) === 0)) {
    return `the cache folder ${path} may be written by other users (mode ${(stat.mode & 0o7777).toString(8)})`;
  }
  return undefined;
}

export class TrustedDirectory {
  readonly path: string;
  readonly #user: number;

  constructor(path: string, user: number) {
    this.path = path;
    this.#user = user;
  }

  /** The entry `name`, read whole when it is a regular file of this user of at most `limit` bytes. */
  read(name: string, limit: number): EntryRead {
    if (!ENTRY_NAME.test(name)) return { refused: `${name} is not a cache entry's name` };
    let fd: number | undefined;
    try {
      fd = openSync(join(this.path, name), constants.O_RDONLY | constants.O_NOFOLLOW);
      const stat = fstatSync(fd);
      if (!stat.isFile()) return { refused: `the cache entry ${name} is not a regular file` };
      if (stat.uid !== this.#user || (stat.mode & 0o022) !== 0) {
        return { refused: `the cache entry ${name} is another user's, or others may write to it` };
      }
      if (stat.size > limit)
        return { refused: `the cache entry ${name} holds ${stat.size} bytes, past ${limit}` };
      const bytes = Buffer.allocUnsafe(stat.size);
      let read = 0;
      while (read < bytes.length) {
        const got = readSync(fd, bytes, read, bytes.length - read, read);
        if (got === 0) break;
        read += got;
      }
      if (read !== bytes.length) return { refused: `the cache entry ${name} ended before its size` };
      markUsed(fd);
      return { bytes };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return undefined;
      if (code === 'ELOOP') return { refused: `the cache entry ${name} is a link` };
      return { refused: `the cache entry ${name} could not be read (${describe(error)})` };
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  /**
   * Writes `parts` as the entry `name`, whole or not at all: under a temporary name first, then
   * renamed over any entry of that name. False when it could not be written (the disk is full, the
   * folder read-only); nothing is left behind then.
   */
  write(name: string, parts: readonly Uint8Array[]): boolean {
    if (!ENTRY_NAME.test(name)) return false;
    const temporary = join(
      this.path,
      `${TEMPORARY_PREFIX}${process.pid}-${nodeCrypto().randomBytes(6).toString('hex')}`,
    );
    let fd: number | undefined;
    try {
      fd = openSync(
        temporary,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o600,
      );
      for (const part of parts) {
        let written = 0;
        while (written < part.byteLength) written += writeSync(fd, part, written);
      }
      closeSync(fd);
      fd = undefined;
      renameSync(temporary, join(this.path, name));
      return true;
    } catch {
      if (fd !== undefined) closeSync(fd);
      try {
        unlinkSync(temporary);
      } catch {
        // Never made, or gone already.
      }
      return false;
    }
  }

  /** Removes the entry `name` (a link of that name, never what it points to); quiet when it is not there. */
  remove(name: string): void {
    if (!ENTRY_NAME.test(name)) return;
    try {
      unlinkSync(join(this.path, name));
    } catch {
      // Gone already, or the folder is read-only: a reader checks every entry anyway.
    }
  }

  /**
   * Removes the oldest entries (by last use) while the folder holds more than `bounds` allow,
   * never `keep`; and temporaries a writer that died left behind.
   */
  evict(bounds: CacheBounds, keep?: string): void {
    const entries: { name: string; size: number; used: number }[] = [];
    const now = Date.now();
    for (const name of this.#names()) {
      try {
        const stat = lstatSync(join(this.path, name));
        if (!stat.isFile()) continue;
        if (name.startsWith(TEMPORARY_PREFIX)) {
          if (now - stat.mtimeMs > STALE_TEMPORARY) unlinkSync(join(this.path, name));
        } else if (ENTRY_NAME.test(name)) entries.push({ name, size: stat.size, used: stat.mtimeMs });
      } catch {
        // Gone meanwhile, or unreadable: not this pass's to count.
      }
    }
    entries.sort((a, b) => a.used - b.used);
    let count = entries.length;
    let bytes = entries.reduce((sum, entry) => sum + entry.size, 0);
    for (const entry of entries) {
      if (count <= bounds.maxEntries && bytes <= bounds.maxBytes) break;
      if (entry.name === keep) continue;
      try {
        unlinkSync(join(this.path, entry.name));
      } catch {
        continue;
      }
      count--;
      bytes -= entry.size;
    }
  }

  /** Removes every file in the folder, then the folder; answers how many files and bytes went. */
  clear(): { readonly files: number; readonly bytes: number } {
    let files = 0;
    let bytes = 0;
    for (const name of this.#names()) {
      try {
        const path = join(this.path, name);
        const stat = lstatSync(path);
        if (stat.isDirectory()) continue;
        unlinkSync(path);
        files++;
        bytes += stat.size;
      } catch {
        // Gone meanwhile: nothing to clear.
      }
    }
    try {
      rmdirSync(this.path);
    } catch {
      // Something not a file remains in it (not this package's): the folder stays.
    }
    return { files, bytes };
  }

  #names(): string[] {
    try {
      return readdirSync(this.path);
    } catch {
      return [];
    }
  }
}

/**
 * Marks an entry used now, so eviction keeps what is read and drops what is not; on a folder that
 * cannot be written (a read-only mount) the entry is still read, only not marked.
 */
function markUsed(fd: number): void {
  try {
    const now = new Date();
    futimesSync(fd, now, now);
  } catch {
    // Not marked: eviction may take it sooner, which costs a start, never a run.
  }
}

function describe(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.message : String(error);
}
