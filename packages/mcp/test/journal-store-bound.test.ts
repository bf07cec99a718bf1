/**
 * The journal store's bound on its kept states' bytes (store-bound.ts) on the real filesystem, as
 * an attacker would try it: many writes racing the bound in one process and across two stores
 * sharing the folder (two bridges), a write renamed while another counts, one state larger than
 * the whole bound, expired states made room of and live ones never, and files planted in the
 * folder that are not the store's (other names, another user's files under the store's names)
 * neither counted, read nor removed.
 */
import {
  chmodSync,
  chownSync,
  mkdirSync,
  readdirSync,
  renameSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { FileJournalStore, JournalStoreFullError } from '../src/journal-store.ts';
import { storeEntries } from '../src/store-bound.ts';
import { removeScratch, scratch } from './mcp-process.ts';
import { storeContents } from './store-contents.ts';

afterAll(() => removeScratch());

const TOKEN = 't'.repeat(10_000);
/** What one state of TOKEN expiring at `expiresAt` takes on disk. */
const stateBytes = (expiresAt: number) => JSON.stringify({ expiresAt, token: TOKEN }).length;

describe('the bound on the states kept', () => {
  test('twenty writes racing a bound of five keep five, and refuse the rest by the bound', async () => {
    const now = 1_000_000;
    const expiresAt = now + 60_000;
    const folder = join(scratch(), 'race');
    const limit = 5 * stateBytes(expiresAt);
    const store = await FileJournalStore.open(folder, process.getuid?.(), () => now, { bytes: limit });
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => store.put(TOKEN, expiresAt)));
    const kept = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    expect(kept).toHaveLength(5);
    for (const outcome of outcomes)
      if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(JournalStoreFullError);
    expect(storeContents(folder)).toEqual({ bytes: limit, states: 5, reservations: 0 });
    for (const outcome of kept)
      expect(await store.get((outcome as PromiseFulfilledResult<string>).value)).toBe(TOKEN);
  });

  test('two stores sharing the folder, as two bridges do, never pass the bound together', async () => {
    const now = 1_000_000;
    const expiresAt = now + 60_000;
    const folder = join(scratch(), 'two');
    const limit = 4 * stateBytes(expiresAt);
    const [first, second] = await Promise.all(
      [0, 1].map(() => FileJournalStore.open(folder, process.getuid?.(), () => now, { bytes: limit })),
    );
    const outcomes = await Promise.allSettled(
      Array.from({ length: 16 }, (_, index) =>
        ((index % 2 === 0 ? first : second) as FileJournalStore).put(TOKEN, expiresAt),
      ),
    );
    const { bytes, states, reservations } = storeContents(folder);
    expect(bytes).toBeLessThanOrEqual(limit);
    expect(states).toBe(outcomes.filter((outcome) => outcome.status === 'fulfilled').length);
    // Each store reserves one state at a time, so at most two reservations are counted beside the
    // kept states: both may be refused only while the kept ones hold more than two states' room.
    expect(states).toBeGreaterThanOrEqual(3);
    expect(reservations).toBe(0);
  });

  test('a reservation renamed to its state between the listing and its look is counted as that state', async () => {
    const folder = join(scratch(), 'renamed');
    mkdirSync(folder, { mode: 0o700 });
    const reference = 'R'.repeat(22);
    const reservation = `.state-${reference}.0123456789abcdef.tmp`;
    writeFileSync(join(folder, reservation), '');
    truncateSync(join(folder, reservation), 4096);
    // Another bridge's write ends just after the listing: the rename comes before the look.
    let renamed = false;
    const entry = (name: string) => {
      if (name === reservation && !renamed) {
        renameSync(join(folder, reservation), join(folder, `state-${reference}`));
        renamed = true;
      }
      return join(folder, name);
    };
    const entries = await storeEntries(entry, process.getuid?.(), ['state', 'reservation']);
    expect(entries.map(({ name, kind, bytes }) => ({ name, kind, bytes }))).toEqual([
      { name: `state-${reference}`, kind: 'state', bytes: 4096 },
    ]);
  });

  test('one state larger than the whole bound is refused before a byte is kept', async () => {
    const folder = join(scratch(), 'huge');
    const store = await FileJournalStore.open(folder, process.getuid?.(), Date.now, { bytes: 1000 });
    const refused = store.put(TOKEN, Date.now() + 60_000);
    await expect(refused).rejects.toBeInstanceOf(JournalStoreFullError);
    await expect(refused).rejects.toThrow(new JournalStoreFullError(1000).message);
    expect(readdirSync(folder)).toEqual([]);
  });

  test('expired states make room, earliest first; a live one is never removed for it', async () => {
    let now = 1_000_000;
    const folder = join(scratch(), 'expired');
    const limit = 3 * stateBytes(now + 10_000);
    const store = await FileJournalStore.open(folder, process.getuid?.(), () => now, { bytes: limit });
    const early = await store.put(TOKEN, now + 10_000);
    const later = await store.put(TOKEN, now + 20_000);
    const live = await store.put(TOKEN, now + 90_000);
    await expect(store.put(TOKEN, now + 90_000)).rejects.toBeInstanceOf(JournalStoreFullError);
    now += 15_000;
    // `early` has expired: its room is the new state's, and `later` stays, still live.
    const first = await store.put(TOKEN, now + 90_000);
    expect(readdirSync(folder).sort()).toEqual([`state-${first}`, `state-${later}`, `state-${live}`].sort());
    expect(await store.get(early)).toBeUndefined();
    // Nothing has expired now: the next is refused, and every live state is still read back.
    await expect(store.put(TOKEN, now + 90_000)).rejects.toBeInstanceOf(JournalStoreFullError);
    for (const reference of [later, live, first]) expect(await store.get(reference)).toBe(TOKEN);
    expect(storeContents(folder).reservations).toBe(0);
  });
});

