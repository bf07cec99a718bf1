/**
 * The shape of crypto, Crypto, SubtleCrypto and CryptoKey as user code observes it (workerd's, as
 * probed on workerd 2026-11-17), the WebIDL conversions of SubtleCrypto's arguments, the steps each
 * method takes before the host (WebCrypto, https://w3c.github.io/webcrypto/), and the texts of the
 * errors they end with.
 */
import { NOT_A_CRYPTO_KEY_MESSAGE } from '@supolka/codemode-protocol';
import { describe, expect, test } from 'vitest';
import { ILLEGAL, useSandbox } from '../helpers.ts';
import { runProgram } from './crypto-helpers.ts';

const sandbox = useSandbox();
const run = (body: string, input?: unknown) => runProgram(sandbox, body, input);

const ILLEGAL_INVOCATION = ILLEGAL.slice('TypeError: '.length);

describe('the interfaces (WebCrypto "Crypto", "SubtleCrypto" and "CryptoKey" interfaces, WebIDL)', () => {
  test('crypto is a Crypto whose subtle is the one SubtleCrypto; the members are workerd’s', async () => {
    const result = await run(`
      const subtleDescriptor = Object.getOwnPropertyDescriptor(Crypto.prototype, 'subtle');
      return {
        instances: [crypto instanceof Crypto, crypto.subtle instanceof SubtleCrypto, crypto.subtle === crypto.subtle],
        crypto: Object.getOwnPropertyNames(Crypto.prototype).sort(),
        subtle: Object.getOwnPropertyNames(SubtleCrypto.prototype).sort(),
        key: Object.getOwnPropertyNames(CryptoKey.prototype),
        own: [Reflect.ownKeys(crypto), Reflect.ownKeys(crypto.subtle)],
        tags: [String(crypto), String(crypto.subtle), Object.prototype.toString.call(CryptoKey.prototype)],
        subtleAccessor: [typeof subtleDescriptor.get, typeof subtleDescriptor.set, subtleDescriptor.enumerable],
        lengths: Object.getOwnPropertyNames(SubtleCrypto.prototype).filter((name) => name !== 'constructor')
          .map((name) => SubtleCrypto.prototype[name].length),
        global: (({ writable, enumerable, configurable }) => ({ writable, enumerable, configurable }))(
          Object.getOwnPropertyDescriptor(globalThis, 'crypto')),
      };
    `);
    expect(result).toStrictEqual({
      instances: [true, true, true],
      crypto: ['constructor', 'getRandomValues', 'randomUUID', 'subtle'],
      subtle: [
        'constructor',
        'decrypt',
        'deriveBits',
        'deriveKey',
        'digest',
        'encrypt',
        'exportKey',
        'generateKey',
        'importKey',
        'sign',
        'timingSafeEqual',
        'unwrapKey',
        'verify',
        'wrapKey',
      ],
      key: ['constructor'],
      own: [[], []],
      tags: ['[object Crypto]', '[object SubtleCrypto]', '[object CryptoKey]'],
      subtleAccessor: ['function', 'undefined', true],
      lengths: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
      global: { writable: true, enumerable: true, configurable: true },
    });
  });

  test('the constructors throw "Illegal constructor", and the members check their receiver (illegal invocation)', async () => {
    const result = await run(`
      return [
        thrown(() => new Crypto()),
        thrown(() => new SubtleCrypto()),
        thrown(() => new CryptoKey()),
        thrown(() => SubtleCrypto.prototype.digest.call({}, 'SHA-256', new Uint8Array(1))),
        thrown(() => SubtleCrypto.prototype.timingSafeEqual.call(Object.create(SubtleCrypto.prototype), new Uint8Array(1), new Uint8Array(1))),
        thrown(() => Object.getOwnPropertyDescriptor(Crypto.prototype, 'subtle').get.call({})),
        thrown(() => Crypto.prototype.getRandomValues.call({}, new Uint8Array(1))),
        thrown(() => { const { randomUUID } = crypto; randomUUID(); }),
      ];
    `);
    const illegalConstructor = ['TypeError', 'Illegal constructor', false];
    const illegalInvocation = ['TypeError', ILLEGAL_INVOCATION, false];
    expect(result).toStrictEqual([
      illegalConstructor,
      illegalConstructor,
      illegalConstructor,
      illegalInvocation,
      illegalInvocation,
      illegalInvocation,
      illegalInvocation,
      illegalInvocation,
    ]);
  });

  test('structuredClone refuses Crypto and CryptoKey (DataCloneError), as workerd does', async () => {
    const result = await run(`
      const key = await subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, true, ['sign']);
      return [thrown(() => structuredClone(crypto))[0], thrown(() => structuredClone(key))[0]];
    `);
    expect(result).toStrictEqual(['DataCloneError', 'DataCloneError']);
  });
});

