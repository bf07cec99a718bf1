/**
 * The journal store's folder checked at every use (store-folder.ts), not only when the bridge
 * starts: a folder opened to others, given to another user, or replaced by a link while the store
 * is in use is refused at the next write, read, claim and sweep, with the sentence startup refuses
 * it with, told once to whoever listens (the bridge's stderr) and used again once it holds.
 */
import {
  chmodSync,
  chownSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { FileJournalStore, JournalStoreError } from '../src/journal-store.ts';
import {
  journalStoreExposedMessage,
  journalStoreNotFolderMessage,
  journalStoreOwnerMessage,
} from '../src/texts.ts';
import { removeScratch, scratch } from './mcp-process.ts';

afterAll(() => removeScratch());

/** The store in a new folder, and what it told of refusals. */
async function opened(name: string): Promise<{ folder: string; store: FileJournalStore; told: string[] }> {
  const folder = join(scratch(), name);
  const told: string[] = [];
  // A clock standing still: no write reaches a sweep interval, so no sweep runs beside the test's
  // own uses (one passing its check would let the next refusal be told again).
  const store = await FileJournalStore.open(folder, process.getuid?.(), () => 0, {
    refused: (message) => told.push(message),
  });
  return { folder, store, told };
}

/** Every use of the store refused with `message`: a write, a read, a claim, a removal and a sweep. */
async function expectRefused(store: FileJournalStore, reference: string, message: string): Promise<void> {
  await expect(store.put('another token', Date.now() + 60_000)).rejects.toThrow(
    new JournalStoreError(message),
  );
  await expect(store.get(reference)).rejects.toThrow(new JournalStoreError(message));
  await expect(store.claim('a-token-id', Date.now() + 60_000)).rejects.toThrow(
    new JournalStoreError(message),
  );
  await expect(store.sweep()).rejects.toThrow(new JournalStoreError(message));
  await store.remove(reference);
}

describe('the store’s folder, changed after it was opened', () => {
  test('opened to its group or to others: refused at each use, told once, used again once closed', async () => {
    const { folder, store, told } = await opened('exposed');
    const reference = await store.put('the token', Date.now() + 60_000);
    for (const mode of [0o750, 0o1777]) {
      chmodSync(folder, mode);
      await expectRefused(store, reference, journalStoreExposedMessage(folder, mode & 0o777));
    }
    expect(told).toEqual([
      journalStoreExposedMessage(folder, 0o750),
      journalStoreExposedMessage(folder, 0o777),
    ]);
    // Nothing was written, nor removed, while it was refused.
    expect(readdirSync(folder)).toEqual([`state-${reference}`]);
    chmodSync(folder, 0o700);
    expect(await store.get(reference)).toBe('the token');
    expect(await store.claim('a-token-id', Date.now() + 60_000)).toBe(true);
    chmodSync(folder, 0o755);
    await expect(store.get(reference)).rejects.toThrow(journalStoreExposedMessage(folder, 0o755));
    // Told again: it held in between.
    expect(told).toHaveLength(3);
  });

  test('replaced by a link to a folder of its own: refused, and nothing read, written or swept through it', async () => {
    const { folder, store, told } = await opened('linked');
    const reference = await store.put('the token', Date.now() + 60_000);
    const moved = join(folder, '..', 'moved');
    renameSync(folder, moved);
    symlinkSync(moved, folder);
    // A file the sweep would remove, were it to follow the link: a claim long expired.
    writeFileSync(join(moved, 'claim-old'), '');
    utimesSync(join(moved, 'claim-old'), 1, 1);
    await expectRefused(store, reference, journalStoreNotFolderMessage(folder));
    expect(told).toEqual([journalStoreNotFolderMessage(folder)]);
    expect(readdirSync(moved).sort()).toEqual(['claim-old', `state-${reference}`]);
  });

  test('replaced by a file, or removed: refused, or the system’s error, never a state read', async () => {
    const { folder, store } = await opened('gone');
    const reference = await store.put('the token', Date.now() + 60_000);
    rmSync(folder, { recursive: true });
    await expect(store.get(reference)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(store.put('another', Date.now() + 60_000)).rejects.toMatchObject({ code: 'ENOENT' });
    writeFileSync(folder, '');
    await expect(store.get(reference)).rejects.toThrow(
      new JournalStoreError(journalStoreNotFolderMessage(folder)),
    );
    rmSync(folder);
    mkdirSync(folder, { mode: 0o700 });
    expect(await store.get(reference)).toBeUndefined();
  });

  test.skipIf(process.getuid?.() !== 0)(
    'given to another user: refused by its owner (root only: chown)',
    async () => {
      const { folder, store, told } = await opened('given');
      const reference = await store.put('the token', Date.now() + 60_000);
      chownSync(folder, 4242, 4242);
      await expectRefused(store, reference, journalStoreOwnerMessage(folder, 4242, 0));
      expect(told).toEqual([journalStoreOwnerMessage(folder, 4242, 0)]);
      chownSync(folder, 0, 0);
      expect(await store.get(reference)).toBe('the token');
    },
  );
});
