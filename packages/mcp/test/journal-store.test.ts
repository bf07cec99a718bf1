/**
 * The journal store's folder (journal-store.ts) on the real filesystem: what it refuses before a
 * byte is kept (a folder others may enter, a link), a token kept and read back by its reference
 * until it expires, a claim made once, and the requestState's reading of what a client echoes
 * (request-state.ts) before any of it reaches the executor.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { FileJournalStore } from '../src/journal-store.ts';
import { decodeRequestState, encodeRequestState, REQUEST_STATE_LIMIT } from '../src/request-state.ts';
import {
  journalStoreExposedMessage,
  journalStoreNotFolderMessage,
  journalStoreOwnerMessage,
} from '../src/texts.ts';
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

  test('reads no link, FIFO or folder planted under a reference, and claims nothing a link holds', async () => {
    const folder = join(scratch(), 'planted');
    const store = await FileJournalStore.open(folder);
    const kept = await store.put('the token', Date.now() + 60_000);
    const [link, fifo, directory] = ['L', 'F', 'D'].map((letter) => letter.repeat(22)) as [
      string,
      string,
      string,
    ];
    symlinkSync(join(folder, `state-${kept}`), join(folder, `state-${link}`));
    // A FIFO blocks an open for reading until a writer comes: none ever does here.
    execFileSync('mkfifo', [join(folder, `state-${fifo}`)]);
    mkdirSync(join(folder, `state-${directory}`));
    expect(await Promise.all([link, fifo, directory].map((reference) => store.get(reference)))).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(await store.get(kept)).toBe('the token');
    // Whoever can write the folder can spend a token before its run resumes (docs/threat-model.md).
    symlinkSync('/nonexistent', join(folder, 'claim-planted'));
    expect(await store.claim('planted', Date.now() + 60_000)).toBe(false);
  });

  test('refuses a folder that another user owns, or that its group or others may write', async () => {
    const group = join(scratch(), 'group');
    mkdirSync(group);
    chmodSync(group, 0o770);
    await expect(FileJournalStore.open(group)).rejects.toThrow(journalStoreExposedMessage(group, 0o770));
    const world = join(scratch(), 'world');
    mkdirSync(world);
    chmodSync(world, 0o1777);
    await expect(FileJournalStore.open(world)).rejects.toThrow(journalStoreExposedMessage(world, 0o777));
    const foreign = join(scratch(), 'foreign');
    mkdirSync(foreign, { mode: 0o700 });
    const uid = process.getuid?.() ?? 0;
    await expect(FileJournalStore.open(foreign, uid + 1)).rejects.toThrow(
      journalStoreOwnerMessage(foreign, uid, uid + 1),
    );
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
