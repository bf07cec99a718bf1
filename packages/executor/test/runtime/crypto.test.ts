/**
 * crypto.subtle in a real isolate, every SubtleCrypto method with a real algorithm of each family,
 * checked against known answers (the RFC and FIPS vectors named in each test) or against Node's
 * own crypto on the host. Each title names the WebCrypto algorithm section it exercises
 * (https://w3c.github.io/webcrypto/).
 */
import {
  constants,
  createCipheriv,
  createHash,
  createHmac,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  sign as nodeSign,
  verify as nodeVerify,
  pbkdf2Sync,
  privateDecrypt,
} from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { useSandbox } from '../helpers.ts';
import { hexOf, runProgram } from './crypto-helpers.ts';

const sandbox = useSandbox();
const run = (body: string, input?: unknown) => runProgram(sandbox, body, input);

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const rsaSpki = hexOf(rsa.publicKey.export({ type: 'spki', format: 'der' }));
const rsaPkcs8 = hexOf(rsa.privateKey.export({ type: 'pkcs8', format: 'der' }));

describe('digest (SHA section)', () => {
  test('SHA-1, SHA-256, SHA-384 and SHA-512 of "abc" give the FIPS 180-2 answers', async () => {
    const result = await run(`
      const out = {};
      for (const name of ['SHA-1', 'SHA-256', 'SHA-384', 'SHA-512']) out[name] = hex(await subtle.digest(name, bytes('abc')));
      return out;
    `);
    expect(result).toStrictEqual({
      'SHA-1': 'a9993e364706816aba3e25717850c26c9cd0d89d',
      'SHA-256': 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      'SHA-384':
        'cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7',
      'SHA-512':
        'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f',
    });
  });

  test('every BufferSource (ArrayBuffer, a view with an offset, DataView) is hashed over the bytes it covers, as Node hashes them', async () => {
    const data = Buffer.from(Array.from({ length: 1000 }, (_, index) => (index * 7) & 0xff));
    const result = await run(
      `
      const data = fromHex(input);
      const view = new Uint8Array(data.length + 10);
      view.set(data, 5);
      return [
        hex(await subtle.digest({ name: 'sha-256' }, data.buffer)),
        hex(await subtle.digest('SHA-256', view.subarray(5, 5 + data.length))),
        hex(await subtle.digest('SHA-256', new DataView(view.buffer, 5, data.length))),
        hex(await subtle.digest('SHA-512', new Uint8Array(0))),
      ];
    `,
      hexOf(data),
    );
    const sha256 = createHash('sha256').update(data).digest('hex');
    expect(result).toStrictEqual([sha256, sha256, sha256, createHash('sha512').digest('hex')]);
  });

  test('the data is copied when digest is called (WebCrypto digest, step 2): a later change is not hashed', async () => {
    const result = await run(`
      const data = bytes('abc');
      const pending = subtle.digest('SHA-256', data);
      data[0] = 0;
      return hex(await pending);
    `);
    expect(result).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('HMAC', () => {
  test('sign with an imported raw key gives RFC 4231 test case 2; verify accepts it and refuses a changed one', async () => {
    const result = await run(`
      const key = await subtle.importKey('raw', bytes('Jefe'), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
      const data = bytes('what do ya want for nothing?');
      const signature = await subtle.sign('HMAC', key, data);
      const changed = new Uint8Array(signature.slice(0)); changed[0] ^= 1;
      return [hex(signature), await subtle.verify('HMAC', key, signature, data), await subtle.verify({ name: 'HMAC' }, key, changed, data)];
    `);
    expect(result).toStrictEqual([
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
      true,
      false,
    ]);
  });

  test('generateKey makes a key of the hash block size; exportKey raw and jwk give the key Node signs with identically', async () => {
    const result = (await run(`
      const key = await subtle.generateKey({ name: 'HMAC', hash: 'SHA-384' }, true, ['sign']);
      const raw = await subtle.exportKey('raw', key);
      const jwk = await subtle.exportKey('jwk', key);
      return { raw: hex(raw), jwk, algorithm: key.algorithm, signature: hex(await subtle.sign('HMAC', key, bytes('message'))) };
    `)) as { raw: string; jwk: Record<string, unknown>; algorithm: unknown; signature: string };
    expect(result.algorithm).toStrictEqual({ name: 'HMAC', hash: { name: 'SHA-384' }, length: 1024 });
    expect(result.raw).toHaveLength(256);
    expect(result.jwk).toMatchObject({ kty: 'oct', alg: 'HS384', ext: true, key_ops: ['sign'] });
    expect(Buffer.from(result.jwk.k as string, 'base64url').toString('hex')).toBe(result.raw);
    expect(result.signature).toBe(
      createHmac('sha384', Buffer.from(result.raw, 'hex')).update('message').digest('hex'),
    );
  });
});

describe('AES', () => {
  const key = '000102030405060708090a0b0c0d0e0f';
  const key256 = `${key}${key}`;
  const iv = 'a0a1a2a3a4a5a6a7a8a9aaabacadaeaf';

  test('AES-GCM encrypt matches Node (ciphertext then 128-bit tag), with additionalData; decrypt inverts it', async () => {
    const result = await run(
      `
      const key = await subtle.importKey('raw', fromHex(input.key), 'AES-GCM', false, ['encrypt', 'decrypt']);
      const params = { name: 'AES-GCM', iv: fromHex(input.iv), additionalData: bytes('header') };
      const sealed = await subtle.encrypt(params, key, bytes('attack at dawn'));
      const opened = await subtle.decrypt(params, key, sealed);
      return [hex(sealed), String.fromCharCode(...new Uint8Array(opened))];
    `,
      { key, iv: iv.slice(0, 24) },
    );
    const cipher = createCipheriv(
      'aes-128-gcm',
      Buffer.from(key, 'hex'),
      Buffer.from(iv.slice(0, 24), 'hex'),
    );
    cipher.setAAD(Buffer.from('header'));
    const expected = Buffer.concat([cipher.update('attack at dawn'), cipher.final(), cipher.getAuthTag()]);
    expect(result).toStrictEqual([hexOf(expected), 'attack at dawn']);
  });

  test("a failed AES-GCM decrypt rejects with a DOMException whose name is 'OperationError' (AES-GCM decrypt, step 6)", async () => {
    const result = await run(`
      const key = await subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
      const iv = new Uint8Array(12);
      const sealed = new Uint8Array(await subtle.encrypt({ name: 'AES-GCM', iv }, key, bytes('secret')));
      sealed[0] ^= 1;
      try {
        await subtle.decrypt({ name: 'AES-GCM', iv }, key, sealed);
        return 'decrypted';
      } catch (e) {
        return [e.name === 'OperationError', e instanceof DOMException, e.code, e.message];
      }
    `);
    expect(result).toStrictEqual([
      true,
      true,
      0,
      'Decryption failed. This could be due to a ciphertext authentication failure, bad padding, incorrect CryptoKey, or another algorithm-specific reason. Input length was 6, output length expected to be 6 for AES-GCM',
    ]);
  });

  test('AES-CBC encrypt matches Node (PKCS#7 padding); decrypt inverts it', async () => {
    const result = await run(
      `
      const key = await subtle.importKey('raw', fromHex(input.key), { name: 'AES-CBC' }, true, ['encrypt', 'decrypt']);
      const sealed = await subtle.encrypt({ name: 'AES-CBC', iv: fromHex(input.iv) }, key, bytes('sixteen byte msg!'));
      const opened = await subtle.decrypt({ name: 'AES-CBC', iv: fromHex(input.iv) }, key, sealed);
      return [hex(sealed), String.fromCharCode(...new Uint8Array(opened)), key.algorithm];
    `,
      { key: key256, iv },
    );
    const cipher = createCipheriv('aes-256-cbc', Buffer.from(key256, 'hex'), Buffer.from(iv, 'hex'));
    const expected = Buffer.concat([cipher.update('sixteen byte msg!'), cipher.final()]);
    expect(result).toStrictEqual([hexOf(expected), 'sixteen byte msg!', { name: 'AES-CBC', length: 256 }]);
  });

  test('AES-CTR encrypt matches Node with a 64-bit counter block', async () => {
    const result = await run(
      `
      const key = await subtle.importKey('raw', fromHex(input.key), 'AES-CTR', false, ['encrypt']);
      return hex(await subtle.encrypt({ name: 'AES-CTR', counter: fromHex(input.iv), length: 64 }, key, bytes('counter mode text')));
    `,
      { key, iv },
    );
    const cipher = createCipheriv('aes-128-ctr', Buffer.from(key, 'hex'), Buffer.from(iv, 'hex'));
    expect(result).toBe(hexOf(Buffer.concat([cipher.update('counter mode text'), cipher.final()])));
  });

  test('AES-KW wrapKey gives RFC 3394 section 4.1; unwrapKey restores the key', async () => {
    const result = await run(`
      const kek = await subtle.importKey('raw', fromHex('000102030405060708090A0B0C0D0E0F'), 'AES-KW', false, ['wrapKey', 'unwrapKey']);
      const key = await subtle.importKey('raw', fromHex('00112233445566778899AABBCCDDEEFF'), 'AES-GCM', true, ['encrypt']);
      const wrapped = await subtle.wrapKey('raw', key, kek, 'AES-KW');
      const unwrapped = await subtle.unwrapKey('raw', wrapped, kek, { name: 'AES-KW' }, 'AES-GCM', true, ['decrypt']);
      return [hex(wrapped), hex(await subtle.exportKey('raw', unwrapped)), unwrapped.usages, unwrapped.algorithm];
    `);
    expect(result).toStrictEqual([
      '1fa68b0a8112b447aef34bd8fb5a7b829d3e862371d2cfe5',
      '00112233445566778899aabbccddeeff',
      ['decrypt'],
      { name: 'AES-GCM', length: 128 },
    ]);
  });

  test('wrapKey and unwrapKey in "jwk" format under AES-GCM (the encrypt fallback of wrapKey, step 3)', async () => {
    const result = await run(`
      const wrapping = await subtle.generateKey({ name: 'AES-GCM', length: 128 }, false, ['wrapKey', 'unwrapKey']);
      const key = await subtle.importKey('raw', bytes('hmac key'), { name: 'HMAC', hash: 'SHA-256' }, true, ['sign']);
      const iv = new Uint8Array(12);
      const wrapped = await subtle.wrapKey('jwk', key, wrapping, { name: 'AES-GCM', iv });
      const unwrapped = await subtle.unwrapKey('jwk', wrapped, wrapping, { name: 'AES-GCM', iv }, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
      return [
        hex(await subtle.sign('HMAC', unwrapped, bytes('m'))) === hex(await subtle.sign('HMAC', key, bytes('m'))),
        unwrapped.extractable,
        await failure(subtle.exportKey('raw', unwrapped)),
      ];
    `);
    expect(result).toStrictEqual([
      true,
      false,
      ['InvalidAccessError', 'Attempt to export non-extractable HMAC key.', true],
    ]);
  });
});

describe('ECDSA', () => {
  test('generateKey P-256: sign in the isolate, verify there and with Node on the host', async () => {
    const result = (await run(`
      const { publicKey, privateKey } = await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
      const signature = await subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, privateKey, bytes('signed'));
      return {
        verified: await subtle.verify({ name: 'ECDSA', hash: { name: 'SHA-256' } }, publicKey, signature, bytes('signed')),
        spki: hex(await subtle.exportKey('spki', publicKey)),
        signature: hex(signature),
        algorithm: publicKey.algorithm,
        usages: [publicKey.usages, privateKey.usages],
        extractable: [publicKey.extractable, privateKey.extractable],
      };
    `)) as Record<string, unknown>;
    const key = createPublicKey({
      key: Buffer.from(result.spki as string, 'hex'),
      format: 'der',
      type: 'spki',
    });
    expect(
      nodeVerify(
        'sha256',
        Buffer.from('signed'),
        { key, dsaEncoding: 'ieee-p1363' },
        Buffer.from(result.signature as string, 'hex'),
      ),
    ).toBe(true);
    expect(result).toMatchObject({
      verified: true,
      algorithm: { name: 'ECDSA', namedCurve: 'P-256' },
      usages: [['verify'], ['sign']],
      extractable: [true, false],
    });
  });

  test('importKey of a P-384 JWK private key signs what Node verifies', async () => {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    const jwk = pair.privateKey.export({ format: 'jwk' });
    const signature = await run(
      `
      const key = await subtle.importKey('jwk', input, { name: 'ECDSA', namedCurve: 'P-384' }, false, ['sign']);
      return hex(await subtle.sign({ name: 'ECDSA', hash: 'SHA-384' }, key, bytes('jwk')));
    `,
      jwk,
    );
    expect(
      nodeVerify(
        'sha384',
        Buffer.from('jwk'),
        { key: pair.publicKey, dsaEncoding: 'ieee-p1363' },
        Buffer.from(signature as string, 'hex'),
      ),
    ).toBe(true);
  });
});

describe('ECDH', () => {
  test('deriveBits with the other side’s public key nested in the algorithm agrees both ways and with Node', async () => {
    const host = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const result = (await run(
      `
      const mine = await subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, ['deriveBits', 'deriveKey']);
      const theirs = await subtle.importKey('jwk', input, { name: 'ECDH', namedCurve: 'P-256' }, false, []);
      const bits = await subtle.deriveBits({ name: 'ECDH', public: theirs }, mine.privateKey, 256);
      const other = await subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, false, ['deriveBits']);
      const ab = await subtle.deriveBits({ name: 'ECDH', public: other.publicKey }, mine.privateKey, 256);
      const ba = await subtle.deriveBits({ name: 'ECDH', public: mine.publicKey }, other.privateKey, 256);
      return {
        bits: hex(bits),
        agree: hex(ab) === hex(ba),
        pkcs8: hex(await subtle.exportKey('pkcs8', mine.privateKey)),
        theirs: [theirs.type, theirs.usages],
      };
    `,
      host.publicKey.export({ format: 'jwk' }),
    )) as Record<string, unknown>;
    const mine = createPrivateKey({
      key: Buffer.from(result.pkcs8 as string, 'hex'),
      format: 'der',
      type: 'pkcs8',
    });
    expect(result.bits).toBe(hexOf(diffieHellman({ privateKey: mine, publicKey: host.publicKey })));
    expect(result.agree).toBe(true);
    expect(result.theirs).toStrictEqual(['public', []]);
  });

  test('deriveKey (ECDH then AES-GCM import, deriveKey steps 13-16) gives both sides one key', async () => {
    const result = await run(`
      const a = await subtle.generateKey({ name: 'ECDH', namedCurve: 'P-384' }, false, ['deriveKey']);
      const b = await subtle.generateKey({ name: 'ECDH', namedCurve: 'P-384' }, false, ['deriveKey']);
      const type = { name: 'AES-GCM', length: 256 };
      const ka = await subtle.deriveKey({ name: 'ECDH', public: b.publicKey }, a.privateKey, type, true, ['encrypt', 'decrypt']);
      const kb = await subtle.deriveKey({ name: 'ECDH', public: a.publicKey }, b.privateKey, type, true, ['decrypt']);
      const iv = new Uint8Array(12);
      const sealed = await subtle.encrypt({ name: 'AES-GCM', iv }, ka, bytes('agreed'));
      return [String.fromCharCode(...new Uint8Array(await subtle.decrypt({ name: 'AES-GCM', iv }, kb, sealed))), ka.algorithm, kb.usages];
    `);
    expect(result).toStrictEqual(['agreed', { name: 'AES-GCM', length: 256 }, ['decrypt']]);
  });

  test('ECDH derive bits, steps 3-5: the nested key must be public, of ECDH and of the same curve (InvalidAccessError)', async () => {
    const result = await run(`
      const a = await subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, false, ['deriveBits']);
      const c = await subtle.generateKey({ name: 'ECDH', namedCurve: 'P-384' }, false, ['deriveBits']);
      const e = await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
      return [
        await failure(subtle.deriveBits({ name: 'ECDH', public: a.privateKey }, a.privateKey, 256)),
        await failure(subtle.deriveBits({ name: 'ECDH', public: e.publicKey }, a.privateKey, 256)),
        await failure(subtle.deriveBits({ name: 'ECDH', public: c.publicKey }, a.privateKey, 256)),
      ];
    `);
    expect(result).toStrictEqual([
      ['InvalidAccessError', 'The provided key has type "private", not "public"', true],
      [
        'InvalidAccessError',
        'Private key for derivation is using "ECDH" while public key is using "ECDSA".',
        true,
      ],
      [
        'InvalidAccessError',
        'Private key for derivation is using curve "P-256" while public key is using "P-384".',
        true,
      ],
    ]);
  });
});

describe('Ed25519 and X25519', () => {
  test('Ed25519 sign with the RFC 8032 section 7.1 TEST 1 key gives its signature; verify accepts it', async () => {
    const secret = '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60';
    const publicKey = 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a';
    const result = await run(
      `
      const privateKey = await subtle.importKey('jwk', input, 'Ed25519', false, ['sign']);
      const publicKey = await subtle.importKey('raw', fromHex(input.hex), { name: 'Ed25519' }, true, ['verify']);
      const signature = await subtle.sign('Ed25519', privateKey, new Uint8Array(0));
      return [hex(signature), await subtle.verify('Ed25519', publicKey, signature, new Uint8Array(0)), privateKey.algorithm, publicKey.type];
    `,
      {
        kty: 'OKP',
        crv: 'Ed25519',
        d: Buffer.from(secret, 'hex').toString('base64url'),
        x: Buffer.from(publicKey, 'hex').toString('base64url'),
        hex: publicKey,
      },
    );
    expect(result).toStrictEqual([
      'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
      true,
      { name: 'Ed25519' },
      'public',
    ]);
  });

  test('X25519 generateKey and deriveBits agree both ways (X25519 derive bits)', async () => {
    const result = await run(`
      const a = await subtle.generateKey('X25519', false, ['deriveBits']);
      const b = await subtle.generateKey({ name: 'X25519' }, false, ['deriveBits']);
      const ab = await subtle.deriveBits({ name: 'X25519', public: b.publicKey }, a.privateKey, 256);
      const ba = await subtle.deriveBits({ name: 'X25519', public: a.publicKey }, b.privateKey);
      return [hex(ab) === hex(ba), ab.byteLength, a.publicKey.algorithm];
    `);
    expect(result).toStrictEqual([true, 32, { name: 'X25519' }]);
  });
});

describe('RSA', () => {
  test('RSA-OAEP encrypt with an imported spki key is what Node decrypts; decrypt with the pkcs8 key inverts it', async () => {
    const result = (await run(
      `
      const publicKey = await subtle.importKey('spki', fromHex(input.spki), { name: 'RSA-OAEP', hash: 'SHA-256' }, false, ['encrypt']);
      const privateKey = await subtle.importKey('pkcs8', fromHex(input.pkcs8), { name: 'RSA-OAEP', hash: 'SHA-256' }, false, ['decrypt']);
      const sealed = await subtle.encrypt({ name: 'RSA-OAEP', label: bytes('label') }, publicKey, bytes('oaep'));
      const opened = await subtle.decrypt({ name: 'RSA-OAEP', label: bytes('label') }, privateKey, sealed);
      const wrongLabel = await failure(subtle.decrypt({ name: 'RSA-OAEP' }, privateKey, sealed));
      return { sealed: hex(sealed), opened: String.fromCharCode(...new Uint8Array(opened)), wrongLabel, algorithm: publicKey.algorithm };
    `,
      { spki: rsaSpki, pkcs8: rsaPkcs8 },
    )) as Record<string, unknown>;
    const opened = privateDecrypt(
      {
        key: rsa.privateKey,
        padding: constants.RSA_PKCS1_OAEP_PADDING,
        oaepHash: 'sha256',
        oaepLabel: Buffer.from('label'),
      },
      Buffer.from(result.sealed as string, 'hex'),
    );
    expect(opened.toString()).toBe('oaep');
    expect(result.opened).toBe('oaep');
    expect(result.wrongLabel).toStrictEqual(['OperationError', 'RSA-OAEP failed encrypt/decrypt.', true]);
    expect(result.algorithm).toStrictEqual({
      name: 'RSA-OAEP',
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: { name: 'SHA-256' },
    });
  });

  test('RSASSA-PKCS1-v1_5 sign is deterministic: it equals Node’s signature, and verify accepts it', async () => {
    const result = (await run(
      `
      const privateKey = await subtle.importKey('pkcs8', fromHex(input.pkcs8), { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['sign']);
      const publicKey = await subtle.importKey('spki', fromHex(input.spki), { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, true, ['verify']);
      const signature = await subtle.sign('RSASSA-PKCS1-v1_5', privateKey, bytes('pkcs1'));
      return [hex(signature), await subtle.verify('RSASSA-PKCS1-v1_5', publicKey, signature, bytes('pkcs1'))];
    `,
      { spki: rsaSpki, pkcs8: rsaPkcs8 },
    )) as [string, boolean];
    expect(result).toStrictEqual([hexOf(nodeSign('sha256', Buffer.from('pkcs1'), rsa.privateKey)), true]);
  });

  test('RSA-PSS: generateKey, sign with saltLength 32, and Node verifies with the exported public key', async () => {
    const result = (await run(`
      const { publicKey, privateKey } = await subtle.generateKey(
        { name: 'RSA-PSS', modulusLength: 1024, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, true, ['sign', 'verify']);
      const signature = await subtle.sign({ name: 'RSA-PSS', saltLength: 32 }, privateKey, bytes('pss'));
      return {
        spki: hex(await subtle.exportKey('spki', publicKey)),
        signature: hex(signature),
        verified: await subtle.verify({ name: 'RSA-PSS', saltLength: 32 }, publicKey, signature, bytes('pss')),
        exponent: Object.prototype.toString.call(publicKey.algorithm.publicExponent),
      };
    `)) as Record<string, unknown>;
    const key = createPublicKey({
      key: Buffer.from(result.spki as string, 'hex'),
      format: 'der',
      type: 'spki',
    });
    expect(
      nodeVerify(
        'sha256',
        Buffer.from('pss'),
        { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 },
        Buffer.from(result.signature as string, 'hex'),
      ),
    ).toBe(true);
    expect(result.verified).toBe(true);
    expect(result.exponent).toBe('[object Uint8Array]');
  });
});

describe('key derivation', () => {
  test('PBKDF2 deriveBits gives RFC 6070 test vectors 1 and 3 (SHA-1, c = 1 and 4096)', async () => {
    const result = await run(`
      const key = await subtle.importKey('raw', bytes('password'), 'PBKDF2', false, ['deriveBits']);
      const derive = (iterations) => subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-1', salt: bytes('salt'), iterations }, key, 160);
      return [hex(await derive(1)), hex(await derive(4096)), key.algorithm, key.type];
    `);
    expect(result).toStrictEqual([
      '0c60c80f961f0e71f3a9b524af6012062fe037a6',
      '4b007901b765489abead49d926f721d065a429c1',
      { name: 'PBKDF2' },
      'secret',
    ]);
  });

  test('PBKDF2 deriveKey makes the AES key Node’s pbkdf2 derives', async () => {
    const result = await run(`
      const key = await subtle.importKey('raw', bytes('pass'), { name: 'PBKDF2' }, false, ['deriveKey']);
      const derived = await subtle.deriveKey(
        { name: 'PBKDF2', hash: 'SHA-256', salt: bytes('NaCl'), iterations: 1000 }, key, { name: 'AES-CBC', length: 192 }, true, ['encrypt']);
      return [hex(await subtle.exportKey('raw', derived)), derived.algorithm, derived.type];
    `);
    expect(result).toStrictEqual([
      pbkdf2Sync('pass', 'NaCl', 1000, 24, 'sha256').toString('hex'),
      { name: 'AES-CBC', length: 192 },
      'secret',
    ]);
  });

  test('HKDF deriveBits gives RFC 5869 test case 1 (SHA-256, L = 42)', async () => {
    const result = await run(`
      const ikm = await subtle.importKey('raw', new Uint8Array(22).fill(0x0b), 'HKDF', false, ['deriveBits', 'deriveKey']);
      const bits = await subtle.deriveBits(
        { name: 'HKDF', hash: 'SHA-256', salt: fromHex('000102030405060708090a0b0c'), info: fromHex('f0f1f2f3f4f5f6f7f8f9') }, ikm, 42 * 8);
      const hmac = await subtle.deriveKey(
        { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: new Uint8Array(0) }, ikm, { name: 'HMAC', hash: 'SHA-256', length: 256 }, false, ['sign']);
      return [hex(bits), hmac.algorithm, ikm.usages];
    `);
    expect(result).toStrictEqual([
      '3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865',
      { name: 'HMAC', hash: { name: 'SHA-256' }, length: 256 },
      ['deriveKey', 'deriveBits'],
    ]);
  });
});

describe('import and export round trips (each algorithm’s export key and import key operations)', () => {
  test('every format each algorithm exports re-imports to a key that exports the same bytes', async () => {
    const result = await run(`
      const cases = [
        [{ name: 'HMAC', hash: 'SHA-256' }, ['sign', 'verify'], ['raw', 'jwk'], null],
        [{ name: 'AES-GCM', length: 256 }, ['encrypt', 'decrypt'], ['raw', 'jwk'], null],
        [{ name: 'AES-CTR', length: 192 }, ['encrypt'], ['raw', 'jwk'], null],
        [{ name: 'AES-KW', length: 128 }, ['wrapKey'], ['raw', 'jwk'], null],
        [{ name: 'ECDSA', namedCurve: 'P-521' }, ['sign', 'verify'], ['spki', 'raw', 'jwk'], ['pkcs8', 'jwk']],
        [{ name: 'ECDH', namedCurve: 'P-256' }, ['deriveBits'], ['spki', 'raw', 'jwk'], ['pkcs8', 'jwk']],
        [{ name: 'Ed25519' }, ['sign', 'verify'], ['spki', 'raw', 'jwk'], ['pkcs8', 'jwk']],
        [{ name: 'X25519' }, ['deriveBits'], ['spki', 'raw', 'jwk'], ['pkcs8', 'jwk']],
        [{ name: 'RSASSA-PKCS1-v1_5', modulusLength: 1024, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-1' }, ['sign', 'verify'], ['spki', 'jwk'], ['pkcs8', 'jwk']],
      ];
      const same = (a, b) => (a instanceof ArrayBuffer ? hex(a) === hex(b) : JSON.stringify(a) === JSON.stringify(b));
      const out = {};
      for (const [algorithm, usages, publicFormats, privateFormats] of cases) {
        const generated = await subtle.generateKey(algorithm, true, usages);
        const halves = generated instanceof CryptoKey ? [[generated, publicFormats]] : [[generated.publicKey, publicFormats], [generated.privateKey, privateFormats]];
        for (const [key, formats] of halves) {
          for (const format of formats) {
            const exported = await subtle.exportKey(format, key);
            const imported = await subtle.importKey(format, exported, key.algorithm, true, key.usages);
            const again = await subtle.exportKey(format, imported);
            out[key.algorithm.name + ' ' + key.type + ' ' + format] = same(exported, again) && imported.type === key.type;
          }
        }
      }
      return out;
    `);
    const failed = Object.entries(result as Record<string, boolean>).filter(([, ok]) => !ok);
    expect(failed).toStrictEqual([]);
    expect(Object.keys(result as object)).toHaveLength(32);
  });
});
