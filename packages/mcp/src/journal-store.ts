/**
 * Where bridge instances keep what does not fit in a requestState, and which tokens have resumed.
 * A paused run's token is the run's whole state; when it would make the requestState longer than
 * REQUEST_STATE_LIMIT the client is handed a reference instead, and the token waits here until it
 * expires. The same store claims each token once (the executor's ClaimStore), so an approval
 * answered twice, on one instance or on two sharing the store, resumes its run once.
 *
 * The shipped store is a folder (`journalStore` in the config; docs/mcp.md, "Approvals"). What it
 * holds resumes runs, so it is kept as the token file is: a folder of this user's, mode 0700,
 * refused when anyone else may enter it or when it is a symbolic link, at startup and again at
 * every write and read (store-folder.ts); files made new (never opened through a link), mode 0600,
 * written beside their name and renamed over it, and read only when they are this user's and
 * nobody else's. The kept states' bytes together are bounded (store-bound.ts).
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, rename, unlink, utimes } from 'node:fs/promises';
import type { ClaimStore } from '@supolka/codemode-executor';
import { REFERENCE_PATTERN } from './request-state.ts';
import { makeRoom, storeEntries, TOKEN_ID_PATTERN } from './store-bound.ts';
import { JournalStoreError, StoreFolder } from './store-folder.ts';

export { JournalStoreError } from './store-folder.ts';

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

/**
 * The bytes the kept states may take together unless `journalStoreBytes` says otherwise: room for
 * about fifteen states at the largest a token may be, or some two hundred of a little past the
 * 1 MiB a requestState holds (the smallest a kept state is).
 */
export const DEFAULT_STORE_BYTES = 256 * 1024 * 1024;

/** How often, at most, a write also removes what has expired. */
const SWEEP_INTERVAL = 60_000;

/** A state the store has no room for: its bound (journalStoreBytes) is taken by states still live. */
export class JournalStoreFullError extends Error {
  override name = 'JournalStoreFullError';
  readonly limit: number;
  constructor(limit: number) {
    super(
      `The journal store holds ${limit} bytes of states at most (journalStoreBytes), and has no room for this one.`,
    );
    this.limit = limit;
  }
}

export interface FileJournalStoreOptions {
  /** The bytes its states may take together; DEFAULT_STORE_BYTES when absent. */
  readonly bytes?: number;
  /** Hears the sentence of each refusal of the folder after startup (the bridge's stderr). */
  readonly refused?: (message: string) => void;
}

export class FileJournalStore implements JournalStore {
  readonly #folder: StoreFolder;
  readonly #now: () => number;
  readonly #bytes: number;
  #lastSweep = 0;
  /**
   * This process's counts and renames, one at a time: each count sees the reservations before it,
   * and no state of this process changes its name while the folder is listed (a listing in several
   * reads could otherwise see it under neither name).
   */
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(folder: StoreFolder, now: () => number, bytes: number) {
    this.#folder = folder;
    this.#now = now;
    this.#bytes = bytes;
  }

  /**
   * The store in `folder`, made (mode 0700) when missing. Refuses (JournalStoreError) a folder that
   * is a link or no folder, that `uid` does not own, or that the group or others may enter; each
   * later write and read refuses it again the moment that holds no longer.
   */
  static async open(
    folder: string,
    uid: number | undefined = process.getuid?.(),
    now: () => number = Date.now,
    options: FileJournalStoreOptions = {},
  ): Promise<FileJournalStore> {
    await mkdir(folder, { recursive: true, mode: 0o700 });
    const store = new FileJournalStore(
      new StoreFolder(folder, uid, options.refused),
      now,
      options.bytes ?? DEFAULT_STORE_BYTES,
    );
    // Startup's refusal is the command's to report (exit 2), not a later one's to log.
    await new StoreFolder(folder, uid).use(async () => {});
    return store;
  }

