/**
 * The packages this process has bundled, kept so a second executor configured with the same
 * package (a test suite's, a process that serves several) does not bundle it again. An entry is
 * keyed by what the build was asked (the package's real directory, the specifiers it offers and
 * their files, the other allowed packages' specifiers left outside it) and valid only while every
 * file the build read, and the package.json of every folder it could read from, holds the same
 * bytes: a content hash of each, taken again at each use, never a version number, which a package
 * edited in place does not change. Bounded in characters of script (CACHE_SIZE_LIMIT), least
 * recently used first out. Nothing is kept on disk.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { BundledPackage } from '@supolka/codemode-executor';

/** Characters of scripts the process keeps: two configurations at the largest a bundle may be. */
export const CACHE_SIZE_LIMIT = 32 * 1024 * 1024;

function fingerprint(file: string): string {
  return existsSync(file) ? createHash('sha256').update(readFileSync(file)).digest('base64url') : 'absent';
}

interface Entry {
  readonly bundled: BundledPackage;
  readonly files: ReadonlyMap<string, string>;
}

export class BundleCache {
  readonly #entries = new Map<string, Entry>();
  #size = 0;

  /** The bundle made for `key`, when every file it was made from is unchanged. */
  get(key: string): BundledPackage | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    for (const [file, hash] of entry.files) {
      if (fingerprint(file) !== hash) {
        this.#drop(key, entry);
        return undefined;
      }
    }
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.bundled;
  }

  /** Keeps `bundled` for `key`, with the hash of each file it was made from, as the files are now. */
  set(key: string, bundled: BundledPackage, files: Iterable<string>): void {
    const previous = this.#entries.get(key);
    if (previous !== undefined) this.#drop(key, previous);
    if (bundled.source.length > CACHE_SIZE_LIMIT) return;
    this.#entries.set(key, { bundled, files: new Map([...files].map((file) => [file, fingerprint(file)])) });
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