describe('CryptoKey holds a description and a number, nothing else', () => {
  test('type, extractable, algorithm and usages are own read-only data properties; algorithm and usages are cached objects', async () => {
    const result = await run(`
      const key = await subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, false, ['verify', 'sign', 'verify']);
      const descriptors = Object.fromEntries(Reflect.ownKeys(key).map((name) => {
        const { value, writable, enumerable, configurable } = Object.getOwnPropertyDescriptor(key, name);
        return [name, [typeof value, writable, enumerable, configurable]];
      }));
      return {
        keys: Reflect.ownKeys(key),
        symbols: Object.getOwnPropertySymbols(key).length,
        descriptors,
        json: JSON.parse(JSON.stringify(key)),
        cached: [key.algorithm === key.algorithm, key.usages === key.usages, key.algorithm.hash === key.algorithm.hash],
        prototype: [Object.getPrototypeOf(key) === CryptoKey.prototype, key instanceof CryptoKey, String(key)],
      };
    `);
    expect(result).toStrictEqual({
      keys: ['usages', 'algorithm', 'extractable', 'type'],
      symbols: 0,
      descriptors: {
        usages: ['object', false, true, true],
        algorithm: ['object', false, true, true],
        extractable: ['boolean', false, true, true],
        type: ['string', false, true, true],
      },
      json: {
        usages: ['sign', 'verify'],
        algorithm: { name: 'HMAC', hash: { name: 'SHA-256' }, length: 512 },
        extractable: false,
        type: 'secret',
      },
      cached: [true, true, true],
      prototype: [true, true, '[object CryptoKey]'],
    });
  });

  test('a non-extractable key stays so whatever the program does to its object (export key, step 5; wrap key, step 12)', async () => {
    const result = await run(`
      const key = await subtle.importKey('raw', bytes('material'), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
      const wrapping = await subtle.generateKey({ name: 'AES-KW', length: 128 }, true, ['wrapKey']);
      // Rewriting what the object shows changes nothing the host holds.
      Object.defineProperty(key, 'extractable', { value: true });
      key.algorithm.name = 'AES-GCM';
      key.usages.push('encrypt');
      return {
        exportRaw: await failure(subtle.exportKey('raw', key)),
        exportJwk: await failure(subtle.exportKey('jwk', key)),
        wrap: await failure(subtle.wrapKey('raw', key, wrapping, 'AES-KW')),
        signs: (await subtle.sign('HMAC', key, bytes('x'))).byteLength,
        encrypts: await failure(subtle.encrypt({ name: 'AES-GCM', iv: new Uint8Array(12) }, key, bytes('x'))),
        nothingElse: [Object.getOwnPropertyNames(key).sort(), Object.getOwnPropertySymbols(key).length],
      };
    `);
    expect(result).toStrictEqual({
      exportRaw: ['InvalidAccessError', 'Attempt to export non-extractable HMAC key.', true],
      exportJwk: ['InvalidAccessError', 'Attempt to export non-extractable HMAC key.', true],
      wrap: ['InvalidAccessError', 'Attempt to export non-extractable HMAC key.', true],
      signs: 32,
      encrypts: [
        'InvalidAccessError',
        'Requested algorithm "AES-GCM" does not match this CryptoKey\'s algorithm "HMAC".',
        true,
      ],
      nothingElse: [['algorithm', 'extractable', 'type', 'usages'], 0],
    });
  });

  test('a key forged by the program is refused: a look-alike record, a prototype copy, a proxy, and nested in ECDH public', async () => {
    const result = await run(`
      const real = await subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, false, ['deriveBits']);
      const lookAlike = { cryptoKey: 0, ...JSON.parse(JSON.stringify(real.privateKey)) };
      const copy = Object.create(CryptoKey.prototype);
      const proxy = new Proxy(real.privateKey, {});
      return [
        await failure(subtle.sign('HMAC', { cryptoKey: 0 }, bytes('x'))),
        await failure(subtle.deriveBits({ name: 'ECDH', public: real.publicKey }, lookAlike, 256)),
        await failure(subtle.exportKey('raw', copy)),
        await failure(subtle.deriveBits({ name: 'ECDH', public: real.publicKey }, proxy, 256)),
        await failure(subtle.deriveBits({ name: 'ECDH', public: { cryptoKey: 1 } }, real.privateKey, 256)),
      ];
    `);
    expect(result).toStrictEqual([
      [
        'TypeError',
        "Failed to execute 'sign' on 'SubtleCrypto': parameter 2 is not of type 'CryptoKey'.",
        false,
      ],
      [
        'TypeError',
        "Failed to execute 'deriveBits' on 'SubtleCrypto': parameter 2 is not of type 'CryptoKey'.",
        false,
      ],
      [
        'TypeError',
        "Failed to execute 'exportKey' on 'SubtleCrypto': parameter 2 is not of type 'CryptoKey'.",
        false,
      ],
      [
        'TypeError',
        "Failed to execute 'deriveBits' on 'SubtleCrypto': parameter 2 is not of type 'CryptoKey'.",
        false,
      ],
      [
        'TypeError',
        "Incorrect type for the 'public' field on 'DeriveKeyAlgorithm': the provided value is not of type 'CryptoKey'.",
        false,
      ],
    ]);
    // The host's own refusal of a number it does not hold, which no program reaches past the
    // runtime's check, is crypto-bridge.test.ts's: NOT_A_CRYPTO_KEY_MESSAGE.
    expect(NOT_A_CRYPTO_KEY_MESSAGE).toBe('The provided value is not of type CryptoKey.');
  });

  test('a pair is a plain record, publicKey first; its halves have their own algorithm objects', async () => {
    const result = await run(`
      const pair = await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
      return [Object.getPrototypeOf(pair) === Object.prototype, Object.keys(pair),
        pair.publicKey.algorithm === pair.privateKey.algorithm, pair.publicKey.usages, pair.privateKey.usages];
    `);
    expect(result).toStrictEqual([true, ['publicKey', 'privateKey'], false, ['verify'], ['sign']]);
  });
});

