/**
 * Sealing and opening durable tokens with real keys and real AES-256-GCM: the round trip, key
 * rotation, and every way a token is refused, each with its code and its sentence verbatim.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { TOKEN_PREFIX } from '../../src/durable/format.ts';
import {
  DEFAULT_TTL,
  DurableKeyRing,
  DurableTokenError,
  DurableTokens,
  MAX_JOURNAL_LENGTH,
  MAX_TOKEN_SIZE,
  MAX_TTL,
  MemoryClaimStore,
  OpenedToken,
} from '../../src/durable/index.ts';
import { type DerivedKeys, findKeys } from '../../src/durable/keys.ts';
import * as texts from '../../src/durable/texts.ts';
import {
  binding,
  bytesOf,
  JOURNAL,
  KEY_A,
  KEY_B,
  manualClock,
  refusal,
  ring,
  textOf,
  tokens,
} from './fixtures.ts';

/** Where the fields of a token whose key id is one character long start (format.ts). */
const AT = {
  version: 0,
  keyIdLength: 1,
  keyId: 2,
  tokenId: 3,
  nonce: 19,
  issuedAt: 31,
  expiresAt: 37,
  fingerprints: 43,
  ciphertextLength: 139,
  ciphertext: 143,
};

describe('round trip', () => {
  test('a sealed journal, state and bytes open as they were sealed', async () => {
    const clock = manualClock();
    const service = tokens({ now: clock.read });
    const bytes = randomBytes(1000);
    const state = { seed: 42, pending: [{ provider: 'billing', tool: 'refund', args: { id: 7 } }] };
    const sealed = service.seal({ journal: JOURNAL, state, bytes }, binding());
    expect(sealed.token.startsWith(TOKEN_PREFIX)).toBe(true);
    expect(sealed.token.slice(TOKEN_PREFIX.length)).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(sealed.issuedAt).toBe(clock.now);
    expect(sealed.expiresAt).toBe(clock.now + DEFAULT_TTL);
    expect(sealed.tokenId).toMatch(/^[A-Za-z0-9_-]{22}$/);

    const opened = await service.open(sealed.token, binding());
    expect(opened.contents).toStrictEqual({ journal: JOURNAL, state, bytes: new Uint8Array(bytes) });
    expect(opened.tokenId).toBe(sealed.tokenId);
    expect(opened.keyId).toBe('a');
    expect(opened.issuedAt).toBe(sealed.issuedAt);
    expect(opened.expiresAt).toBe(sealed.expiresAt);
  });

  test('a journal alone opens without state or bytes; empty bytes come back absent', async () => {
    const service = tokens();
    const plain = await service.open(service.seal({ journal: [] }, binding()).token, binding());
    expect(plain.contents).toStrictEqual({ journal: [] });
    const empty = await service.open(
      service.seal({ journal: [1], bytes: new Uint8Array(0) }, binding()).token,
      binding(),
    );
    expect(empty.contents).toStrictEqual({ journal: [1] });
  });

  test('the same contents seal into a different token each time: a new id, nonce and key', () => {
    const service = tokens();
    const first = service.seal({ journal: JOURNAL }, binding());
    const second = service.seal({ journal: JOURNAL }, binding());
    expect(first.tokenId).not.toBe(second.tokenId);
    const [a, b] = [bytesOf(first.token), bytesOf(second.token)];
    expect(a.subarray(AT.nonce, AT.issuedAt).equals(b.subarray(AT.nonce, AT.issuedAt))).toBe(false);
    expect(a.subarray(AT.ciphertext).equals(b.subarray(AT.ciphertext))).toBe(false);
  });

  test('the journal is not readable in the token: neither its text nor its base64 appears', () => {
    const secret = 'sk_live_do_not_leak_0123456789';
    const { token } = tokens().seal({ journal: [{ returned: secret }] }, binding());
    expect(token).not.toContain(secret);
    expect(bytesOf(token).includes(secret)).toBe(false);
    expect(bytesOf(token).includes(binding().principal)).toBe(false);
  });

  test('a ttl of its own sets the expiry', () => {
    const clock = manualClock();
    const sealed = tokens({ ttl: 5000, now: clock.read }).seal({ journal: [] }, binding());
    expect(sealed.expiresAt).toBe(clock.now + 5000);
  });

  test('a binding of the wrong shape is the caller’s TypeError, on seal and open', async () => {
    const service = tokens();
    const { token } = service.seal({ journal: [] }, binding());
    expect(() => service.seal({ journal: [] }, { ...binding(), principal: 7 as unknown as string })).toThrow(
      TypeError,
    );
    await expect(service.open(token, { ...binding(), request: { code: () => 1 } })).rejects.toThrow(
      TypeError,
    );
    expect(() => service.seal({ journal: 'x' as unknown as [] }, binding())).toThrow(texts.CONTENTS_MESSAGE);
    expect(() => service.seal({ journal: [10n] }, binding())).toThrow(texts.CONTENTS_JSON_MESSAGE);
  });
});