  async put(token: string, expiresAt: number): Promise<string> {
    const bytes = Buffer.from(JSON.stringify({ expiresAt, token }), 'utf8');
    // A state larger than the whole bound never fits: refused before a byte is reserved.
    if (bytes.length > Math.min(this.#bytes, STORED_TOKEN_LIMIT))
      throw new JournalStoreFullError(this.#bytes);
    const reference = randomBytes(16).toString('base64url');
    await this.#folder.use(async (entry) => {
      const reservation = `.state-${reference}.${randomBytes(8).toString('hex')}.tmp`;
      const handle = await this.#serially(() => this.#reserve(entry, reservation, bytes.length));
      try {
        try {
          await handle.writeFile(bytes);
          await handle.sync();
        } finally {
          await handle.close();
        }
        await expireAt(entry(reservation), expiresAt);
        await this.#serially(() => rename(entry(reservation), entry(`state-${reference}`)));
      } catch (error) {
        await unlink(entry(reservation)).catch(() => {});
        throw error;
      }
    });
    this.#sweepSometimes();
    return reference;
  }

  /**
   * The reservation of `size` bytes under `name`, opened for its writing, once the bound has room
   * for it; else none is left behind and JournalStoreFullError says why.
   */
  async #reserve(entry: (name: string) => string, name: string, size: number) {
    // O_EXCL: made here or refused, and never through a link someone left under the name.
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);
    const handle = await open(entry(name), flags, 0o600);
    try {
      await handle.chmod(0o600);
      // Sparse: the size counts in the bound before a byte of the disk is taken.
      await handle.truncate(size);
      if (!(await makeRoom(entry, this.#folder.uid, this.#bytes, this.#now())))
        throw new JournalStoreFullError(this.#bytes);
      return handle;
    } catch (error) {
      await handle.close();
      await unlink(entry(name)).catch(() => {});
      throw error;
    }
  }

  /** Runs `work` once this process's earlier counts and renames are done. */
  #serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(work);
    this.#queue = run.catch(() => {});
    return run;
  }

  async get(reference: string): Promise<string | undefined> {
    if (!REFERENCE_PATTERN.test(reference)) return undefined;
    const text = await this.#folder.use((entry) => this.#read(entry(`state-${reference}`)));
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
    await this.#folder.use((entry) => unlink(entry(`state-${reference}`))).catch(() => {});
  }

  /** True the first time a token id is claimed: the file is made new or not at all, atomically. */
  async claim(tokenId: string, expiresAt: number): Promise<boolean> {
    if (!TOKEN_ID_PATTERN.test(tokenId)) throw new JournalStoreError('The token id cannot name a claim.');
    const made = await this.#folder.use(async (entry) => {
      const path = entry(`claim-${tokenId}`);
      let handle: Awaited<ReturnType<typeof open>>;
      try {
        // O_EXCL: made here or refused, and never through a link someone left under the name.
        handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw error;
      }
      await handle.close();
      await expireAt(path, expiresAt);
      return true;
    });
    if (made) this.#sweepSometimes();
    return made;
  }

  /**
   * A regular file of this store, this user's and nobody else's, read without following a link;
   * undefined when there is none. Opened without blocking: a FIFO left under the name would
   * otherwise hold the open, and the libuv thread it runs on, until something wrote to it.
   */
  async #read(path: string): Promise<string | undefined> {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      const flags = constants.O_RDONLY | constants.O_NOFOLLOW | (constants.O_NONBLOCK ?? 0);
      handle = await open(path, flags);
    } catch {
      return undefined;
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile() || stat.size > STORED_TOKEN_LIMIT) return undefined;
      const uid = this.#folder.uid;
      if (
        uid !== undefined &&
        process.platform !== 'win32' &&
        (stat.uid !== uid || (stat.mode & 0o077) !== 0)
      )
        return undefined;
      return await handle.readFile({ encoding: 'utf8' });
    } finally {
      await handle.close();
    }
  }

  /** A sweep, when none ran for a SWEEP_INTERVAL: a write's way to keep the folder clean. */
  #sweepSometimes(): void {
    const now = this.#now();
    if (now - this.#lastSweep < SWEEP_INTERVAL) return;
    this.#lastSweep = now;
    void this.sweep().catch(() => {
      // A sweep that fails leaves files for the next one; nothing depends on it.
    });
  }

  /**
   * Removes the store's files that expired more than a sweep interval ago (claims are kept that
   * long past their token's expiry, for clocks of instances that disagree), and reservations as
   * long unwritten. Names the store does not make, and other users' files, are left alone.
   */
  async sweep(): Promise<void> {
    const now = this.#now();
    await this.#folder.use(async (entry) => {
      const entries = await storeEntries(entry, this.#folder.uid, ['state', 'claim', 'reservation']);
      for (const { name, mtimeMs } of entries)
        if (mtimeMs < now - SWEEP_INTERVAL) await unlink(entry(name)).catch(() => {});
    });
  }
}

/** A file's modification time is its expiry: a sweep reads no file to know what to remove. */
async function expireAt(path: string, expiresAt: number): Promise<void> {
  const seconds = expiresAt / 1000;
  await utimes(path, seconds, seconds);
}