describe('WebIDL conversions of the arguments', () => {
  test('a missing or mistyped argument rejects (never throws) with workerd’s TypeError', async () => {
    const result = await run(`
      const key = await subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, true, ['sign']);
      const calls = {
        digest: () => subtle.digest(),
        digestData: () => subtle.digest('SHA-256', 'abc'),
        digestShared: () => subtle.digest('SHA-256', new SharedArrayBuffer(4)),
        encrypt: () => subtle.encrypt(),
        sign: () => subtle.sign('HMAC'),
        verify: () => subtle.verify('HMAC', key, bytes('x')),
        generateKey: () => subtle.generateKey(),
        generateExtractable: () => subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }),
        generateUsages: () => subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, true, 'sign'),
        deriveBits: () => subtle.deriveBits(),
        importKey: () => subtle.importKey(),
        importData: () => subtle.importKey('raw', 5),
        importAlgorithm: () => subtle.importKey('raw', bytes('x')),
        exportKey: () => subtle.exportKey('raw', {}),
        wrapKey: () => subtle.wrapKey('raw'),
        unwrapKey: () => subtle.unwrapKey('raw', bytes('x')),
      };
      const out = {};
      for (const [name, call] of Object.entries(calls)) {
        let sync = 'returned';
        let promise;
        try { promise = call(); } catch { sync = 'threw'; }
        out[name] = [sync, ...(await failure(promise))];
      }
      return out;
    `);
    const reason = (method: string, position: number, type: string) => [
      'returned',
      'TypeError',
      `Failed to execute '${method}' on 'SubtleCrypto': parameter ${position} is not of type '${type}'.`,
      false,
    ];
    expect(result).toStrictEqual({
      digest: reason('digest', 1, 'string or HashAlgorithm'),
      digestData: reason('digest', 2, 'BufferSource'),
      digestShared: reason('digest', 2, 'BufferSource'),
      encrypt: reason('encrypt', 1, 'string or EncryptAlgorithm'),
      sign: reason('sign', 2, 'CryptoKey'),
      verify: reason('verify', 4, 'BufferSource'),
      generateKey: reason('generateKey', 1, 'string or GenerateKeyAlgorithm'),
      generateExtractable: reason('generateKey', 2, 'boolean'),
      generateUsages: reason('generateKey', 3, 'Array'),
      deriveBits: reason('deriveBits', 1, 'string or DeriveKeyAlgorithm'),
      importKey: reason('importKey', 1, 'string'),
      importData: reason('importKey', 2, 'BufferSource or JsonWebKey'),
      importAlgorithm: reason('importKey', 3, 'string or ImportKeyAlgorithm'),
      exportKey: reason('exportKey', 2, 'CryptoKey'),
      wrapKey: reason('wrapKey', 2, 'CryptoKey'),
      unwrapKey: reason('unwrapKey', 3, 'CryptoKey'),
    });
  });

  test('normalize an algorithm: a string is its name, names match ASCII case-insensitively, hash is normalized as digest, unknown members are dropped', async () => {
    const result = await run(`
      const hmac = await subtle.generateKey({ name: 'hMaC', hash: 'sha-384', foo: 'never read' }, true, ['sign']);
      const aes = await subtle.generateKey({ name: 'Aes-Gcm', length: 128, iv: 'not an AES key member' }, true, ['encrypt']);
      const read = [];
      const spy = new Proxy({ name: 'HMAC', hash: 'SHA-256', length: 64, other: 1 }, { get(target, name) { read.push(name); return target[name]; } });
      await subtle.importKey('raw', bytes('kkkkkkkk'), spy, false, ['sign']);
      return [hmac.algorithm, aes.algorithm, read];
    `);
    expect(result).toStrictEqual([
      { name: 'HMAC', hash: { name: 'SHA-384' }, length: 1024 },
      { name: 'AES-GCM', length: 128 },
      // name for the Algorithm dictionary, then HmacImportParams: name, then its members in lexicographic order.
      ['name', 'name', 'hash', 'length'],
    ]);
  });

  test('normalize an algorithm: errors it returns (NotSupportedError, TypeError for a missing or mistyped member, [EnforceRange])', async () => {
    const result = await run(`
      const key = await subtle.generateKey({ name: 'AES-GCM', length: 128 }, true, ['encrypt']);
      const hkdf = await subtle.importKey('raw', bytes('k'), 'HKDF', false, ['deriveBits']);
      return {
        digest: await failure(subtle.digest('SHA-3', bytes('x'))),
        generate: await failure(subtle.generateKey({ name: 'FOO' }, true, ['sign'])),
        importKey: await failure(subtle.importKey('raw', bytes('k'), 'FOO', true, ['sign'])),
        encrypt: await failure(subtle.encrypt('HMAC', key, bytes('x'))),
        missingName: await failure(subtle.generateKey({}, true, ['sign'])),
        missingHash: await failure(subtle.generateKey({ name: 'HMAC' }, true, ['sign'])),
        missingIv: await failure(subtle.encrypt({ name: 'AES-GCM' }, key, bytes('x'))),
        wrongIv: await failure(subtle.encrypt({ name: 'AES-GCM', iv: 'x' }, key, bytes('x'))),
        wrongSalt: await failure(subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt: 'x', info: bytes('') }, hkdf, 8)),
        badHash: await failure(subtle.generateKey({ name: 'HMAC', hash: 'SHA-3' }, true, ['sign'])),
        exponent: await failure(subtle.generateKey({ name: 'RSA-PSS', modulusLength: 1024, publicExponent: [1, 0, 1], hash: 'SHA-256' }, true, ['sign'])),
        tagLength: await failure(subtle.encrypt({ name: 'AES-GCM', iv: new Uint8Array(12), tagLength: 256 }, key, bytes('x'))),
        missingPublic: await failure(subtle.deriveBits({ name: 'ECDH' }, hkdf, 8)),
      };
    `);
    expect(result).toStrictEqual({
      digest: ['NotSupportedError', 'Unrecognized or unimplemented digest algorithm requested.', true],
      generate: ['NotSupportedError', 'Unrecognized key generation algorithm "FOO" requested.', true],
      importKey: ['NotSupportedError', 'Unrecognized key import algorithm "FOO" requested.', true],
      encrypt: [
        'NotSupportedError',
        'Unrecognized or unimplemented encrypt algorithm "HMAC" requested.',
        true,
      ],
      missingName: ['TypeError', 'Missing field "name" in "algorithm".', false],
      missingHash: ['TypeError', 'Missing field "hash" in "algorithm".', false],
      missingIv: ['TypeError', 'Missing field "iv" in "algorithm".', false],
      wrongIv: [
        'TypeError',
        "Incorrect type for the 'iv' field on 'EncryptAlgorithm': the provided value is not of type 'BufferSource'.",
        false,
      ],
      wrongSalt: [
        'TypeError',
        "Incorrect type for the 'salt' field on 'DeriveKeyAlgorithm': the provided value is not of type 'BufferSource'.",
        false,
      ],
      badHash: ['NotSupportedError', 'Unrecognized or unimplemented digest algorithm requested.', true],
      exponent: [
        'TypeError',
        "Incorrect type for the 'publicExponent' field on 'GenerateKeyAlgorithm': the provided value is not of type 'Uint8Array'.",
        false,
      ],
      tagLength: [
        'TypeError',
        "The 'tagLength' field on 'EncryptAlgorithm' is outside the range [0, 255].",
        false,
      ],
      missingPublic: ['TypeError', 'Missing field "public" in "derivedKeyParams".', false],
    });
  });

  test('KeyFormat and KeyUsage are enumerations (TypeError); a usages sequence is any iterable', async () => {
    const result = await run(`
      const key = await subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, true, new Set(['sign', 'verify']));
      return [
        key.usages,
        await failure(subtle.exportKey('pem', key)),
        await failure(subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, true, ['sign', 'bogus'])),
      ];
    `);
    expect(result).toStrictEqual([
      ['sign', 'verify'],
      [
        'TypeError',
        "Failed to execute 'exportKey' on 'SubtleCrypto': The provided value 'pem' is not a valid enum value of type KeyFormat.",
        false,
      ],
      [
        'TypeError',
        "Failed to execute 'generateKey' on 'SubtleCrypto': The provided value 'bogus' is not a valid enum value of type KeyUsage.",
        false,
      ],
    ]);
  });

  test('importKey step 8: keyData must be a JsonWebKey for "jwk" and a BufferSource otherwise', async () => {
    const result = await run(`
      const hmac = { name: 'HMAC', hash: 'SHA-256' };
      return [
        await failure(subtle.importKey('jwk', bytes('k'), hmac, true, ['sign'])),
        await failure(subtle.importKey('raw', { kty: 'oct', k: 'AQID' }, hmac, true, ['sign'])),
        await failure(subtle.importKey('jwk', { kty: 'oct', k: 'AQID', key_ops: 'sign' }, hmac, true, ['sign'])),
        (await subtle.importKey('jwk', { kty: 'oct', k: 'AQID', alg: 'HS256', unknown: {} }, hmac, true, ['sign'])).algorithm,
      ];
    `);
    expect(result).toStrictEqual([
      ['TypeError', 'Import data provided for "jwk" import format must be a JsonWebKey.', false],
      ['TypeError', 'Import data provided for buffer-based import formats must be a buffer source.', false],
      [
        'TypeError',
        "Incorrect type for the 'key_ops' field on 'JsonWebKey': the provided value is not of type 'Array'.",
        false,
      ],
      { name: 'HMAC', hash: { name: 'SHA-256' }, length: 24 },
    ]);
  });
});

