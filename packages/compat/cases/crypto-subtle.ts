/** crypto.subtle with fixed keys and test vectors, so every output is deterministic. */
import { defineArea } from '../src/case.ts';

const HEX = `const hex = (buffer) => Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, '0')).join('');`;
const ECDSA_JWK = `{"kty":"EC","crv":"P-256","x":"YZhAB0r__0clk8PBPer94yHYvVoTOguKtM5Juyui0HQ","y":"4_0fjP3mEg2vVI0m2opDZGsP5nI5-ZONLkYL1XjbjzU","d":"F5tezjX1gl657XmrI0tlW_8DxSum-rgkiUaGDPbZ8wc"}`;
const ECDH_A_JWK = `{"kty":"EC","crv":"P-256","x":"R2TCHYHz6Kk1X9uBTu37jqkdYDwU3sJynZOOQWasZlE","y":"1-yiV5MPtIZOWCyy4XjGAnQSNHhyWI2TTeacwi0Oo-I","d":"pIG8y7gmGZftZ_Vf0-HR9fgT2XMDUvwQvSJCeCzCM1g"}`;
const ECDH_B_PUBLIC_JWK = `{"kty":"EC","crv":"P-256","x":"KqpJztY6ZnGHpTXayMKd8gGlyRziL0tPM6r45eGCk80","y":"Wz8KqQo7scAInbuOMLmP2CdzB0JUXmj7rL6Zz8GLd_0"}`;

