/**
 * The crypto bridge's bounds seen from a program (the seed's "Crypto bridge" section): KEY_LIMIT,
 * one operation at a time per execution, the run clock counting through crypto.subtle, and the
 * refusal of host waits in global scope.
 */
import { KEY_LIMIT } from '@supolka/codemode-protocol';
import { describe, expect, test } from 'vitest';
import { keyLimitMessage } from '../../src/sandbox/crypto.ts';
import { useSandbox } from '../helpers.ts';
import { runProgram } from './crypto-helpers.ts';

const sandbox = useSandbox();
const run = (body: string, input?: unknown) => runProgram(sandbox, body, input);

const GLOBAL_SCOPE =
  'Disallowed operation called within global scope. Asynchronous I/O (ex: fetch() or connect()), setting a timeout, and generating random values are not allowed within global scope. To fix this error, perform this operation within a handler. https://developers.cloudflare.com/workers/runtime-apis/handlers/';

describe('KEY_LIMIT', () => {
  test(`an execution may create ${KEY_LIMIT} keys; the next one rejects with QuotaExceededError, and other operations go on`, async () => {
    const result = await run(
      `
      let made = 0;
      for (; made < input.limit; made++) await subtle.importKey('raw', bytes('k' + made), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
      const last = await subtle.importKey('raw', bytes('last'), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']).then(() => 'created', (e) => [e.name, e.message, e instanceof DOMException]);
      const pair = await failure(subtle.generateKey('Ed25519', false, ['sign']));
      return { made, last, pair, digest: (await subtle.digest('SHA-1', bytes('still works'))).byteLength };
    `,
      { limit: KEY_LIMIT },
    );
    expect(result).toStrictEqual({
      made: KEY_LIMIT,
      last: ['QuotaExceededError', keyLimitMessage(KEY_LIMIT), true],
      pair: ['QuotaExceededError', keyLimitMessage(KEY_LIMIT), true],
      digest: 20,
    });
  });

  test('the limit is per execution: the next execution starts with none', async () => {
    const result = await run(`
      return (await subtle.generateKey({ name: 'AES-GCM', length: 128 }, false, ['encrypt'])).type;
    `);
    expect(result).toBe('secret');
  });
});

describe('one operation at a time per execution', () => {
  test('a slow key derivation asked for first settles first, ahead of a digest asked for after it', async () => {
    const result = await run(`
      const order = [];
      const key = await subtle.importKey('raw', bytes('password'), 'PBKDF2', false, ['deriveBits']);
      const slow = subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt: bytes('salt'), iterations: 2000000 }, key, 256)
        .then(() => order.push('pbkdf2'));
      const fast = subtle.digest('SHA-256', bytes('fast')).then(() => order.push('digest'));
      await Promise.all([slow, fast]);
      return order;
    `);
    expect(result).toStrictEqual(['pbkdf2', 'digest']);
  });
});

describe('the run clock', () => {
  test('crypto.subtle opens no host wait: a run waiting on a long derivation times out at its bound', async () => {
    const envelope = await sandbox.execute({
      timeout: 200,
      code: `async () => {
        const key = await crypto.subtle.importKey('raw', new Uint8Array(8), 'PBKDF2', false, ['deriveBits']);
        await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt: new Uint8Array(8), iterations: 5000000 }, key, 256);
        return 'derived';
      }`,
    });
    // Were the derivation a host wait, the paused clock would let it finish (seconds) and answer 'derived'.
    expect(envelope.code).toBe('TIMEOUT');
  });
});

describe('global scope', () => {
  test('at a module’s top level digest resolves, hashed at once, and every other operation rejects with workerd’s global-scope error', async () => {
    const envelope = await sandbox.execute({
      modules: {
        'top.js': `
          const reason = (promise) => promise.then(() => 'resolved', (e) => e.name + ': ' + e.message);
          const hex = (buffer) => [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, '0')).join('');
          export const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode('abc')).then(hex);
          export const md5 = await crypto.subtle.digest('MD5', new TextEncoder().encode('abc')).then(hex);
          export const unknown = await reason(crypto.subtle.digest('SHA-3', new Uint8Array(1)));
          export const generate = reason(crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, true, ['sign']));
          export const importing = reason(crypto.subtle.importKey('raw', new Uint8Array(16), 'AES-GCM', true, ['encrypt']));
          export const conversion = reason(crypto.subtle.digest('SHA-256', 'not bytes'));
          export const equal = crypto.subtle.timingSafeEqual(new Uint8Array(1), new Uint8Array(1));
        `,
      },
      code: `import { digest, md5, unknown, generate, importing, conversion, equal } from './top.js';
async () => [digest, md5, unknown, await generate, await importing, await conversion, equal, (await crypto.subtle.digest('SHA-256', new Uint8Array(1))).byteLength]`,
    });
    expect(envelope.error).toBeUndefined();
    expect(envelope.result).toStrictEqual([
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      '900150983cd24fb0d6963f7d28e17f72',
      'NotSupportedError: Unrecognized or unimplemented digest algorithm requested.',
      `Error: ${GLOBAL_SCOPE}`,
      `Error: ${GLOBAL_SCOPE}`,
      "TypeError: Failed to execute 'digest' on 'SubtleCrypto': parameter 2 is not of type 'BufferSource'.",
      true,
      32,
    ]);
  });
});
