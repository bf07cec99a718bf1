/**
 * Where a serving process finds its durable key ring (src/serving/durable-keys.ts): the text of
 * an environment variable or a file, `id=base64` entries with `*` before the current one, refused
 * with a sentence naming the source and never repeating a key.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import {
  DURABLE_KEYS_ENV,
  DURABLE_KEYS_FILE_ENV,
  DurableKeysSourceError,
  parseDurableKeys,
  readDurableKeys,
} from '../../src/serving/durable-keys.ts';

const A = Buffer.alloc(32, 1).toString('base64');
const B = Buffer.alloc(48, 2).toString('base64url');
const dir = mkdtempSync(join(tmpdir(), 'durable-keys-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the key ring text', () => {
  test('one key is current without a mark; of several, the marked one', () => {
    expect(parseDurableKeys(`2026-12=${A}`, 'test').currentKeyId).toBe('2026-12');
    const ring = parseDurableKeys(`2026-06=${A},\n *2026-12=${B}\n`, 'test');
    expect(ring.currentKeyId).toBe('2026-12');
    expect(ring.keyIds).toStrictEqual(['2026-06', '2026-12']);
  });

  test('refuses, naming the source and never the key: no key, no id, not base64, two current, too short, no current', () => {
    const refusal = (text: string) => {
      try {
        parseDurableKeys(text, 'SOURCE');
      } catch (error) {
        expect((error as Error).message).not.toContain(A);
        return error as Error;
      }
      throw new Error('not refused');
    };
    expect(refusal(' , ')).toBeInstanceOf(DurableKeysSourceError);
    expect(refusal(A).message).toMatch(/^SOURCE: key 1 is not written id=base64/);
    expect(refusal(A.replace('=', '')).message).toMatch(/^SOURCE: key 1 is not written id=base64/);
    expect(refusal('k=not base64!').message).toBe(
      'SOURCE: key 1 is not written id=base64 (its key is not base64).',
    );
    expect(refusal(`*a=${A},*b=${A}`).message).toBe('SOURCE marks more than one key current.');
    expect(refusal(`a=${Buffer.alloc(16).toString('base64')}`).message).toMatch(
      /^SOURCE: A durable key ring's keys\[0\]\.key has 16 bytes/,
    );
    expect(refusal(`a=${A},b=${A}`).message).toMatch(/^SOURCE: .*current/);
  });
});

describe('the sources', () => {
  test('the environment variable, or the file, and never both', async () => {
    expect(await readDurableKeys({})).toBeUndefined();
    expect((await readDurableKeys({ [DURABLE_KEYS_ENV]: `k=${A}` }))?.currentKeyId).toBe('k');
    const file = join(dir, 'keys');
    writeFileSync(file, `*new=${B}\nold=${A}\n`);
    expect((await readDurableKeys({ [DURABLE_KEYS_FILE_ENV]: file }))?.currentKeyId).toBe('new');
    expect((await readDurableKeys({}, file))?.keyIds).toStrictEqual(['new', 'old']);
    await expect(readDurableKeys({ [DURABLE_KEYS_ENV]: `k=${A}` }, file)).rejects.toThrow(
      `Both ${DURABLE_KEYS_ENV} and a durable keys file are set; keep one of them.`,
    );
    await expect(readDurableKeys({}, join(dir, 'missing'))).rejects.toThrow(
      /^Cannot read the durable keys file .*: ENOENT\.$/,
    );
  });
});