describe('options', () => {
  test('a ttl or journal bound out of range is refused with its rule', () => {
    for (const ttl of [0, -1, 1.5, MAX_TTL + 1, Number.NaN]) {
      expect(() => tokens({ ttl })).toThrow(texts.TTL_MESSAGE);
    }
    for (const maxJournalLength of [0, MAX_JOURNAL_LENGTH + 1, 2.5]) {
      expect(() => tokens({ maxJournalLength })).toThrow(texts.JOURNAL_LENGTH_OPTION_MESSAGE);
    }
    expect(() => new DurableTokens({ keys: { currentKeyId: 'a', keyIds: ['a'] } as never })).toThrow(
      TypeError,
    );
  });
});

describe('key rotation', () => {
  test('a token sealed with the old key opens once the new key is current, and not once the old key is gone', async () => {
    const before = new DurableTokens({ keys: ring(['old', KEY_A]) });
    const sealed = before.seal({ journal: JOURNAL }, binding());

    const during = new DurableTokens({ keys: ring(['new', KEY_B], ['old', KEY_A]) });
    const opened = await during.open(sealed.token, binding());
    expect(opened.keyId).toBe('old');
    expect(opened.contents.journal).toStrictEqual(JOURNAL);
    const fresh = during.seal({ journal: [] }, binding());
    expect((await during.open(fresh.token, binding())).keyId).toBe('new');

    const after = new DurableTokens({ keys: ring(['new', KEY_B]) });
    const error = await refusal(after.open(sealed.token, binding()));
    expect(error.code).toBe('TOKEN_FORGED');
    expect(error.message).toBe(texts.FORGED_UNKNOWN_KEY_MESSAGE);
    expect((await after.open(fresh.token, binding())).keyId).toBe('new');
  });

  test('the rotation’s first step: a new key listed but not current seals nothing, and opens what it sealed elsewhere', async () => {
    const listed = new DurableTokens({
      keys: new DurableKeyRing({
        keys: [
          { id: 'new', key: KEY_B },
          { id: 'old', key: KEY_A },
        ],
        current: 'old',
      }),
    });
    const sealed = listed.seal({ journal: [] }, binding());
    expect((await listed.open(sealed.token, binding())).keyId).toBe('old');
    const promoted = new DurableTokens({ keys: ring(['new', KEY_B], ['old', KEY_A]) });
    const fromPromoted = promoted.seal({ journal: [] }, binding());
    expect((await listed.open(fromPromoted.token, binding())).keyId).toBe('new');
  });
});

