/**
 * The packages this process has bundled, kept so a second executor configured with the same
 * package (a test suite's, a process that serves several) does not bundle it again. An entry is
 * keyed by what the build was asked (the package's real directory, the folders it may read from,
 * the specifiers it offers and their files, the other allowed packages' specifiers left outside it)
 * and valid only while every file the build read, and every package.json esbuild could have
 * consulted, holds the same bytes at the same real path: a content hash of each, taken again at
 * each use, never a version number, which a package edited in place does not change. Bounded in
 * characters of script (CACHE_SIZE_LIMIT), least recently used first out. disk-cache.ts keeps the
 * same entries between processes, under the same rule.
 */
import { createHash } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import type { BundledPackage } from '@supolka/codemode-executor';

/** Characters of scripts the process keeps: two configurations at the largest a bundle may be. */
export const CACHE_SIZE_LIMIT = 32 * 1024 * 1024;

/** Each file's content hash, as the file is now (fingerprint). */
export type Fingerprints = ReadonlyMap<string, string>;

/**
 * What `file` (a real path when it was recorded) holds now: the SHA-256 of its bytes; `absent`
 * when it is not there; `linked` when its path now goes through a link, so the bytes would come
 * from elsewhere and the package's real-path rule (guard.ts) is to be judged again by a build.
 */
export function fingerprint(file: string): string {
  try {
    if (realpathSync(file) !== file) return 'linked';
    return createHash('sha256').update(readFileSync(file)).digest('base64url');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'absent' : 'unreadable';
  }
}

export function fingerprints(files: Iterable<string>): Fingerprints {
  return new Map([...files].map((file) => [file, fingerprint(file)]));
}

/** Whether every file still hashes as recorded. */
export function unchanged(files: Fingerprints): boolean {
  for (const [file, hash] of files) if (fingerprint(file) !== hash) return false;
  return true;
}

interface Entry {
  readonly bundled: BundledPackage;
  readonly files: Fingerprints;
}

export class BundleCache {
  readonly #entries = new Map<string, Entry>();
  #size = 0;

  /** The bundle made for `key`, when every file it was made from is unchanged. */
  get(key: string): BundledPackage | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (!unchanged(entry.files)) {
      this.#drop(key, entry);
      return undefined;
    }
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.bundled;
  }

  /** Keeps `bundled` for `key`, with the hash of each file it was made from. */
  set(key: string, bundled: BundledPackage, files: Fingerprints): void {
    const previous = this.#entries.get(key);
    if (previous !== undefined) this.#drop(key, previous);
    if (bundled.source.length > CACHE_SIZE_LIMIT) return;
    this.#entries.set(key, { bundled, files });
    this.#size += bundled.source.length;
    for (const [oldest, entry] of this.#entries) {
      if (this.#size <= CACHE_SIZE_LIMIT) break;
      this.#drop(oldest, entry);
    }
  }

  #drop(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#size -= entry.bundled.source.length;
  }
}
