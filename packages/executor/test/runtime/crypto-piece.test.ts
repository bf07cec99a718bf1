/**
 * The crypto runtime piece (packages/runtime/src/crypto/operations.ts): crypto.subtle's operations
 * are kept out of the startup snapshot and loaded by the first SubtleCrypto method a program calls.
 * The snapshot keeps Crypto, SubtleCrypto and CryptoKey, and a program must not be able to tell
 * when the operations arrived: the interfaces read the same before and after, the keys and errors
 * are the snapshot's classes, and what the program replaced before its first call does not reach
 * the piece.
 */
import { MIN_MEMORY_LIMIT } from '@supolka/codemode-protocol';
import { RUNTIME_PIECES } from '@supolka/codemode-runtime/pieces';
import { expect, test } from 'vitest';
import { GLOBAL_SCOPE_MESSAGE } from '../../../runtime/src/internals.ts';
import { pieceSource } from '../../src/sandbox/setup/pieces.ts';
import { resultOf, useSandbox } from '../helpers.ts';
import { firstUseOnAnExhaustedStack, OVERFLOWED_THEN_LOADED } from './piece-probes.ts';

const sandbox = useSandbox();
const run = (code: string) => resultOf(sandbox, code);

/** The crypto interfaces' own members, prototype and statics, and crypto's own, as `key:kind:flags` lines. */
const DESCRIBE = `(() => {
  const describe = (target) => Reflect.ownKeys(target).map((key) => {
    const d = Object.getOwnPropertyDescriptor(target, key);
    const kind = typeof d.value === 'function' ? 'method ' + d.value.name + '/' + d.value.length : d.get ? 'getter ' + d.get.name : typeof d.value;
    return String(key) + ':' + kind + ':' + (d.enumerable ? 'e' : '') + (d.writable ? 'w' : '') + (d.configurable ? 'c' : '');
  });
  return [
    ...['Crypto', 'SubtleCrypto', 'CryptoKey'].map((name) => [name, describe(globalThis[name].prototype), describe(globalThis[name])]),
    ['crypto', describe(crypto), Object.getPrototypeOf(crypto.subtle) === SubtleCrypto.prototype],
    ['globals', Reflect.ownKeys(globalThis).map(String)],
  ];
})()`;

/** A digest, an HMAC key made, used and exported, and an ECDSA pair: the piece's main paths. */
const USE = `(async () => {
  const data = new Uint8Array([1, 2, 3]);
  const hex = (buffer) => Array.from(new Uint8Array(buffer), (x) => x.toString(16).padStart(2, '0')).join('');
  const digest = hex(await crypto.subtle.digest('SHA-256', data));
  const hmac = await crypto.subtle.importKey('raw', new Uint8Array([9, 9, 9, 9]), { name: 'HMAC', hash: 'SHA-256' }, true, ['sign', 'verify']);
  const signature = await crypto.subtle.sign('HMAC', hmac, data);
  const verified = await crypto.subtle.verify('HMAC', hmac, signature, data);
  const jwk = await crypto.subtle.exportKey('jwk', hmac);
  const pair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
  let refused;
  try { await crypto.subtle.digest('SHA-3', data); } catch (error) { refused = [error.name, error instanceof DOMException]; }
  return {
    digest, verified, k: jwk.k, keys: [hmac instanceof CryptoKey, pair.privateKey instanceof CryptoKey, pair.publicKey.type],
    equal: crypto.subtle.timingSafeEqual(data, new Uint8Array([1, 2, 3])), refused,
  };
})()`;

const USED = {
  digest: '039058c6f2c0cb492c533b0a4d14ef77cc0f78abccced5287d84a1a2011cfb81',
  verified: true,
  k: 'CQkJCQ',
  keys: [true, true, 'public'],
  equal: true,
  refused: ['NotSupportedError', true],
};

test('the host keeps the operations as a piece, and the interfaces read the same before and after it loads', async () => {
  expect(pieceSource('crypto')).toBe(RUNTIME_PIECES.crypto);
  const result = (await run(`async () => {
    const before = ${DESCRIBE};
    const used = await ${USE};
    const after = ${DESCRIBE};
    return { used, same: JSON.stringify(before) === JSON.stringify(after), subtle: before[1] };
  }`)) as { used: unknown; same: boolean; subtle: unknown };
  expect(result.used).toStrictEqual(USED);
  expect(result.same).toBe(true);
  expect(result.subtle).toStrictEqual([
    'SubtleCrypto',
    [
      'encrypt:method encrypt/0:ewc',
      'decrypt:method decrypt/0:ewc',
      'sign:method sign/0:ewc',
      'verify:method verify/0:ewc',
      'digest:method digest/0:ewc',
      'generateKey:method generateKey/0:ewc',
      'deriveKey:method deriveKey/0:ewc',
      'deriveBits:method deriveBits/0:ewc',
      'importKey:method importKey/0:ewc',
      'exportKey:method exportKey/0:ewc',
      'wrapKey:method wrapKey/0:ewc',
      'unwrapKey:method unwrapKey/0:ewc',
      'timingSafeEqual:method timingSafeEqual/0:ewc',
      'constructor:method SubtleCrypto/0:wc',
      'Symbol(Symbol.toStringTag):string:c',
    ],
    ['length:number:c', 'name:string:c', 'prototype:object:'],
  ]);
});

