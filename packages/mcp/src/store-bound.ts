/**
 * The journal store's bound on the bytes its kept states take together (`journalStoreBytes`), so
 * that a client opening approval round after round cannot fill the disk. The folder is shared by
 * bridge instances, so the bound is counted from the folder itself, never from what one process
 * remembers: a writer first reserves its state's size (a file made at that length, sparse, so no
 * byte is written yet), then counts every state and reservation in the folder, its own included.
 * Of two writers racing, whichever counts last sees both, so together they never pass the bound;
 * at worst both refuse. When the count is past the bound, expired states go first (their tokens
 * resume nothing), then abandoned reservations; a live state is never removed to make room.
 *
 * Only the store's own files count: regular files of the bridge's user under a name the store
 * makes. Anything else in the folder is neither counted, read nor removed.
 */
import { lstat, readdir, unlink } from 'node:fs/promises';
import { REFERENCE_PATTERN } from './request-state.ts';

/** How long a reservation may go unwritten before it is taken for one whose writer died. */
export const ABANDONED_AFTER = 60_000;

export type EntryKind = 'state' | 'claim' | 'reservation';

/** A token id as the executor makes it (base64url of 16 bytes): a file name with nothing to escape. */
export const TOKEN_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

const RESERVATION_PATTERN = /^\.state-[A-Za-z0-9_-]{22}\.[0-9a-f]{16}\.tmp$/;

/** The kind of store file `name` is, or undefined for a name the store never makes. */
export function kindOf(name: string): EntryKind | undefined {
  if (name.startsWith('state-')) return REFERENCE_PATTERN.test(name.slice(6)) ? 'state' : undefined;
  if (name.startsWith('claim-')) return TOKEN_ID_PATTERN.test(name.slice(6)) ? 'claim' : undefined;
  return RESERVATION_PATTERN.test(name) ? 'reservation' : undefined;
}

export interface StoreEntry {
  readonly name: string;
  readonly kind: EntryKind;
  readonly bytes: number;
  /** The file's modification time: a state's and a claim's expiry, a reservation's last write. */
  readonly mtimeMs: number;
}

/** The store's own files among the folder's entries, of the kinds asked for. */
export async function storeEntries(
  entry: (name: string) => string,
  uid: number | undefined,
  kinds: readonly EntryKind[],
): Promise<StoreEntry[]> {
  const entries: StoreEntry[] = [];
  const names = await readdir(entry('.'));
  const listed = new Set(names);
  for (const name of names) {
    const kind = kindOf(name);
    if (kind === undefined || !kinds.includes(kind)) continue;
    let found = { name, kind, stat: await lstat(entry(name)).catch(() => undefined) };
    // A reservation listed, then renamed to its state before it was looked at: the state it
    // became holds the same bytes, and would otherwise be counted under neither name.
    const state = kind === 'reservation' ? `state-${name.slice(7, 29)}` : undefined;
    if (found.stat === undefined && state !== undefined && kinds.includes('state') && !listed.has(state))
      found = { name: state, kind: 'state', stat: await lstat(entry(state)).catch(() => undefined) };
    const { stat } = found;
    if (!stat?.isFile() || (uid !== undefined && stat.uid !== uid)) continue;
    entries.push({ name: found.name, kind: found.kind, bytes: stat.size, mtimeMs: stat.mtimeMs });
  }
  return entries;
}

/**
 * Whether the folder's states and reservations (the caller's own made already) fit `limit` bytes,
 * after removing, earliest first, expired states and abandoned reservations as far as needed.
 */
export async function makeRoom(
  entry: (name: string) => string,
  uid: number | undefined,
  limit: number,
  now: number,
): Promise<boolean> {
  const entries = await storeEntries(entry, uid, ['state', 'reservation']);
  let total = entries.reduce((sum, { bytes }) => sum + bytes, 0);
  if (total <= limit) return true;
  const removable = entries
    .filter(({ kind, mtimeMs }) => (kind === 'state' ? mtimeMs <= now : mtimeMs < now - ABANDONED_AFTER))
    .sort((a, b) => a.mtimeMs - b.mtimeMs);
  for (const { name, bytes } of removable) {
    try {
      await unlink(entry(name));
    } catch (error) {
      // Gone already (another bridge made room too): its bytes are free all the same.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') continue;
    }
    total -= bytes;
    if (total <= limit) return true;
  }
  return false;
}