describe('attacks', () => {
  const service = tokens();
  const sealed = service.seal({ journal: JOURNAL, state: { s: 1 } }, binding());

  test('a key of the same id but other bytes (a foreign key): forged, the tag fails', async () => {
    const foreign = new DurableTokens({ keys: ring(['a', KEY_B]) });
    const error = await refusal(foreign.open(sealed.token, binding()));
    expect(error.code).toBe('TOKEN_FORGED');
    expect(error.message).toBe(texts.FORGED_TAG_MESSAGE);
    // And the other way round: a token the foreign executor sealed does not open here.
    const theirs = foreign.seal({ journal: [] }, binding());
    expect((await refusal(service.open(theirs.token, binding()))).code).toBe('TOKEN_FORGED');
  });

  test('a forged token: a header and ciphertext made up without the key', async () => {
    const bytes = bytesOf(sealed.token);
    bytes.set(randomBytes(bytes.length - AT.ciphertext), AT.ciphertext);
    const error = await refusal(service.open(textOf(bytes), binding()));
    expect(error.code).toBe('TOKEN_FORGED');
    expect(error.message).toBe(texts.FORGED_TAG_MESSAGE);
  });

  test('a later expiry written into the header: forged, the header is authenticated', async () => {
    const clock = manualClock();
    const timed = tokens({ now: clock.read });
    const bytes = bytesOf(timed.seal({ journal: [] }, binding()).token);
    bytes.writeUIntBE(clock.now + MAX_TTL - 1, AT.expiresAt, 6);
    bytes.writeUIntBE(clock.now, AT.issuedAt, 6);
    expect((await refusal(timed.open(textOf(bytes), binding()))).code).toBe('TOKEN_FORGED');
  });

  test('another key id written into the header: forged, whichever key it names', async () => {
    const two = new DurableTokens({ keys: ring(['a', KEY_A], ['b', KEY_B]) });
    const bytes = bytesOf(two.seal({ journal: [] }, binding()).token);
    bytes[AT.keyId] = 'b'.charCodeAt(0);
    expect((await refusal(two.open(textOf(bytes), binding()))).message).toBe(texts.FORGED_TAG_MESSAGE);
    bytes[AT.keyId] = 'c'.charCodeAt(0);
    expect((await refusal(two.open(textOf(bytes), binding()))).message).toBe(
      texts.FORGED_UNKNOWN_KEY_MESSAGE,
    );
  });

  test('every truncation of a token is refused as malformed or forged', async () => {
    for (let length = 0; length < sealed.token.length; length++) {
      const error = await refusal(service.open(sealed.token.slice(0, length), binding()));
      expect(['TOKEN_MALFORMED', 'TOKEN_FORGED'], `truncated to ${length}`).toContain(error.code);
    }
  });

  test('every bit of every byte flipped is refused as malformed or forged', async () => {
    const small = service.seal({ journal: [1] }, binding()).token;
    const original = bytesOf(small);
    const seen = new Set<string>();
    for (let index = 0; index < original.length; index++) {
      for (let bit = 0; bit < 8; bit++) {
        const bytes = Buffer.from(original);
        bytes[index] = (bytes[index] as number) ^ (1 << bit);
        const error = await refusal(service.open(textOf(bytes), binding()));
        expect(['TOKEN_MALFORMED', 'TOKEN_FORGED'], `byte ${index}, bit ${bit}`).toContain(error.code);
        seen.add(error.code);
      }
    }
    expect([...seen].sort()).toStrictEqual(['TOKEN_FORGED', 'TOKEN_MALFORMED']);
  });

  test('every character of the text replaced is refused, including unused bits of the last one', async () => {
    const small = service.seal({ journal: [1] }, binding()).token;
    for (let index = 0; index < small.length; index++) {
      const other = small[index] === 'A' ? 'B' : 'A';
      const changed = small.slice(0, index) + other + small.slice(index + 1);
      const error = await refusal(service.open(changed, binding()));
      expect(['TOKEN_MALFORMED', 'TOKEN_FORGED'], `character ${index}`).toContain(error.code);
    }
  });

  test('text that spells the same bytes another way is refused: the last character’s spare bits', async () => {
    // A token whose byte length is no multiple of 3, so its last character has spare bits.
    const spare = [0, 1, 2]
      .map((length) => service.seal({ journal: ['x'.repeat(length)] }, binding()).token)
      .find((token) => token.slice(TOKEN_PREFIX.length).length % 4 !== 0) as string;
    const body = spare.slice(TOKEN_PREFIX.length);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(body.at(-1) as string);
    const twin = `${TOKEN_PREFIX}${body.slice(0, -1)}${alphabet[last + 1]}`;
    expect(Buffer.from(twin.slice(TOKEN_PREFIX.length), 'base64url').equals(bytesOf(spare))).toBe(true);
    await service.open(spare, binding());
    const error = await refusal(service.open(twin, binding()));
    expect(error.message).toBe(texts.malformedMessage(texts.MALFORMED.padding));
  });

  test('each rule of the format is refused before any key is used, with its reason', async () => {
    const bytes = () => bytesOf(sealed.token);
    const cases: [unknown, string][] = [
      [undefined, texts.MALFORMED.notText],
      [{ token: sealed.token }, texts.MALFORMED.notText],
      ['', texts.MALFORMED.prefix],
      [`x${sealed.token}`, texts.MALFORMED.prefix],
      [`${TOKEN_PREFIX}abc=`, texts.MALFORMED.alphabet],
      [`${TOKEN_PREFIX}ab+/`, texts.MALFORMED.alphabet],
      [`${sealed.token} `, texts.MALFORMED.alphabet],
      [`${TOKEN_PREFIX}A`, texts.MALFORMED.padding],
      [`${TOKEN_PREFIX}AAAA`, texts.MALFORMED.short],
      [textOf(Object.assign(bytes(), { [AT.version]: 2 })), texts.MALFORMED.version],
      [textOf(Object.assign(bytes(), { [AT.keyIdLength]: 0 })), texts.MALFORMED.keyId],
      [textOf(Object.assign(bytes(), { [AT.keyIdLength]: 255 })), texts.MALFORMED.keyId],
      [textOf(Object.assign(bytes(), { [AT.keyId]: 0x20 })), texts.MALFORMED.keyId],
      [textOf(bytes().fill(0, AT.expiresAt, AT.expiresAt + 6)), texts.MALFORMED.times],
    ];
    for (const [text, reason] of cases) {
      const error = await refusal(service.open(text, binding()));
      expect(error.code, reason).toBe('TOKEN_MALFORMED');
      expect(error.message).toBe(texts.malformedMessage(reason));
    }
  });

  test('a huge declared ciphertext length is refused as malformed, not read', async () => {
    for (const declared of [0xffffffff, 0x7fffffff, 0]) {
      const bytes = bytesOf(sealed.token);
      bytes.writeUInt32BE(declared, AT.ciphertextLength);
      const error = await refusal(service.open(textOf(bytes), binding()));
      expect(error.message).toBe(texts.malformedMessage(texts.MALFORMED.length));
    }
  });

  test('a 10 MB text is refused as malformed; past MAX_TOKEN_SIZE as too large, on its length alone', async () => {
    const tenMegabytes = TOKEN_PREFIX + 'A'.repeat(10 * 1000 * 1000);
    expect((await refusal(service.open(tenMegabytes, binding()))).code).toBe('TOKEN_MALFORMED');
    const tooLong = `${TOKEN_PREFIX}${'A'.repeat(MAX_TOKEN_SIZE)}`;
    const error = await refusal(service.open(tooLong, binding()));
    expect(error.code).toBe('TOKEN_TOO_LARGE');
    expect(error.message).toBe(texts.tokenTooLargeMessage(tooLong.length));
    // Not even a string of the right characters: the length decides first.
    expect((await refusal(service.open('!'.repeat(MAX_TOKEN_SIZE + 1), binding()))).code).toBe(
      'TOKEN_TOO_LARGE',
    );
  });

  test('an expired token: refused once the clock reaches its expiry, not a millisecond before', async () => {
    const clock = manualClock();
    const timed = tokens({ now: clock.read, ttl: 60_000 });
    const { token, expiresAt } = timed.seal({ journal: [] }, binding());
    clock.now = expiresAt - 1;
    await timed.open(token, binding());
    clock.now = expiresAt;
    const error = await refusal(timed.open(token, binding()));
    expect(error.code).toBe('TOKEN_EXPIRED');
    expect(error.message).toBe(texts.expiredMessage(expiresAt));
    expect(error.message).toContain(new Date(expiresAt).toISOString());
  });

  const mismatches: [string, Parameters<typeof binding>[0], texts.BindingField][] = [
    ['another program', { request: { ...binding().request, code: 'async () => 2' } }, 'request'],
    [
      'other tools',
      { request: { ...binding().request, providers: [{ name: 'billing', tools: ['refund'] }] } },
      'request',
    ],
    [
      'other bounds',
      { request: { ...binding().request, bounds: { timeout: 1, memoryLimit: 128 } } },
      'request',
    ],
    ['another runtime bundle', { runtime: 'sha256-another-bundle' }, 'runtime'],
    ['another executor', { versions: { ...binding().versions, executor: '0.2.0' } }, 'executor'],
    ['another V8', { versions: { ...binding().versions, v8: '14.0.0' } }, 'v8'],
    ['another isolated-vm', { versions: { ...binding().versions, isolatedVm: '6.2.0' } }, 'isolated-vm'],
    ['another principal', { principal: 'user:mallory' }, 'principal'],
  ];
  test.each(mismatches)('a resume with %s: TOKEN_MISMATCH naming it', async (_name, overrides, field) => {
    const error = await refusal(service.open(sealed.token, binding(overrides)));
    expect(error.code).toBe('TOKEN_MISMATCH');
    expect(error.mismatch).toBe(field);
    expect(error.message).toBe(texts.mismatchMessage(field));
    expect(error.message).not.toContain('mallory');
  });

  test('the request is hashed canonically: the same parts in another key order still open', async () => {
    const reordered = Object.fromEntries(Object.entries(binding().request).reverse());
    await service.open(sealed.token, binding({ request: reordered }));
  });

  test('a field moved to another field is a mismatch: each field is hashed with its name', async () => {
    const same = tokens();
    const versions = { executor: '1', v8: '1', isolatedVm: '2' };
    const { token } = same.seal({ journal: [] }, binding({ versions }));
    const swapped = { executor: '1', v8: '2', isolatedVm: '1' };
    expect((await refusal(same.open(token, binding({ versions: swapped })))).mismatch).toBe('v8');
  });
});

