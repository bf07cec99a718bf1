/**
 * The trusted cache folder on a real disk (src/cache/trusted-directory.ts): which folders it
 * refuses and why, entries read without following links and only when they are this user's alone,
 * written whole or not at all, the oldest let go past the bounds, and a failing write that fails
 * nothing. Every folder made here is removed when its test finishes.
 */
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { openTrustedDirectory, type TrustedDirectory } from '../../src/cache/trusted-directory.ts';

/** A folder of this test's own under the temporary folder (mkdtemp makes it 0700), removed after. */
function scratch(): string {
  const folder = mkdtempSync(join(tmpdir(), 'codemode-cache-'));
  onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
  return folder;
}

function trusted(path: string): TrustedDirectory {
  const opened = openTrustedDirectory(path, { create: true });
  if (!('directory' in opened)) throw new Error(`refused: ${opened.refused}`);
  return opened.directory;
}

const runningAsRoot = process.geteuid?.() === 0;

describe('which folders are trusted', () => {
  test('a missing folder is made 0700, its parents too, and trusted', () => {
    const path = join(scratch(), 'made', 'start');
    const directory = trusted(path);
    expect(directory.path).toBe(path);
    expect(statSync(path).mode & 0o777).toBe(0o700);
    expect(statSync(join(path, '..')).mode & 0o777).toBe(0o700);
  });

  test('a shared temporary folder is refused: it is not this user’s alone', () => {
    const opened = openTrustedDirectory(tmpdir(), { create: false });
    expect(opened).toMatchObject({ refused: expect.stringContaining(tmpdir()) });
  });

  test('a folder others may write to is refused, saying so', () => {
    const path = join(scratch(), 'open');
    mkdirSync(path);
    chmodSync(path, 0o777);
    expect(openTrustedDirectory(path, { create: true })).toStrictEqual({
      refused: `the cache folder ${path} may be written by other users (mode 777)`,
    });
  });

  test('a folder above it that others may write to is refused unless it is sticky', () => {
    const above = join(scratch(), 'above');
    mkdirSync(above);
    chmodSync(above, 0o777);
    const path = join(above, 'cache');
    expect(openTrustedDirectory(path, { create: true })).toStrictEqual({
      refused: `the cache folder ${above} may be written by other users (mode 777)`,
    });
    chmodSync(above, 0o1777);
    expect('directory' in openTrustedDirectory(path, { create: true })).toBe(true);
  });

  test.runIf(runningAsRoot)('a folder owned by another user is refused, saying whose it is', () => {
    const path = join(scratch(), 'theirs');
    mkdirSync(path, { mode: 0o700 });
    chownSync(path, 4242, 4242);
    expect(openTrustedDirectory(path, { create: false })).toStrictEqual({
      refused: `the cache folder ${path} is owned by user 4242, not by this process's user (0)`,
    });
  });

  test('a folder that cannot be made is refused with the reason', () => {
    const file = join(scratch(), 'a-file');
    writeFileSync(file, '');
    expect(openTrustedDirectory(join(file, 'cache'), { create: true })).toStrictEqual({
      refused: `the cache folder ${join(file, 'cache')} could not be made or read (ENOTDIR)`,
    });
  });
});

