/**
 * The journal store's folder (journal-store.ts) on the real filesystem: what it refuses before a
 * byte is kept (a folder others may enter, a link), a token kept and read back by its reference
 * until it expires, a claim made once, and the requestState's reading of what a client echoes
 * (request-state.ts) before any of it reaches the executor.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { FileJournalStore } from '../src/journal-store.ts';
import { decodeRequestState, encodeRequestState, REQUEST_STATE_LIMIT } from '../src/request-state.ts';
import { journalStoreExposedMessage, journalStoreNotFolderMessage } from '../src/texts.ts';
import { removeScratch, scratch } from './mcp-process.ts';

afterAll(() => removeScratch());

describe('the journal store', () => {
  test('is made mode 0700, keeps a token under a reference until it expires, and claims once', async () => {
    let now = 1_000_000;
    const folder = join(scratch(), 'journal');
    const store = await FileJournalStore.open(folder, process.getuid?.(), () => now);
    expect(lstatSync(folder).mode & 0o777).toBe(0o700);
    const reference = await store.put('the token', now + 1000);
    expect(reference).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(await store.get(reference)).toBe('the token');
    const [file] = readdirSync(folder);
    expect(lstatSync(join(folder, file as string)).mode & 0o777).toBe(0o600);
    expect(await store.get('AAAAAAAAAAAAAAAAAAAAAA')).toBeUndefined();
    expect(await store.get('../escape')).toBeUndefined();
    now += 1000;
    expect(await store.get(reference)).toBeUndefined();
    expect(await store.claim('token-1', now + 1000)).toBe(true);
    expect(await store.claim('token-1', now + 1000)).toBe(false);
    expect(await store.claim('token-2', now + 1000)).toBe(true);
  });

  test('refuses a folder others may enter, and a link in the folder’s place', async () => {
    const exposed = join(scratch(), 'exposed');
    mkdirSync(exposed);
    chmodSync(exposed, 0o755);
    await expect(FileJournalStore.open(exposed)).rejects.toThrow(journalStoreExposedMessage(exposed, 0o755));
    const link = join(scratch(), 'link');
    symlinkSync(exposed, link);
    await expect(FileJournalStore.open(link)).rejects.toThrow(journalStoreNotFolderMessage(link));
  });
});

describe('a requestState read back', () => {
  test('round-trips the pending calls and the token or the reference', () => {
    const pending = [
      { sequence: 2, asked: true },
      { sequence: 5, asked: false },
    ];
    expect(decodeRequestState(encodeRequestState({ pending, token: 'cmdt.x.y' }))).toEqual({
      pending,
      token: 'cmdt.x.y',
    });
    const reference = 'A'.repeat(22);
    expect(decodeRequestState(encodeRequestState({ pending, reference }))).toEqual({ pending, reference });
  });

  test('refuses, by a reason, whatever is not one, the length first', () => {
    expect(decodeRequestState(42)).toBe('it is not a string');
    expect(decodeRequestState(`cma1.1a.t${'x'.repeat(REQUEST_STATE_LIMIT)}`)).toBe(
      `it is longer than ${REQUEST_STATE_LIMIT} characters`,
    );
    expect(decodeRequestState('cmb1.1a.tx')).toBe('it is not one this bridge made');
    for (const list of ['', '0a', '1x', '1a,1a', `${'1a,'.repeat(300)}1a`, '1234567890a'])
      expect(decodeRequestState(`cma1.${list}.tx`)).toBe('its list of pending calls is not one');
    expect(decodeRequestState('cma1.1a')).toBe('it is cut short');
    expect(decodeRequestState('cma1.1a.t')).toBe('it is cut short');
    expect(decodeRequestState('cma1.1a.r../../etc')).toBe('it is cut short');
  });
});