describe('bounds', () => {
  test('a journal past maxJournalLength is refused when sealing, and when opening where the bound is lower', async () => {
    const wide = tokens({ maxJournalLength: 300 });
    const journal = Array.from({ length: 257 }, (_, index) => index);
    const { token } = wide.seal({ journal }, binding());
    const narrow = tokens();
    const sealError = (() => {
      try {
        narrow.seal({ journal }, binding());
      } catch (error) {
        return error as DurableTokenError;
      }
    })();
    expect(sealError).toBeInstanceOf(DurableTokenError);
    expect(sealError?.code).toBe('JOURNAL_TOO_LONG');
    expect(sealError?.message).toBe(texts.journalTooLongMessage(257, 256));
    const error = await refusal(narrow.open(token, binding()));
    expect(error.code).toBe('JOURNAL_TOO_LONG');
    expect(error.message).toBe(texts.journalTooLongMessage(257, 256));
    expect((await wide.open(token, binding())).contents.journal).toHaveLength(257);
  });

  test('contents that would seal past MAX_TOKEN_SIZE are refused before encrypting; just under it seals and opens', async () => {
    const service = tokens();
    const huge = 'x'.repeat((MAX_TOKEN_SIZE * 3) / 4);
    expect(() => service.seal({ journal: [huge] }, binding())).toThrow(
      expect.objectContaining({ code: 'TOKEN_TOO_LARGE' }),
    );
    const bytes = randomBytes((MAX_TOKEN_SIZE * 3) / 4 - 1024);
    const { token } = service.seal({ journal: [], bytes }, binding());
    expect(token.length).toBeLessThanOrEqual(MAX_TOKEN_SIZE);
    const opened = (await service.open(token, binding())).contents.bytes as Uint8Array;
    // Compared as a Buffer: an element-by-element deep equality of 12 MiB takes seconds.
    expect(Buffer.from(opened.buffer, opened.byteOffset, opened.byteLength).equals(bytes)).toBe(true);
  });
});