test('a module that uses crypto.subtle at its top level, while modules load, loads it', async () => {
  // digest is allowed in global scope (workerd allows it); sign is refused there, by the piece.
  const envelope = await sandbox.execute({
    modules: {
      'digest.js': `const data = new Uint8Array([1, 2, 3]);
export const equal = crypto.subtle.timingSafeEqual(data, data);
export const digest = new Uint8Array(await crypto.subtle.digest('SHA-1', data)).length;
export const refused = await crypto.subtle.sign('HMAC', null, data).then(() => 'signed', (error) => error.message);`,
    },
    code: `import { equal, digest, refused } from './digest.js'
async () => ({ equal, digest, refused, used: await ${USE} })`,
  });
  expect(envelope).toStrictEqual({
    result: {
      equal: true,
      digest: 20,
      refused: "Failed to execute 'sign' on 'SubtleCrypto': parameter 2 is not of type 'CryptoKey'.",
      used: USED,
    },
    logs: [],
  });
  const globalScope = await sandbox.execute({
    modules: {
      'key.js': `export const refused = await crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, false, ['sign']).then(() => 'made', (error) => error.message);`,
    },
    code: `import { refused } from './key.js'
async () => refused`,
  });
  expect(globalScope).toStrictEqual({ result: GLOBAL_SCOPE_MESSAGE, logs: [] });
});

test('it loads at the smallest memory limit accepted', async () => {
  const envelope = await sandbox.execute({ memoryLimit: MIN_MEMORY_LIMIT, code: `async () => ${USE}` });
  expect(envelope).toStrictEqual({ result: USED, logs: [] });
});

test('a program that replaced globals, built-ins and their members first changes nothing, and none is called by the load', async () => {
  // In the snapshot these modules evaluated before any program ran; now they evaluate on the
  // program's first SubtleCrypto call. Each replacement records a call, and none may be made.
  // The array iterator is put back before the program answers: the run's own answer path reads it.
  const result = await run(`async () => {
    const called = [];
    const data = new Uint8Array([1, 2, 3]);
    const iterator = Array.prototype[Symbol.iterator];
    const replace = (owner, key, name) => { owner[key] = function () { called.push(name); throw new Error('replaced ' + name); }; };
    replace(globalThis, 'SyntaxError', 'SyntaxError');
    replace(globalThis, 'ReferenceError', 'ReferenceError');
    replace(globalThis, 'TypeError', 'TypeError');
    replace(globalThis, 'DOMException', 'DOMException');
    replace(globalThis, 'Promise', 'Promise');
    replace(JSON, 'parse', 'JSON.parse');
    replace(Object, 'keys', 'Object.keys');
    replace(Object, 'create', 'Object.create');
    replace(Object, 'defineProperty', 'Object.defineProperty');
    replace(Array.prototype, Symbol.iterator, 'Array.prototype[Symbol.iterator]');
    replace(Array.prototype, 'push', 'Array.prototype.push');
    replace(Function.prototype, 'bind', 'bind');
    replace(String, 'fromCharCode', 'String.fromCharCode');
    Object.freeze(Object);
    Object.freeze(Object.prototype);
    Object.freeze(Function.prototype);
    const outcome = (promise) => promise.then((value) => value.byteLength, (error) => error.name + ': ' + error.message);
    const digest = await outcome(crypto.subtle.digest('sha-256', data));
    const unrecognized = await outcome(crypto.subtle.digest('SHA-3', data));
    Reflect.defineProperty(Array.prototype, Symbol.iterator, { value: iterator });
    return { digest, unrecognized, called };
  }`);
  expect(result).toStrictEqual({
    digest: 32,
    unrecognized: 'NotSupportedError: Unrecognized or unimplemented digest algorithm requested.',
    called: [],
  });
});

test('the loading calls no getter a program put on Object.prototype', async () => {
  const result = await run(`async () => {
    const called = [];
    for (const key of ['crypto', 'digest', 'exports', 'default', '__esModule', 'DOMException', 'dataRecord', 'keySlots',
      'hostOf', 'toDOMString', 'primordials.ts', 'webidl.ts', 'crypto/crypto-key.ts', 'MD5', 'HMAC', 'public', 'private']) {
      Object.defineProperty(Object.prototype, key, { get() { called.push(key); }, configurable: true });
    }
    const digest = new Uint8Array(await crypto.subtle.digest('MD5', new Uint8Array([1]))).length;
    return { digest, called };
  }`);
  expect(result).toStrictEqual({ digest: 16, called: [] });
});

test('a stack overflow in the middle of the first load leaves it loadable', async () => {
  const result = await run(`async () => {
    const data = new Uint8Array([1, 2, 3]);
    ${firstUseOnAnExhaustedStack('crypto.subtle.timingSafeEqual(data, data)')}
    return { outcomes: [...outcomes].sort(), after: await ${USE} };
  }`);
  expect(result).toStrictEqual({ outcomes: OVERFLOWED_THEN_LOADED, after: USED });
});
