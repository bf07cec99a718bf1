/**
 * The host's half of the crypto bridge, tested directly (the seed's "Crypto bridge" section): the
 * key Map and the walk that swaps `{ cryptoKey: n }` for keys, the fixed list of operations,
 * KEY_LIMIT, one operation at a time, the is-alive guard, and failures as frames with their names.
 */
import type { webcrypto } from 'node:crypto';
import { EXECUTION_ENDED_MESSAGE, KEY_LIMIT, NOT_A_CRYPTO_KEY_MESSAGE } from '@supolka/codemode-protocol';
import { afterEach, describe, expect, test } from 'vitest';
import {
  CryptoBridge,
  type KeyDescription,
  keyLimitMessage,
  SUBTLE_OPERATIONS,
  type SubtleFrame,
  subtleReference,
  unknownOperationMessage,
} from '../../src/sandbox/crypto.ts';
import { createIsolate, type IsolateHandle } from '../../src/sandbox/isolate.ts';

const alive = () => true;
const bytes = (text: string) => new TextEncoder().encode(text);

function returned(frame: SubtleFrame): unknown {
  expect(frame[0], JSON.stringify(frame)).toBe('returned');
  return frame[1];
}

async function hmacKey(bridge: CryptoBridge, extractable = true): Promise<KeyDescription> {
  return returned(
    await bridge.perform('importKey', [
      'raw',
      bytes('key').buffer,
      { name: 'HMAC', hash: { name: 'SHA-256' } },
      extractable,
      ['sign', 'verify'],
    ]),
  ) as KeyDescription;
}

describe('the fixed list of operations', () => {
  test("serves exactly the twelve methods SubtleCrypto declares (WebCrypto, 'SubtleCrypto interface')", () => {
    expect([...SUBTLE_OPERATIONS].sort()).toStrictEqual(
      [
        'decrypt',
        'deriveBits',
        'deriveKey',
        'digest',
        'encrypt',
        'exportKey',
        'generateKey',
        'importKey',
        'sign',
        'unwrapKey',
        'verify',
        'wrapKey',
      ].sort(),
    );
  });

  test.each(['timingSafeEqual', 'constructor', '__proto__', 'toString', 'hasOwnProperty', 'getPublicKey'])(
    'a name outside the list (%s) fails with a TypeError naming it, never reaching the host object',
    async (name) => {
      const bridge = new CryptoBridge(alive);
      expect(await bridge.perform(name, [])).toStrictEqual([
        'thrown',
        'TypeError',
        unknownOperationMessage(name),
        false,
      ]);
    },
  );

  test('a name that is not a string fails the same way', async () => {
    const bridge = new CryptoBridge(alive);
    expect(await bridge.perform(42, [])).toStrictEqual([
      'thrown',
      'TypeError',
      unknownOperationMessage('42'),
      false,
    ]);
  });
});

