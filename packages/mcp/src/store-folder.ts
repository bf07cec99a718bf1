/**
 * The journal store's folder, checked each time it is used rather than once at startup: a folder
 * whose mode was opened to others, that changed owner, or that a link took the place of after the
 * bridge started is refused at the next write or read, with the sentence startup refuses it with.
 *
 * Each use opens the folder itself (never through a link) and checks the opened folder, so the
 * check costs one open and one fstat. On Linux the entries are then named through that opened
 * folder (`/proc/self/fd/N/name`, Node having no openat), so a folder put under the path between
 * the check and the use is never the one written; elsewhere they are named by the path. Windows
 * opens no folder as a file, so there the path is looked at (lstat) instead of opened.
 */
import { constants, existsSync, type Stats } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { join } from 'node:path';
import {
  journalStoreExposedMessage,
  journalStoreNotFolderMessage,
  journalStoreOwnerMessage,
} from './texts.ts';

export class JournalStoreError extends Error {
  override name = 'JournalStoreError';
}

/** Whether an opened folder's entries can be named through its descriptor. */
const THROUGH_DESCRIPTOR = process.platform === 'linux' && existsSync('/proc/self/fd');

const FOLDER_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0);

/** The sentence refusing `stat` as the store's folder for `uid`, or undefined when it holds. */
export function folderFault(folder: string, stat: Stats, uid: number | undefined): string | undefined {
  if (!stat.isDirectory()) return journalStoreNotFolderMessage(folder);
  if (uid === undefined || process.platform === 'win32') return undefined;
  if (stat.uid !== uid) return journalStoreOwnerMessage(folder, stat.uid, uid);
  if ((stat.mode & 0o077) !== 0) return journalStoreExposedMessage(folder, stat.mode & 0o777);
  return undefined;
}

export class StoreFolder {
  readonly path: string;
  readonly uid: number | undefined;
  readonly #refused: (message: string) => void;
  /** The sentence last told: a folder refused call after call is told once, until it holds again. */
  #told: string | undefined;

  /** `refused` hears each refusal's sentence (the bridge writes it on stderr). */
  constructor(path: string, uid: number | undefined, refused: (message: string) => void = () => {}) {
    this.path = path;
    this.uid = uid;
    this.#refused = refused;
  }

  /**
   * Runs `work` with the folder opened and checked, `entry` naming an entry of that folder.
   * Throws JournalStoreError when the folder does not hold; any other failure to open it (it was
   * removed) is thrown as the system's error.
   */
  async use<T>(work: (entry: (name: string) => string) => Promise<T>): Promise<T> {
    // Windows opens no folder as a file: there the path is looked at, not followed, and used.
    if (process.platform === 'win32') {
      const fault = folderFault(this.path, await lstat(this.path), this.uid);
      if (fault !== undefined) this.#refuse(fault);
      this.#told = undefined;
      return work((name) => join(this.path, name));
    }
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(this.path, FOLDER_FLAGS);
    } catch (error) {
      // ELOOP: the path is a link; ENOTDIR: it is a file (or a link, where O_DIRECTORY is seen first).
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP' || code === 'ENOTDIR') this.#refuse(journalStoreNotFolderMessage(this.path));
      throw error;
    }
    try {
      const fault = folderFault(this.path, await handle.stat(), this.uid);
      if (fault !== undefined) this.#refuse(fault);
      this.#told = undefined;
      const fd = handle.fd;
      return await work(
        THROUGH_DESCRIPTOR ? (name) => `/proc/self/fd/${fd}/${name}` : (name) => join(this.path, name),
      );
    } finally {
      await handle.close();
    }
  }

  #refuse(message: string): never {
    if (message !== this.#told) this.#refused(message);
    this.#told = message;
    throw new JournalStoreError(message);
  }
}