describe('claims and idempotency keys', () => {
  test('without a claim store a token opens as often as it is presented (at-least-once)', async () => {
    const service = tokens();
    const { token } = service.seal({ journal: [] }, binding());
    await service.open(token, binding());
    await service.open(token, binding());
  });

  test('with a claim store a token opens once; the second open is TOKEN_REPLAYED, on any service sharing it', async () => {
    const claims = new MemoryClaimStore();
    const first = tokens({ claims });
    const second = tokens({ claims });
    const { token } = first.seal({ journal: [] }, binding());
    await first.open(token, binding());
    const error = await refusal(second.open(token, binding()));
    expect(error.code).toBe('TOKEN_REPLAYED');
    expect(error.message).toBe(texts.REPLAYED_MESSAGE);
  });

  test('a refused open does not spend the token', async () => {
    const claims = new MemoryClaimStore();
    const service = tokens({ claims });
    const { token } = service.seal({ journal: [] }, binding());
    await refusal(service.open(token, binding({ principal: 'someone else' })));
    expect(claims.size).toBe(0);
    await service.open(token, binding());
    expect(claims.size).toBe(1);
  });

  test('a claim store that fails refuses the resume with CLAIM_UNAVAILABLE, its error kept as the cause', async () => {
    const broken = new Error('store unreachable');
    const service = tokens({ claims: { claim: () => Promise.reject(broken) } });
    const { token } = service.seal({ journal: [] }, binding());
    const error = await refusal(service.open(token, binding()));
    expect(error.code).toBe('CLAIM_UNAVAILABLE');
    expect(error.message).toBe(texts.CLAIM_UNAVAILABLE_MESSAGE);
    expect(error.cause).toBe(broken);
  });

  test('an idempotency key is the same for the same token and call on every open, and differs otherwise', async () => {
    const service = tokens();
    const { token } = service.seal({ journal: [] }, binding());
    const [first, retried] = [await service.open(token, binding()), await service.open(token, binding())];
    expect(first.idempotencyKey(3)).toBe(retried.idempotencyKey(3));
    expect(first.idempotencyKey(3)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const keys = new Set(
      [0, 1, 2, 3, 2 ** 32, Number.MAX_SAFE_INTEGER].map((sequence) => first.idempotencyKey(sequence)),
    );
    expect(keys.size).toBe(6);
    const other = await service.open(service.seal({ journal: [] }, binding()).token, binding());
    expect(other.idempotencyKey(3)).not.toBe(first.idempotencyKey(3));
    for (const sequence of [-1, 1.5, Number.NaN, 2 ** 53]) {
      expect(() => first.idempotencyKey(sequence)).toThrow(texts.SEQUENCE_MESSAGE);
    }
  });

  test('an idempotency key survives a rotation and is the same on another server holding the key', async () => {
    const before = new DurableTokens({ keys: ring(['old', KEY_A]) });
    const { token } = before.seal({ journal: [] }, binding());
    const key = (await before.open(token, binding())).idempotencyKey(9);
    const elsewhere = new DurableTokens({ keys: ring(['new', KEY_B], ['old', KEY_A]) });
    expect((await elsewhere.open(token, binding())).idempotencyKey(9)).toBe(key);
  });

  test('an idempotency key depends on the key that sealed the token, not on the token id alone', () => {
    // Whoever holds only the token (its id is in the clear) cannot predict the keys its calls send.
    const id = randomBytes(16);
    const underA = new OpenedToken(findKeys(ring(['k', KEY_A]), 'k') as DerivedKeys, id, 0, 1, {
      journal: [],
    });
    const underB = new OpenedToken(findKeys(ring(['k', KEY_B]), 'k') as DerivedKeys, id, 0, 1, {
      journal: [],
    });
    expect(underA.tokenId).toBe(underB.tokenId);
    expect(underA.idempotencyKey(0)).not.toBe(underB.idempotencyKey(0));
  });
});