describe('keys stay on the host', () => {
  test('a key crosses out as a description and the number that names it, never its material', async () => {
    const bridge = new CryptoBridge(alive);
    const description = await hmacKey(bridge, false);
    expect(description).toStrictEqual({
      cryptoKey: 0,
      type: 'secret',
      extractable: false,
      algorithm: { name: 'HMAC', hash: { name: 'SHA-256' }, length: 24 },
      usages: ['sign', 'verify'],
    });
    expect(bridge.keyCount).toBe(1);
  });

  test('one walk swaps every { cryptoKey: n } back for the key, at the top and nested (ECDH public)', async () => {
    const bridge = new CryptoBridge(alive);
    const a = returned(
      await bridge.perform('generateKey', [{ name: 'ECDH', namedCurve: 'P-256' }, false, ['deriveBits']]),
    ) as { publicKey: KeyDescription; privateKey: KeyDescription };
    const b = returned(
      await bridge.perform('generateKey', [{ name: 'ECDH', namedCurve: 'P-256' }, false, ['deriveBits']]),
    ) as { publicKey: KeyDescription; privateKey: KeyDescription };
    // The walk out reached one level into the pair.
    expect(Object.keys(a)).toStrictEqual(['publicKey', 'privateKey']);
    expect(a.publicKey.type).toBe('public');
    expect(a.privateKey.type).toBe('private');
    const ab = returned(
      await bridge.perform('deriveBits', [
        { name: 'ECDH', public: { cryptoKey: b.publicKey.cryptoKey } },
        { cryptoKey: a.privateKey.cryptoKey },
        256,
      ]),
    ) as ArrayBuffer;
    const ba = returned(
      await bridge.perform('deriveBits', [
        { name: 'ECDH', public: { cryptoKey: a.publicKey.cryptoKey } },
        { cryptoKey: b.privateKey.cryptoKey },
        256,
      ]),
    ) as ArrayBuffer;
    expect(Buffer.from(ab).toString('hex')).toBe(Buffer.from(ba).toString('hex'));
    expect(ab.byteLength).toBe(32);
  });

  test(`a number the host does not hold fails with "${NOT_A_CRYPTO_KEY_MESSAGE}", at the top and nested`, async () => {
    const bridge = new CryptoBridge(alive);
    const key = await hmacKey(bridge);
    expect(
      await bridge.perform('sign', ['HMAC', { cryptoKey: key.cryptoKey + 1 }, bytes('x').buffer]),
    ).toStrictEqual(['thrown', 'TypeError', NOT_A_CRYPTO_KEY_MESSAGE, false]);
    expect(
      await bridge.perform('deriveBits', [
        { name: 'ECDH', public: { cryptoKey: 99 } },
        { cryptoKey: key.cryptoKey },
        8,
      ]),
    ).toStrictEqual(['thrown', 'TypeError', NOT_A_CRYPTO_KEY_MESSAGE, false]);
    expect(await bridge.perform('sign', ['HMAC', { cryptoKey: '0' }, bytes('x').buffer])).toStrictEqual([
      'thrown',
      'TypeError',
      NOT_A_CRYPTO_KEY_MESSAGE,
      false,
    ]);
  });

  test('the keys of one bridge are not another’s: a number names a key only in its own execution', async () => {
    const first = new CryptoBridge(alive);
    const second = new CryptoBridge(alive);
    const key = await hmacKey(first);
    expect(await second.perform('exportKey', ['raw', { cryptoKey: key.cryptoKey }])).toStrictEqual([
      'thrown',
      'TypeError',
      NOT_A_CRYPTO_KEY_MESSAGE,
      false,
    ]);
  });

  test('a JWK record on the way out is left as it is', async () => {
    const bridge = new CryptoBridge(alive);
    const key = await hmacKey(bridge);
    expect(returned(await bridge.perform('exportKey', ['jwk', { cryptoKey: key.cryptoKey }]))).toStrictEqual({
      key_ops: ['sign', 'verify'],
      alg: 'HS256',
      ext: true,
      k: 'a2V5',
      kty: 'oct',
    });
  });
});

describe('KEY_LIMIT', () => {
  test(`the protocol's bound is ${KEY_LIMIT} keys per execution`, () => {
    expect(KEY_LIMIT).toBe(1000);
  });

  test('a key past the limit fails with QuotaExceededError, and a pair that would pass it registers neither half', async () => {
    const bridge = new CryptoBridge(alive, { keyLimit: 3 });
    await hmacKey(bridge);
    await hmacKey(bridge);
    const pair = await bridge.perform('generateKey', [{ name: 'Ed25519' }, false, ['sign', 'verify']]);
    expect(pair).toStrictEqual(['thrown', 'QuotaExceededError', keyLimitMessage(3), true]);
    expect(bridge.keyCount).toBe(2);
    await hmacKey(bridge);
    expect(
      await bridge.perform('importKey', ['raw', bytes('k').buffer, 'PBKDF2', false, ['deriveBits']]),
    ).toStrictEqual(['thrown', 'QuotaExceededError', keyLimitMessage(3), true]);
    // Operations that create no key still run.
    expect(returned(await bridge.perform('digest', [{ name: 'SHA-1' }, bytes('abc').buffer]))).toBeInstanceOf(
      ArrayBuffer,
    );
  });
});

/** A webcrypto whose digest waits until the test lets it finish, and records what overlapped. */
function gatedSubtle() {
  const events: string[] = [];
  const gates: (() => void)[] = [];
  let running = 0;
  let overlapped = false;
  const subtle = {
    async digest(algorithm: { name: string }) {
      running++;
      if (running > 1) overlapped = true;
      events.push(`start ${algorithm.name}`);
      await new Promise<void>((resolve) => gates.push(resolve));
      events.push(`end ${algorithm.name}`);
      running--;
      return new ArrayBuffer(0);
    },
  } as unknown as webcrypto.SubtleCrypto;
  const releaseNext = async () => {
    while (gates.length === 0) await new Promise((resolve) => setImmediate(resolve));
    gates.shift()?.();
  };
  return { subtle, events, releaseNext, overlapped: () => overlapped };
}

