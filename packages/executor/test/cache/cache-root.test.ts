/**
 * Where the caches live and the switch that turns them off (src/cache/cache-root.ts), and the
 * `cache` option resolved to a folder (src/cache/cache-option.ts): read from environments the test
 * writes, never the process's own, and made only in folders the test makes and removes.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { CACHE_REFUSED_WARNING, cacheFolder } from '../../src/cache/cache-option.ts';
import { CACHE_FOLDER_NAME, cacheRoot } from '../../src/cache/cache-root.ts';

describe('the cache root', () => {
  test('the user’s cache folder by default, XDG_CACHE_HOME when it is absolute', () => {
    expect(cacheRoot({ HOME: homedir() })).toBe(join(homedir(), '.cache', CACHE_FOLDER_NAME));
    expect(cacheRoot({ XDG_CACHE_HOME: '/var/cache/me' })).toBe(join('/var/cache/me', CACHE_FOLDER_NAME));
    expect(cacheRoot({ XDG_CACHE_HOME: 'relative' })).toBe(join(homedir(), '.cache', CACHE_FOLDER_NAME));
  });

  test('CODEMODE_CACHE_DIR names another folder; CODEMODE_CACHE=off turns every cache off', () => {
    expect(cacheRoot({ CODEMODE_CACHE_DIR: '/srv/codemode', XDG_CACHE_HOME: '/x' })).toBe('/srv/codemode');
    for (const off of ['off', 'OFF', '0', 'false', 'no']) {
      expect(cacheRoot({ CODEMODE_CACHE: off, CODEMODE_CACHE_DIR: '/srv/codemode' })).toBeUndefined();
    }
    expect(cacheRoot({ CODEMODE_CACHE: 'on', CODEMODE_CACHE_DIR: '/srv/codemode' })).toBe('/srv/codemode');
  });
});

describe('the cache option', () => {
  function scratch(): string {
    const folder = mkdtempSync(join(tmpdir(), 'codemode-cache-option-'));
    onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
    return folder;
  }

  test('false keeps nothing; a directory wins over the switch; true follows the environment', () => {
    const root = scratch();
    expect(cacheFolder(false, 'start', { CODEMODE_CACHE_DIR: root })).toBeUndefined();
    expect(cacheFolder(true, 'start', { CODEMODE_CACHE: 'off', CODEMODE_CACHE_DIR: root })).toBeUndefined();
    expect(cacheFolder({ directory: root }, 'start', { CODEMODE_CACHE: 'off' })).toBe(join(root, 'start'));
    expect(statSync(join(root, 'start')).mode & 0o777).toBe(0o700);
    expect(cacheFolder(undefined, 'other', { CODEMODE_CACHE_DIR: root })).toBe(join(root, 'other'));
  });

  test('a folder that fails its checks turns the cache off with one warning saying why', async () => {
    const root = join(scratch(), 'open');
    mkdirSync(root);
    chmodSync(root, 0o777);
    const warnings: Error[] = [];
    const listen = (warning: Error) => warnings.push(warning);
    process.on('warning', listen);
    onTestFinished(() => {
      process.off('warning', listen);
    });
    // The children's compiled code is refused quietly, and leaves the one warning to the start's:
    // refused first, in a folder of its own, it would have taken the warning with its own folder's name.
    const elsewhere = join(scratch(), 'open-too');
    mkdirSync(elsewhere);
    chmodSync(elsewhere, 0o777);
    expect(cacheFolder({ directory: elsewhere }, 'compile', process.env, { quiet: true })).toBeUndefined();
    expect(cacheFolder({ directory: root }, 'start')).toBeUndefined();
    expect(cacheFolder({ directory: root }, 'start')).toBeUndefined();
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.map((warning) => [(warning as { code?: string }).code, warning.message])).toStrictEqual([
      [
        CACHE_REFUSED_WARNING,
        `The cache on disk is off for this process: the cache folder ${root} may be written by other users (mode 777).`,
      ],
    ]);
  });
});