describe('the steps before the operation', () => {
  test('the key’s algorithm and usages must allow the operation (encrypt steps 8-9 and their likes: InvalidAccessError)', async () => {
    const result = await run(`
      const hmac = await subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, true, ['sign']);
      const aes = await subtle.generateKey({ name: 'AES-GCM', length: 128 }, true, ['encrypt']);
      const pbkdf2 = await subtle.importKey('raw', bytes('p'), 'PBKDF2', false, ['deriveBits']);
      return [
        await failure(subtle.verify('HMAC', hmac, bytes('s'), bytes('d'))),
        await failure(subtle.sign('Ed25519', hmac, bytes('d'))),
        await failure(subtle.decrypt({ name: 'AES-GCM', iv: new Uint8Array(12) }, aes, bytes('d'))),
        await failure(subtle.deriveKey({ name: 'PBKDF2', hash: 'SHA-256', salt: bytes('s'), iterations: 1 }, pbkdf2, { name: 'AES-GCM', length: 128 }, true, ['encrypt'])),
        await failure(subtle.wrapKey('raw', hmac, aes, { name: 'AES-GCM', iv: new Uint8Array(12) })),
      ];
    `);
    expect(result).toStrictEqual([
      [
        'InvalidAccessError',
        'Requested key usage "verify" does not match any usage listed in this CryptoKey.',
        true,
      ],
      [
        'InvalidAccessError',
        'Requested algorithm "Ed25519" does not match this CryptoKey\'s algorithm "HMAC".',
        true,
      ],
      [
        'InvalidAccessError',
        'Requested key usage "decrypt" does not match any usage listed in this CryptoKey.',
        true,
      ],
      [
        'InvalidAccessError',
        'Requested key usage "deriveKey" does not match any usage listed in this CryptoKey.',
        true,
      ],
      [
        'InvalidAccessError',
        'Requested key usage "wrapKey" does not match any usage listed in this CryptoKey.',
        true,
      ],
    ]);
  });

  test('generate key and import key refuse usages their algorithm does not allow, and a secret or private key without one (SyntaxError)', async () => {
    const result = await run(`
      const pair = await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
      const spki = await subtle.exportKey('spki', pair.publicKey);
      return [
        await failure(subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, true, ['encrypt'])),
        await failure(subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, true, [])),
        await failure(subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['verify'])),
        await failure(subtle.generateKey('Ed25519', true, ['encrypt'])),
        await failure(subtle.importKey('raw', new Uint8Array(16), 'AES-GCM', true, ['sign'])),
        await failure(subtle.importKey('spki', spki, { name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign'])),
        (await subtle.importKey('spki', spki, { name: 'ECDSA', namedCurve: 'P-256' }, true, [])).usages,
        await failure(subtle.importKey('raw', bytes('p'), 'PBKDF2', true, ['deriveBits'])),
        await failure(subtle.importKey('raw', bytes('p'), 'PBKDF2', false, [])),
      ];
    `);
    expect(result).toStrictEqual([
      ['SyntaxError', 'Attempt to generate HMAC key with invalid usage "encrypt".', true],
      ['SyntaxError', 'Secret/private CryptoKeys must have at least one usage.', true],
      ['SyntaxError', 'Attempt to generate asymmetric keys with no valid private key usages.', true],
      ['SyntaxError', 'Attempt to generate Ed25519 key with invalid usage "encrypt".', true],
      ['SyntaxError', 'Attempt to import secret AES-GCM key with invalid usage "sign".', true],
      ['SyntaxError', 'Attempt to import public ECDSA key with invalid usage "sign".', true],
      [],
      ['SyntaxError', 'PBKDF2 key cannot be extractable.', true],
      ['SyntaxError', 'Secret/private CryptoKeys must have at least one usage.', true],
    ]);
  });

  test('export key step 6: each algorithm’s format checks (NotSupportedError, InvalidAccessError)', async () => {
    const result = await run(`
      const hmac = await subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, true, ['sign']);
      const ec = await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign']);
      const ed = await subtle.generateKey('Ed25519', true, ['sign']);
      return [
        await failure(subtle.exportKey('spki', hmac)),
        await failure(subtle.exportKey('raw', ec.privateKey)),
        await failure(subtle.exportKey('raw', ed.privateKey)),
        (await subtle.exportKey('raw', ec.publicKey)).byteLength,
        (await subtle.exportKey('raw', ed.publicKey)).byteLength,
      ];
    `);
    expect(result).toStrictEqual([
      ['NotSupportedError', 'Unimplemented key export format "spki".', true],
      ['InvalidAccessError', 'Raw export of elliptic curve keys is only allowed for public keys.', true],
      ['InvalidAccessError', 'Raw export of Ed25519 keys is only allowed for public keys.', true],
      65,
      32,
    ]);
  });

  test('AES key lengths: generate key (OperationError), raw import (DataError), derived key length (OperationError)', async () => {
    const result = await run(`
      const pbkdf2 = await subtle.importKey('raw', bytes('p'), 'PBKDF2', false, ['deriveKey']);
      return [
        await failure(subtle.generateKey({ name: 'AES-GCM', length: 100 }, true, ['encrypt'])),
        await failure(subtle.importKey('raw', bytes('abc'), 'AES-CBC', true, ['encrypt'])),
        await failure(subtle.deriveKey({ name: 'PBKDF2', hash: 'SHA-256', salt: bytes('s'), iterations: 1 }, pbkdf2, { name: 'AES-GCM', length: 100 }, true, ['encrypt'])),
      ];
    `);
    expect(result).toStrictEqual([
      ['OperationError', 'Generated AES key length must be 128, 192, or 256 bits but requested 100.', true],
      ['DataError', 'Imported AES key length must be 128, 192, or 256 bits but provided 24.', true],
      ['OperationError', 'Derived AES key must be 128, 192, or 256 bits in length but provided 100.', true],
    ]);
  });

  test('failures the host’s webcrypto finds cross with their DOMException names (PBKDF2 with no length: OperationError)', async () => {
    const result = await run(`
      const pbkdf2 = await subtle.importKey('raw', bytes('p'), 'PBKDF2', false, ['deriveBits']);
      return [
        (await failure(subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt: bytes('s'), iterations: 1 }, pbkdf2)))[0],
        (await failure(subtle.generateKey({ name: 'RSA-PSS', modulusLength: 100, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, true, ['sign'])))[0],
        (await failure(subtle.importKey('spki', bytes('not a key'), { name: 'ECDSA', namedCurve: 'P-256' }, true, ['verify'])))[0],
      ];
    `);
    expect(result).toStrictEqual(['OperationError', 'OperationError', 'DataError']);
  });
});