describe('files in the folder that are not the store’s', () => {
  test('other names are neither counted nor removed, however large or old', async () => {
    let now = 1_000_000;
    const folder = join(scratch(), 'names');
    const limit = 2 * stateBytes(now + 1000);
    const store = await FileJournalStore.open(folder, process.getuid?.(), () => now, { bytes: limit });
    const planted = [
      'notes.txt',
      'state-short',
      'state-AAAAAAAAAAAAAAAAAAAAAA.bak',
      '.state-x.tmp',
      'claim-',
    ];
    for (const name of planted) {
      const path = join(folder, name);
      writeFileSync(path, '');
      truncateSync(path, 1024 * 1024 * 1024);
      utimesSync(path, 1, 1);
    }
    expect(await store.put(TOKEN, now + 1000)).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(await store.put(TOKEN, now + 1000)).toMatch(/^[A-Za-z0-9_-]{22}$/);
    now += 10 * 60_000;
    // Both states expired: the bound removes them to make room, and a sweep what is long expired.
    const third = await store.put(TOKEN, now + 1000);
    await store.sweep();
    expect(readdirSync(folder).sort()).toEqual([...planted, `state-${third}`].sort());
  });

  test.skipIf(process.getuid?.() !== 0)(
    "another user's files under the store's names are not counted, read or removed (root only: chown)",
    async () => {
      let now = 1_000_000;
      const folder = join(scratch(), 'foreign');
      const limit = 2 * stateBytes(now + 1000);
      const store = await FileJournalStore.open(folder, 0, () => now, { bytes: limit });
      const kept = await store.put(TOKEN, now + 1000);
      const foreign = 'F'.repeat(22);
      const state = join(folder, `state-${foreign}`);
      writeFileSync(state, JSON.stringify({ expiresAt: now + 60_000, token: 'planted' }), { mode: 0o600 });
      const reservation = join(folder, `.state-${foreign}.0123456789abcdef.tmp`);
      writeFileSync(reservation, '');
      truncateSync(reservation, 1024 * 1024 * 1024);
      for (const path of [state, reservation]) {
        chownSync(path, 4242, 4242);
        utimesSync(path, 1, 1);
      }
      expect(await store.get(foreign)).toBeUndefined();
      expect(await store.get(kept)).toBe(TOKEN);
      // The planted gigabyte is not counted: a second state fits.
      await store.put(TOKEN, now + 1000);
      now += 10 * 60_000;
      await store.put(TOKEN, now + 1000);
      await store.sweep();
      expect(readdirSync(folder)).toEqual(
        expect.arrayContaining([`state-${foreign}`, reservation.slice(folder.length + 1)]),
      );
    },
  );

  test('a state of this user that others may read is not read back', async () => {
    const folder = join(scratch(), 'mode');
    const store = await FileJournalStore.open(folder);
    const reference = await store.put('the token', Date.now() + 60_000);
    const path = join(folder, `state-${reference}`);
    chmodSync(path, 0o644);
    expect(await store.get(reference)).toBeUndefined();
    chmodSync(path, 0o600);
    expect(await store.get(reference)).toBe('the token');
  });
});