describe('one operation at a time per execution', () => {
  test('operations run in the order they were asked for, each after the previous settled', async () => {
    const gated = gatedSubtle();
    const bridge = new CryptoBridge(alive, { subtle: gated.subtle });
    const settled: string[] = [];
    const all = ['A', 'B', 'C'].map((name) =>
      bridge.perform('digest', [{ name }, new ArrayBuffer(0)]).then(() => settled.push(name)),
    );
    for (let index = 0; index < 3; index++) await gated.releaseNext();
    await Promise.all(all);
    expect(gated.events).toStrictEqual(['start A', 'end A', 'start B', 'end B', 'start C', 'end C']);
    expect(settled).toStrictEqual(['A', 'B', 'C']);
    expect(gated.overlapped()).toBe(false);
  });

  test('a failed operation does not stop the chain', async () => {
    const bridge = new CryptoBridge(alive);
    const failed = bridge.perform('digest', [{ name: 'SHA-3' }, new ArrayBuffer(0)]);
    const next = bridge.perform('digest', [{ name: 'SHA-256' }, new ArrayBuffer(0)]);
    expect((await failed)[0]).toBe('thrown');
    expect((await next)[0]).toBe('returned');
  });

  test(`an operation still queued when its isolate is gone never starts: "${EXECUTION_ENDED_MESSAGE}"`, async () => {
    const gated = gatedSubtle();
    let isAlive = true;
    const bridge = new CryptoBridge(() => isAlive, { subtle: gated.subtle });
    const first = bridge.perform('digest', [{ name: 'A' }, new ArrayBuffer(0)]);
    const queued = bridge.perform('digest', [{ name: 'B' }, new ArrayBuffer(0)]);
    await gated.releaseNext();
    isAlive = false;
    expect((await first)[0]).toBe('returned');
    expect(await queued).toStrictEqual(['thrown', 'Error', EXECUTION_ENDED_MESSAGE, false]);
    expect(gated.events).toStrictEqual(['start A', 'end A']);
    // And nothing asked for later starts either.
    expect(await bridge.perform('digest', [{ name: 'C' }, new ArrayBuffer(0)])).toStrictEqual([
      'thrown',
      'Error',
      EXECUTION_ENDED_MESSAGE,
      false,
    ]);
  });
});

describe('failures cross with their names', () => {
  test('a DOMException crosses as one (OperationError of a failed AES-GCM decrypt), with workerd’s text', async () => {
    const bridge = new CryptoBridge(alive);
    const key = returned(
      await bridge.perform('generateKey', [{ name: 'AES-GCM', length: 128 }, false, ['encrypt', 'decrypt']]),
    ) as KeyDescription;
    expect(
      await bridge.perform('decrypt', [
        { name: 'AES-GCM', iv: new ArrayBuffer(12) },
        { cryptoKey: key.cryptoKey },
        new ArrayBuffer(32),
      ]),
    ).toStrictEqual([
      'thrown',
      'OperationError',
      'Decryption failed. This could be due to a ciphertext authentication failure, bad padding, incorrect CryptoKey, or another algorithm-specific reason. Input length was 16, output length expected to be 16 for AES-GCM',
      true,
    ]);
  });

  test('the lengths workerd reports: too short for the GCM tag, AES-CBC blocks, an AES-KW key of a wrong size', async () => {
    const bridge = new CryptoBridge(alive);
    const key = async (name: string, usages: string[]) =>
      (
        returned(
          await bridge.perform('generateKey', [{ name, length: 128 }, false, usages]),
        ) as KeyDescription
      ).cryptoKey;
    const gcm = await key('AES-GCM', ['decrypt']);
    // A fixed key: 48 zero bytes decrypted under a random one end in valid padding about one time in
    // 256, and then there is no error to read. Under the zero key the last block ends in the byte 0x3a
    // (checked with Node's own AES), no padding length: invalid every time.
    const cbc = (
      returned(
        await bridge.perform('importKey', [
          'raw',
          new ArrayBuffer(16),
          { name: 'AES-CBC' },
          false,
          ['decrypt'],
        ]),
      ) as KeyDescription
    ).cryptoKey;
    const kw = await key('AES-KW', ['unwrapKey']);
    const message = async (operation: string, args: unknown[]) => (await bridge.perform(operation, args))[2];
    expect(
      await message('decrypt', [
        { name: 'AES-GCM', iv: new ArrayBuffer(12), tagLength: 96 },
        { cryptoKey: gcm },
        new ArrayBuffer(11),
      ]),
    ).toBe(
      'Ciphertext length of 88 bits must be greater than or equal to the size of the AES-GCM tag length of 96 bits.',
    );
    expect(
      await message('decrypt', [
        { name: 'AES-CBC', iv: new ArrayBuffer(16) },
        { cryptoKey: cbc },
        new ArrayBuffer(48),
      ]),
    ).toMatch(/ Input length was 48, output length expected to be 32 for AES-CBC$/);
    expect(
      await message('unwrapKey', [
        'raw',
        new ArrayBuffer(20),
        { cryptoKey: kw },
        { name: 'AES-KW' },
        { name: 'AES-GCM' },
        true,
        ['encrypt'],
      ]),
    ).toBe("Provided a wrapped key to unwrap that is 160 bits which isn't a multiple of 64 bits.");
  });

  test('exportKey jwk answers the members in workerd’s order; MD5 digests', async () => {
    const bridge = new CryptoBridge(alive);
    const key = await hmacKey(bridge, true);
    const jwk = returned(await bridge.perform('exportKey', ['jwk', { cryptoKey: key.cryptoKey }]));
    expect(Object.keys(jwk as object)).toStrictEqual(['kty', 'key_ops', 'alg', 'ext', 'k']);
    const md5 = returned(await bridge.perform('digest', [{ name: 'MD5' }, new TextEncoder().encode('abc')]));
    expect(Buffer.from(md5 as ArrayBuffer).toString('hex')).toBe('900150983cd24fb0d6963f7d28e17f72');
  });

  test('a language error crosses as one, its name beside its text', async () => {
    const bridge = new CryptoBridge(alive);
    const frame = await bridge.perform('digest', [{ name: 'SHA-256' }, 'not bytes']);
    expect(frame[0]).toBe('thrown');
    expect(frame[1]).toBe('TypeError');
    expect(frame[3]).toBe(false);
  });

  test('a non-extractable key is refused by exportKey on the host too (InvalidAccessError)', async () => {
    const bridge = new CryptoBridge(alive);
    const key = await hmacKey(bridge, false);
    const frame = await bridge.perform('exportKey', ['raw', { cryptoKey: key.cryptoKey }]);
    expect([frame[0], frame[1], frame[3]]).toStrictEqual(['thrown', 'InvalidAccessError', true]);
  });
});