describe('timingSafeEqual (workerd’s extension)', () => {
  test('compares byte for byte, synchronously, and refuses buffers of different lengths', async () => {
    const result = await run(`
      return [
        subtle.timingSafeEqual(bytes('abc'), bytes('abc').buffer),
        subtle.timingSafeEqual(bytes('abc'), bytes('abd')),
        subtle.timingSafeEqual(new ArrayBuffer(0), new DataView(new ArrayBuffer(0))),
        thrown(() => subtle.timingSafeEqual(bytes('a'), bytes('ab'))),
        thrown(() => subtle.timingSafeEqual('a', 'a')),
      ];
    `);
    expect(result).toStrictEqual([
      true,
      false,
      true,
      ['TypeError', 'Input buffers must have the same byte length.', false],
      [
        'TypeError',
        "Failed to execute 'timingSafeEqual' on 'SubtleCrypto': parameter 1 is not of type 'BufferSource'.",
        false,
      ],
    ]);
  });
});

describe('getRandomValues and randomUUID (WebCrypto "Crypto interface")', () => {
  test('fills integer arrays in place and returns them; workerd’s errors for the rest', async () => {
    const result = await run(`
      const array = new Uint32Array(8);
      const same = crypto.getRandomValues(array) === array;
      return [
        same,
        array.some((x) => x !== 0),
        crypto.getRandomValues(new BigInt64Array(2)).length,
        thrown(() => crypto.getRandomValues(new Uint8Array(65537))),
        thrown(() => crypto.getRandomValues(new Int32Array(16385))),
        thrown(() => crypto.getRandomValues(new Float32Array(1))),
        thrown(() => crypto.getRandomValues(new DataView(new ArrayBuffer(4)))),
        thrown(() => crypto.getRandomValues(new ArrayBuffer(4))),
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(crypto.randomUUID()),
      ];
    `);
    expect(result).toStrictEqual([
      true,
      true,
      2,
      [
        'QuotaExceededError',
        'getRandomValues() only accepts buffers of size <= 64K but provided 65537 bytes.',
        true,
      ],
      [
        'QuotaExceededError',
        'getRandomValues() only accepts buffers of size <= 64K but provided 65540 bytes.',
        true,
      ],
      [
        'TypeMismatchError',
        'ArrayBufferView argument to getRandomValues() must be an integer-typed view.',
        true,
      ],
      [
        'TypeMismatchError',
        'ArrayBufferView argument to getRandomValues() must be an integer-typed view.',
        true,
      ],
      [
        'TypeError',
        "Failed to execute 'getRandomValues' on 'Crypto': parameter 1 is not of type 'ArrayBufferView'.",
        false,
      ],
      true,
    ]);
  });
});
