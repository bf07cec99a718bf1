/**
 * Where bridge instances keep what does not fit in a requestState, and which tokens have resumed.
 * A paused run's token is the run's whole state; when it would make the requestState longer than
 * REQUEST_STATE_LIMIT the client is handed a reference instead, and the token waits here until it
 * expires. The same store claims each token once (the executor's ClaimStore), so an approval
 * answered twice, on one instance or on two sharing the store, resumes its run once.
 *
 * The shipped store is a folder (`journalStore` in the config; docs/mcp.md, "Approvals"). What it
 * holds resumes runs, so it is kept as the token file is: a folder of this user's, mode 0700,
 * refused when anyone else may enter it or when it is a symbolic link; files made new (never
 * opened through a link), mode 0600, written beside their name and renamed over it.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, rename, unlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClaimStore } from '@supolka/codemode-executor';
import { REFERENCE_PATTERN } from './request-state.ts';
import {
  journalStoreExposedMessage,
  journalStoreNotFolderMessage,
  journalStoreOwnerMessage,
} from './texts.ts';

export interface JournalStore extends ClaimStore {
  /** Keeps `token` until `expiresAt` (ms since the epoch) and answers the reference it is kept under. */
  put(token: string, expiresAt: number): Promise<string>;
  /** The token kept under `reference`, or undefined when there is none or it expired. */
  get(reference: string): Promise<string | undefined>;
  /**
   * Lets go of what `reference` keeps, once its run resumed: its token is claimed, so spent.
   * Optional, so a store written before it keeps working: its states then wait out their expiry.
   */
  remove?(reference: string): Promise<void>;
}

/** The largest token the store reads back: the executor's bound on a token, with room for JSON. */
export const STORED_TOKEN_LIMIT = 17 * 1024 * 1024;

/** How often, at most, a write also removes what has expired. */
const SWEEP_INTERVAL = 60_000;

/** A token id as the executor makes it (base64url of 16 bytes): a file name with nothing to escape. */
const TOKEN_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export class JournalStoreError extends Error {
  override name = 'JournalStoreError';
}

export class FileJournalStore implements JournalStore {
  readonly #folder: string;
  readonly #now: () => number;
  #lastSweep = 0;

  private constructor(folder: string, now: () => number) {
    this.#folder = folder;
    this.#now = now;
  }

  /**
   * The store in `folder`, made (mode 0700) when missing. Refuses (JournalStoreError) a folder that
   * is a link or no folder, that `uid` does not own, or that the group or others may enter.
   */
  static async open(
    folder: string,
    uid: number | undefined = process.getuid?.(),
    now: () => number = Date.now,
  ): Promise<FileJournalStore> {
    await mkdir(folder, { recursive: true, mode: 0o700 });
    const stat = await lstat(folder);
    if (!stat.isDirectory()) throw new JournalStoreError(journalStoreNotFolderMessage(folder));
    if (uid !== undefined && process.platform !== 'win32') {
      if (stat.uid !== uid) throw new JournalStoreError(journalStoreOwnerMessage(folder, stat.uid, uid));
      if ((stat.mode & 0o077) !== 0)
        throw new JournalStoreError(journalStoreExposedMessage(folder, stat.mode & 0o777));
    }
    return new FileJournalStore(folder, now);
  }

  async put(token: string, expiresAt: number): Promise<string> {
    const reference = randomBytes(16).toString('base64url');
    await this.#write(`state-${reference}`, JSON.stringify({ expiresAt, token }), expiresAt);
    return reference;
  }

  async get(reference: string): Promise<string | undefined> {
    if (!REFERENCE_PATTERN.test(reference)) return undefined;
    const text = await this.#read(`state-${reference}`);
    if (text === undefined) return undefined;
    let stored: { expiresAt?: unknown; token?: unknown };
    try {
      stored = JSON.parse(text) as typeof stored;
    } catch {
      return undefined;
    }
    if (typeof stored.token !== 'string' || typeof stored.expiresAt !== 'number') return undefined;
    return stored.expiresAt <= this.#now() ? undefined : stored.token;
  }

  async remove(reference: string): Promise<void> {
    if (!REFERENCE_PATTERN.test(reference)) return;
    await unlink(join(this.#folder, `state-${reference}`)).catch(() => {});
  }

  /** True the first time a token id is claimed: the file is made new or not at all, atomically. */
  async claim(tokenId: string, expiresAt: number): Promise<boolean> {
    if (!TOKEN_ID_PATTERN.test(tokenId)) throw new JournalStoreError('The token id cannot name a claim.');
    const path = join(this.#folder, `claim-${tokenId}`);
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      // O_EXCL: made here or refused, and never through a link someone left under the name.
      handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
    await handle.close();
    await this.#expireAt(path, expiresAt);
    void this.#sweep();
    return true;
  }

  async #write(name: string, text: string, expiresAt: number): Promise<void> {
    const temporary = join(this.#folder, `.${name}.${randomBytes(8).toString('hex')}.tmp`);
    const handle = await open(temporary, 'wx', 0o600);
    try {
      try {
        await handle.chmod(0o600);
        await handle.writeFile(text, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await this.#expireAt(temporary, expiresAt);
      await rename(temporary, join(this.#folder, name));
    } catch (error) {
      await unlink(temporary).catch(() => {});
      throw error;
    }
    void this.#sweep();
  }

  /**
   * A regular file of this store, read without following a link; undefined when there is none.
   * Opened without blocking: a FIFO left under the name would otherwise hold the open, and the
   * libuv thread it runs on, until something wrote to it.
   */
  async #read(name: string): Promise<string | undefined> {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      const flags = constants.O_RDONLY | constants.O_NOFOLLOW | (constants.O_NONBLOCK ?? 0);
      handle = await open(join(this.#folder, name), flags);
    } catch {
      return undefined;
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile() || stat.size > STORED_TOKEN_LIMIT) return undefined;
      return await handle.readFile({ encoding: 'utf8' });
    } finally {
      await handle.close();
    }
  }

  /** A file's modification time is its expiry: a sweep reads no file to know what to remove. */
  async #expireAt(path: string, expiresAt: number): Promise<void> {
    const seconds = expiresAt / 1000;
    await utimes(path, seconds, seconds);
  }

  /**
   * Removes what expired more than a sweep interval ago (claims are kept that long past their
   * token's expiry, for clocks of instances that disagree), at most once a SWEEP_INTERVAL.
   */
  async #sweep(): Promise<void> {
    const now = this.#now();
    if (now - this.#lastSweep < SWEEP_INTERVAL) return;
    this.#lastSweep = now;
    try {
      for (const name of await readdir(this.#folder)) {
        const path = join(this.#folder, name);
        const stat = await lstat(path).catch(() => undefined);
        if (stat?.isFile() && stat.mtimeMs < now - SWEEP_INTERVAL) await unlink(path).catch(() => {});
      }
    } catch {
      // A sweep that fails leaves files for the next one; nothing depends on it.
    }
  }
}