export default defineArea('crypto-subtle', [
  {
    name: 'sha256-hex',
    quick: true,
    code: `async () => {
  ${HEX}
  return hex(await crypto.subtle.digest('SHA-256', new TextEncoder().encode('hello')));
}`,
  },
  {
    name: 'sha-family',
    code: `async () => {
  ${HEX}
  const data = new TextEncoder().encode('abc');
  const out = {};
  for (const name of ['SHA-1', 'SHA-256', 'SHA-384', 'SHA-512']) out[name] = hex(await crypto.subtle.digest(name, data));
  out.objectForm = hex(await crypto.subtle.digest({ name: 'sha-256' }, data)).slice(0, 16);
  return out;
}`,
  },
  {
    name: 'hmac-sign',
    quick: true,
    code: `async () => {
  ${HEX}
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode('webhook-secret'), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  const signature = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode('{"event":"push"}'));
  return hex(signature);
}`,
  },
  {
    name: 'hmac-verify',
    code: `async () => {
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode('k'), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  const data = new TextEncoder().encode('payload');
  const signature = await crypto.subtle.sign('HMAC', key, data);
  const tampered = new Uint8Array(signature.slice(0)); tampered[0] ^= 1;
  return { valid: await crypto.subtle.verify('HMAC', key, signature, data), tampered: await crypto.subtle.verify('HMAC', key, tampered, data) };
}`,
  },
  {
    name: 'aes-gcm-fixed',
    code: `async () => {
  ${HEX}
  const key = await crypto.subtle.importKey('raw', new Uint8Array(16).fill(7), 'AES-GCM', false, ['encrypt', 'decrypt']);
  const iv = new Uint8Array(12).fill(1);
  const ciphertext = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: new TextEncoder().encode('aad') }, key, new TextEncoder().encode('secret message'));
  const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv, additionalData: new TextEncoder().encode('aad') }, key, ciphertext);
  return { ciphertext: hex(ciphertext), plain: new TextDecoder().decode(plain) };
}`,
  },
  {
    name: 'aes-cbc-fixed',
    code: `async () => {
  ${HEX}
  const key = await crypto.subtle.importKey('raw', new Uint8Array(32).fill(9), { name: 'AES-CBC' }, true, ['encrypt', 'decrypt']);
  const iv = new Uint8Array(16);
  const ciphertext = await crypto.subtle.encrypt({ name: 'AES-CBC', iv }, key, new TextEncoder().encode('sixteen byte msg!'));
  return { ciphertext: hex(ciphertext), length: ciphertext.byteLength };
}`,
  },
  {
    name: 'pbkdf2-derive-bits',
    code: `async () => {
  ${HEX}
  const base = await crypto.subtle.importKey('raw', new TextEncoder().encode('password'), 'PBKDF2', false, ['deriveBits']);
  const bits = await crypto.subtle.deriveBits({ name: 'PBKDF2', salt: new TextEncoder().encode('salt'), iterations: 1000, hash: 'SHA-256' }, base, 256);
  return hex(bits);
}`,
  },
  {
    name: 'hkdf-derive-bits',
    code: `async () => {
  ${HEX}
  const ikm = await crypto.subtle.importKey('raw', new Uint8Array(22).fill(0x0b), 'HKDF', false, ['deriveBits']);
  const salt = Uint8Array.from({ length: 13 }, (_, i) => i);
  const info = Uint8Array.from({ length: 10 }, (_, i) => 0xf0 + i);
  return hex(await crypto.subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt, info }, ikm, 336));
}`,
  },
  {
    name: 'ecdsa-sign-verify',
    code: `async () => {
  const jwk = ${ECDSA_JWK};
  const privateKey = await crypto.subtle.importKey('jwk', jwk, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
  const { d, ...pub } = jwk;
  const publicKey = await crypto.subtle.importKey('jwk', pub, { name: 'ECDSA', namedCurve: 'P-256' }, true, ['verify']);
  const data = new TextEncoder().encode('signed document');
  const signature = await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, privateKey, data);
  return { length: signature.byteLength, valid: await crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, publicKey, signature, data),
    wrongData: await crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, publicKey, signature, new TextEncoder().encode('other')) };
}`,
  },
  {
    name: 'ed25519-rfc8032-vector',
    code: `async () => {
  const fromHex = (h) => Uint8Array.from(h.match(/../g), (b) => parseInt(b, 16));
  const publicKey = await crypto.subtle.importKey('raw', fromHex('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a'), { name: 'Ed25519' }, true, ['verify']);
  const signature = fromHex('e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b');
  return { valid: await crypto.subtle.verify('Ed25519', publicKey, signature, new Uint8Array(0)), algorithm: publicKey.algorithm.name };
}`,
  },
  {
    name: 'ecdh-shared-secret',
    code: `async () => {
  ${HEX}
  const mine = await crypto.subtle.importKey('jwk', ${ECDH_A_JWK}, { name: 'ECDH', namedCurve: 'P-256' }, false, ['deriveBits']);
  const theirs = await crypto.subtle.importKey('jwk', ${ECDH_B_PUBLIC_JWK}, { name: 'ECDH', namedCurve: 'P-256' }, true, []);
  return hex(await crypto.subtle.deriveBits({ name: 'ECDH', public: theirs }, mine, 256));
}`,
  },
  {
    name: 'rsa-oaep-round-trip',
    code: `async () => {
  const { publicKey, privateKey } = await crypto.subtle.generateKey({ name: 'RSA-OAEP', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, false, ['encrypt', 'decrypt']);
  const ciphertext = await crypto.subtle.encrypt({ name: 'RSA-OAEP' }, publicKey, new TextEncoder().encode('api key'));
  return { length: ciphertext.byteLength, plain: new TextDecoder().decode(await crypto.subtle.decrypt({ name: 'RSA-OAEP' }, privateKey, ciphertext)), publicType: publicKey.type, privateExtractable: privateKey.extractable };
}`,
  },
  {
    name: 'export-jwk',
    code: `async () => {
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode('jwk-secret'), { name: 'HMAC', hash: 'SHA-512' }, true, ['sign']);
  return await crypto.subtle.exportKey('jwk', key);
}`,
  },
  {
    name: 'crypto-key-properties',
    code: `async () => {
  const key = await crypto.subtle.importKey('raw', new Uint8Array(16), { name: 'AES-GCM' }, false, ['encrypt']);
  return { type: key.type, extractable: key.extractable, algorithm: key.algorithm, usages: key.usages, tag: Object.prototype.toString.call(key), string: String(key), isCryptoKey: key instanceof CryptoKey };
}`,
  },
  {
    name: 'non-extractable-export',
    code: `async () => {
  const key = await crypto.subtle.importKey('raw', new Uint8Array(16), 'AES-GCM', false, ['encrypt']);
  try { await crypto.subtle.exportKey('raw', key); return 'exported'; } catch (e) { return { name: e.name, message: e.message, isDOMException: e instanceof DOMException }; }
}`,
  },
  {
    name: 'unsupported-algorithm',
    code: `async () => {
  const out = [];
  for (const f of [() => crypto.subtle.digest('MD5', new Uint8Array(1)), () => crypto.subtle.generateKey({ name: 'NOPE' }, true, ['sign'])]) {
    try { await f(); out.push('ok'); } catch (e) { out.push(e.name + ': ' + e.message); }
  }
  return out;
}`,
  },
  {
    name: 'decrypt-with-wrong-key',
    code: `async () => {
  const k1 = await crypto.subtle.importKey('raw', new Uint8Array(16).fill(1), 'AES-GCM', false, ['encrypt']);
  const k2 = await crypto.subtle.importKey('raw', new Uint8Array(16).fill(2), 'AES-GCM', false, ['decrypt']);
  const iv = new Uint8Array(12);
  const ct = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, k1, new Uint8Array([1, 2, 3]));
  try { await crypto.subtle.decrypt({ name: 'AES-GCM', iv }, k2, ct); return 'decrypted'; } catch (e) { return { name: e.name, message: e.message }; }
}`,
  },
  {
    name: 'generate-hmac-key-length',
    code: `async () => {
  const key = await crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, true, ['sign', 'verify']);
  const raw = await crypto.subtle.exportKey('raw', key);
  return { length: key.algorithm.length, hash: key.algorithm.hash, rawBytes: raw.byteLength, usages: key.usages };
}`,
  },
  {
    name: 'aes-kw-wrap',
    code: `async () => {
  ${HEX}
  const kek = await crypto.subtle.importKey('raw', new Uint8Array(16).fill(3), 'AES-KW', false, ['wrapKey', 'unwrapKey']);
  const key = await crypto.subtle.importKey('raw', new Uint8Array(16).fill(4), 'AES-GCM', true, ['encrypt']);
  const wrapped = await crypto.subtle.wrapKey('raw', key, kek, 'AES-KW');
  const unwrapped = await crypto.subtle.unwrapKey('raw', wrapped, kek, 'AES-KW', 'AES-GCM', true, ['encrypt']);
  return { wrapped: hex(wrapped), algorithm: unwrapped.algorithm };
}`,
  },
  {
    name: 'sign-webhook-from-tool',
    tools: ['github'],
    code: `async () => {
  ${HEX}
  const issue = await github.createIssue({ title: 'Signed', body: 'from codemode' });
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode('shared'), { name: 'HMAC', hash: 'SHA-1' }, false, ['sign']);
  return 'sha1=' + hex(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(JSON.stringify(issue))));
}`,
  },
]);
