/**
 * The key ring: each rule refused at construction with its sentence, and key material that never
 * shows in what the ring prints or serializes.
 */
import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { expect, test } from 'vitest';
import { DurableKeyError, DurableKeyRing } from '../../src/durable/index.ts';
import * as texts from '../../src/durable/texts.ts';
import { KEY_A, KEY_B } from './fixtures.ts';

function refusal(options: unknown): DurableKeyError {
  try {
    new DurableKeyRing(options as never);
  } catch (error) {
    expect(error).toBeInstanceOf(DurableKeyError);
    return error as DurableKeyError;
  }
  throw new Error('the ring was accepted');
}

test('a key shorter than 32 bytes is refused with the rule, its length and how to make one', () => {
  const error = refusal({ keys: [{ id: 'a', key: randomBytes(31) }] });
  expect(error.message).toBe(texts.keyLengthMessage(0, 31));
  expect(error.message).toBe(
    "A durable key ring's keys[0].key has 31 bytes; a key needs at least 32 (256 bits, MIN_KEY_BYTES): make one with crypto.randomBytes(32).",
  );
  expect(error.code).toBe('BAD_REQUEST');
  expect(
    refusal({
      keys: [
        { id: 'a', key: KEY_A },
        { id: 'b', key: new Uint8Array(0) },
      ],
      current: 'a',
    }).message,
  ).toBe(texts.keyLengthMessage(1, 0));
});

test('a key longer than 32 bytes is accepted: every key is used through HKDF', () => {
  expect(new DurableKeyRing({ keys: [{ id: 'a', key: randomBytes(64) }] }).currentKeyId).toBe('a');
});

test('a passphrase is refused: a key is bytes', () => {
  const passphrase = 'correct horse battery staple, long enough';
  const error = refusal({ keys: [{ id: 'a', key: passphrase }] });
  expect(error.message).toBe(texts.keyBytesMessage(0));
  expect(error.message).not.toContain(passphrase);
});

test.each([
  ['no options', undefined, texts.KEY_RING_SHAPE_MESSAGE],
  ['no keys', { keys: [] }, texts.KEY_RING_SHAPE_MESSAGE],
  ['keys not a list', { keys: { id: 'a', key: KEY_A } }, texts.KEY_RING_SHAPE_MESSAGE],
  ['a key not an object', { keys: [null] }, texts.KEY_RING_SHAPE_MESSAGE],
  ['an empty id', { keys: [{ id: '', key: KEY_A }] }, texts.keyIdMessage(0)],
  ['an id with a space', { keys: [{ id: 'key one', key: KEY_A }] }, texts.keyIdMessage(0)],
  ['an id of 65 characters', { keys: [{ id: 'k'.repeat(65), key: KEY_A }] }, texts.keyIdMessage(0)],
  [
    'an id twice',
    {
      keys: [
        { id: 'a', key: KEY_A },
        { id: 'a', key: KEY_B },
      ],
      current: 'a',
    },
    texts.duplicateKeyIdMessage(1),
  ],
  [
    'two keys and no current',
    {
      keys: [
        { id: 'a', key: KEY_A },
        { id: 'b', key: KEY_B },
      ],
    },
    texts.CURRENT_KEY_REQUIRED_MESSAGE,
  ],
  [
    'a current key not listed',
    { keys: [{ id: 'a', key: KEY_A }], current: 'b' },
    texts.CURRENT_KEY_UNKNOWN_MESSAGE,
  ],
])('%s is refused', (_name, options, message) => {
  expect(refusal(options).message).toBe(message);
});

test('the ring names its current key and every id, in order', () => {
  const ring = new DurableKeyRing({
    keys: [
      { id: '2026-12.b', key: KEY_B },
      { id: '2026-11_a', key: KEY_A },
    ],
    current: '2026-11_a',
  });
  expect(ring.currentKeyId).toBe('2026-11_a');
  expect(ring.keyIds).toStrictEqual(['2026-12.b', '2026-11_a']);
  expect(Object.isFrozen(ring.keyIds)).toBe(true);
});

test('no key material shows in what the ring prints or serializes', () => {
  const ring = new DurableKeyRing({ keys: [{ id: 'a', key: KEY_A }] });
  const printed = `${inspect(ring, { depth: 10, showHidden: true })}${JSON.stringify(ring)}${String(ring)}`;
  for (const encoding of ['hex', 'base64', 'base64url', 'latin1'] as const) {
    expect(printed).not.toContain(KEY_A.toString(encoding).slice(0, 16));
  }
  expect(Object.getOwnPropertySymbols(ring)).toStrictEqual([]);
});

test('the ring copies the key: wiping the caller’s buffer afterwards changes nothing it seals', async () => {
  const { DurableTokens } = await import('../../src/durable/index.ts');
  const { binding } = await import('./fixtures.ts');
  const key = Buffer.from(KEY_A);
  const ring = new DurableKeyRing({ keys: [{ id: 'a', key }] });
  const { token } = new DurableTokens({ keys: ring }).seal({ journal: [] }, binding());
  key.fill(0);
  const reopened = new DurableTokens({ keys: new DurableKeyRing({ keys: [{ id: 'a', key: KEY_A }] }) });
  expect((await reopened.open(token, binding())).keyId).toBe('a');
});