describe('through a real isolate', () => {
  let handle: IsolateHandle | undefined;
  afterEach(() => handle?.isolate.dispose());

  /** Calls the reference from inside an isolate the way the runtime does, with structured copies both ways. */
  async function callFromIsolate(source: string): Promise<unknown> {
    handle = createIsolate({ memoryLimit: 32 });
    await handle.jail.set('subtleOperation', subtleReference(handle));
    return handle.context.eval(
      `(async () => {
        // The answer is the number the frame is held under; the frame is taken synchronously.
        const call = async (operation, args) => {
          const held = await subtleOperation.apply(undefined, [operation, args], { arguments: { copy: true }, result: { promise: true } });
          return subtleOperation.applySync(undefined, [held], { result: { copy: true } });
        };
        ${source}
      })()`,
      { promise: true, copy: true },
    );
  }

  test('ArrayBuffers and records cross by copy, and a forged number is refused', async () => {
    const result = await callFromIsolate(`
      const digest = await call('digest', [{ name: 'SHA-256' }, new Uint8Array([97, 98, 99]).buffer]);
      const imported = await call('importKey', ['raw', new Uint8Array([1, 2, 3]).buffer, { name: 'HMAC', hash: { name: 'SHA-256' } }, false, ['sign']]);
      const forged = await call('sign', [{ name: 'HMAC' }, { cryptoKey: imported[1].cryptoKey + 7 }, new ArrayBuffer(1)]);
      const signed = await call('sign', [{ name: 'HMAC' }, { cryptoKey: imported[1].cryptoKey }, new ArrayBuffer(1)]);
      return {
        digest: [digest[0], digest[1] instanceof ArrayBuffer, new Uint8Array(digest[1])[0]],
        imported,
        forged,
        signed: [signed[0], signed[1].byteLength],
      };
    `);
    expect(result).toStrictEqual({
      digest: ['returned', true, 0xba],
      imported: [
        'returned',
        {
          cryptoKey: 0,
          type: 'secret',
          extractable: false,
          algorithm: { name: 'HMAC', hash: { name: 'SHA-256' }, length: 24 },
          usages: ['sign'],
        },
      ],
      forged: ['thrown', 'TypeError', NOT_A_CRYPTO_KEY_MESSAGE, false],
      signed: ['returned', 32],
    });
  });

  test('the reference of a disposed isolate starts nothing', async () => {
    handle = createIsolate({ memoryLimit: 32 });
    const reference = subtleReference(handle);
    handle.isolate.dispose();
    const held = await reference.apply(undefined, ['digest', [{ name: 'SHA-256' }, new ArrayBuffer(0)]], {
      arguments: { copy: true },
      result: { promise: true },
    });
    expect(typeof held).toBe('number');
    expect(reference.applySync(undefined, [held], { result: { copy: true } })).toStrictEqual([
      'thrown',
      'Error',
      EXECUTION_ENDED_MESSAGE,
      false,
    ]);
    handle = undefined;
  });
});