describe('entries', () => {
  test('an entry is written whole under its name, 0600, and read back; none is undefined', () => {
    const directory = trusted(scratch());
    expect(directory.read('entry', 100)).toBeUndefined();
    expect(directory.write('entry', [Buffer.from('head\n'), new Uint8Array([1, 2, 3])])).toBe(true);
    expect(readdirSync(directory.path)).toStrictEqual(['entry']);
    expect(statSync(join(directory.path, 'entry')).mode & 0o777).toBe(0o600);
    expect(directory.read('entry', 100)).toStrictEqual({ bytes: Buffer.from('head\n\x01\x02\x03') });
    // Written again: replaced whole.
    expect(directory.write('entry', [Buffer.from('new')])).toBe(true);
    expect(directory.read('entry', 100)).toStrictEqual({ bytes: Buffer.from('new') });
  });

  test('a link is not followed: the file it names is not read', () => {
    const directory = trusted(scratch());
    const elsewhere = join(scratch(), 'elsewhere');
    writeFileSync(elsewhere, 'not the cache');
    symlinkSync(elsewhere, join(directory.path, 'entry'));
    expect(directory.read('entry', 100)).toStrictEqual({ refused: 'the cache entry entry is a link' });
  });

  test('an entry others may write to, a folder in its place, or one past the bound is refused', () => {
    const directory = trusted(scratch());
    writeFileSync(join(directory.path, 'open'), 'x', { mode: 0o666 });
    chmodSync(join(directory.path, 'open'), 0o666);
    expect(directory.read('open', 100)).toStrictEqual({
      refused: "the cache entry open is another user's, or others may write to it",
    });
    mkdirSync(join(directory.path, 'folder'));
    expect(directory.read('folder', 100)).toMatchObject({ refused: expect.stringContaining('folder') });
    writeFileSync(join(directory.path, 'large'), 'x'.repeat(101), { mode: 0o600 });
    expect(directory.read('large', 100)).toStrictEqual({
      refused: 'the cache entry large holds 101 bytes, past 100',
    });
  });

  test('a write that fails answers false and leaves nothing behind', () => {
    const directory = trusted(scratch());
    // A folder with something in it where the entry goes: the rename over it fails.
    mkdirSync(join(directory.path, 'entry', 'inside'), { recursive: true });
    expect(directory.write('entry', [Buffer.from('bytes')])).toBe(false);
    expect(readdirSync(directory.path)).toStrictEqual(['entry']);
    // The folder gone from under it: the temporary file cannot even be made.
    rmSync(directory.path, { recursive: true });
    expect(directory.write('other', [Buffer.from('bytes')])).toBe(false);
    expect(existsSync(directory.path)).toBe(false);
  });

  test('remove takes the entry, a link in its place but not what it names, and is quiet when none is there', () => {
    // A folder inside the scratch folder, so that `..` below is the test's own and not the system's.
    const directory = trusted(join(scratch(), 'entries'));
    directory.write('entry', [Buffer.from('bytes')]);
    directory.remove('entry');
    expect(readdirSync(directory.path)).toStrictEqual([]);
    const elsewhere = join(scratch(), 'elsewhere');
    writeFileSync(elsewhere, 'not the cache');
    symlinkSync(elsewhere, join(directory.path, 'link'));
    directory.remove('link');
    expect(readdirSync(directory.path)).toStrictEqual([]);
    expect(readFileSync(elsewhere, 'utf8')).toBe('not the cache');
    directory.remove('entry');
    writeFileSync(join(directory.path, '..', 'outside'), 'kept');
    directory.remove('../outside');
    expect(readFileSync(join(directory.path, '..', 'outside'), 'utf8')).toBe('kept');
  });

  test('names that could leave the folder or pass as temporaries are not entries', () => {
    const directory = trusted(scratch());
    expect(directory.write('../outside', [Buffer.from('x')])).toBe(false);
    expect(directory.write('.tmp-1', [Buffer.from('x')])).toBe(false);
    expect(directory.read('../outside', 10)).toStrictEqual({
      refused: "../outside is not a cache entry's name",
    });
    expect(readdirSync(directory.path)).toStrictEqual([]);
  });
});

describe('eviction and clearing', () => {
  /** Writes entries a..e, a used longest ago. */
  function fiveEntries(): TrustedDirectory {
    const directory = trusted(scratch());
    const now = Date.now() / 1000;
    ['a', 'b', 'c', 'd', 'e'].forEach((name, index) => {
      directory.write(name, [Buffer.alloc(10)]);
      utimesSync(join(directory.path, name), now - 100 + index, now - 100 + index);
    });
    return directory;
  }

  test('past the count, the entries used longest ago go; one read is used now', () => {
    const directory = fiveEntries();
    expect(directory.read('a', 100)).toStrictEqual({ bytes: Buffer.alloc(10) });
    directory.evict({ maxEntries: 3, maxBytes: 1000 });
    expect(readdirSync(directory.path).sort()).toStrictEqual(['a', 'd', 'e']);
  });

  test('past the bytes, the oldest go, never the one to keep', () => {
    const directory = fiveEntries();
    directory.evict({ maxEntries: 10, maxBytes: 25 }, 'a');
    expect(readdirSync(directory.path).sort()).toStrictEqual(['a', 'e']);
  });

  test('a temporary file a writer that died left goes once it is stale; a fresh one stays', () => {
    const directory = fiveEntries();
    const stale = join(directory.path, '.tmp-1-dead');
    const fresh = join(directory.path, '.tmp-2-writing');
    writeFileSync(stale, 'half');
    writeFileSync(fresh, 'half');
    const hourAgo = Date.now() / 1000 - 3600;
    utimesSync(stale, hourAgo, hourAgo);
    directory.evict({ maxEntries: 10, maxBytes: 1000 });
    expect(existsSync(stale)).toBe(false);
    expect(readFileSync(fresh, 'utf8')).toBe('half');
  });

  test('clear removes every file and the folder, and says how much', () => {
    const directory = fiveEntries();
    expect(directory.clear()).toStrictEqual({ files: 5, bytes: 50 });
    expect(existsSync(directory.path)).toBe(false);
  });
});
