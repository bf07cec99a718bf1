/**
 * What crypto.subtle hands to the host is measured in the isolate before it is copied
 * (runtime crypto/crossing.ts and the length bound of crypto/algorithms.ts): an algorithm or
 * curve name past ALGORITHM_STRING_LIMIT is refused before it is lowercased or copied, and the
 * bytes of the operations in flight never pass the execution's memory limit, so a program cannot
 * queue on the host's heap what its own heap could never hold.
 */
import { describe, expect, test } from 'vitest';
import {
  ALGORITHM_STRING_LIMIT,
  algorithmStringLimitMessage,
} from '../../../runtime/src/crypto/algorithms.ts';
import { CROSSING_FLOOR, crossingLimitMessage } from '../../../runtime/src/crypto/crossing.ts';
import { argumentBytes, CryptoBridge, queuedBytesMessage } from '../../src/sandbox/crypto.ts';
import { useSandbox } from '../helpers.ts';

const sandbox = useSandbox();
const MiB = 2 ** 20;

async function run(body: string, memoryLimit: number): Promise<unknown> {
  const envelope = await sandbox.execute({
    code: `async () => {
      const failure = async (promise) => { try { await promise; return 'resolved'; } catch (e) { return [e.name, e.message]; } };
      ${body}
    }`,
    memoryLimit,
  });
  expect(envelope.error, envelope.error).toBeUndefined();
  return envelope.result;
}

describe('algorithm names', () => {
  test('a 20-million-character name is refused by its length, as a string and as a dictionary, under a 128 MB limit', async () => {
    const result = await run(
      `
      const data = new Uint8Array(16);
      const name = 'S'.repeat(20e6);
      return [
        await failure(crypto.subtle.digest({ name }, data)),
        await failure(crypto.subtle.digest(name, data)),
        await failure(crypto.subtle.importKey('raw', data, { name: 'HMAC', hash: { name } }, false, ['sign'])),
        await failure(crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: name }, false, ['sign'])),
        await failure(crypto.subtle.digest({ name: 'x'.repeat(${ALGORITHM_STRING_LIMIT}) }, data)),
        (await crypto.subtle.digest({ name: 'sha-256' }, data)).byteLength,
      ];
    `,
      128,
    );
    expect(result).toStrictEqual([
      ['NotSupportedError', algorithmStringLimitMessage('name', 20e6)],
      ['NotSupportedError', algorithmStringLimitMessage('name', 20e6)],
      ['NotSupportedError', algorithmStringLimitMessage('name', 20e6)],
      ['NotSupportedError', algorithmStringLimitMessage('namedCurve', 20e6)],
      // At the bound the name is read as before: workerd's text for a name nobody registered.
      ['NotSupportedError', 'Unrecognized or unimplemented digest algorithm requested.'],
      32,
    ]);
  });

  test('the name is read once: a getter cannot pass the bound short and come back long', async () => {
    const result = await run(
      `
      let reads = 0;
      const algorithm = { get name() { reads++; return reads === 1 ? 'SHA-1' : 'S'.repeat(20e6); } };
      const digest = await crypto.subtle.digest(algorithm, new Uint8Array(1));
      return [digest.byteLength, reads];
    `,
      128,
    );
    // WebIDL reads `name` twice (initialAlg, then the desired type); only the first decides.
    expect(result).toStrictEqual([20, 2]);
  });
});

describe('bytes in flight to the host', () => {
  test('a hundred digests of one 16 MiB buffer: those within the memory limit run, the rest are refused before they cross', async () => {
    const result = await run(
      `
      const big = new Uint8Array(16 * 2 ** 20);
      const calls = [];
      for (let i = 0; i < 100; i++) calls.push(failure(crypto.subtle.digest('SHA-256', big)));
      const outcomes = await Promise.all(calls);
      const resolved = outcomes.filter((o) => o === 'resolved').length;
      const after = await failure(crypto.subtle.digest('SHA-256', big));
      return { resolved, refused: outcomes.find((o) => o !== 'resolved'), after };
    `,
      64,
    );
    const limit = 64 * MiB;
    // Each digest carries 16 MiB and the algorithm record; three fit under 64 MiB, the fourth does not.
    const bytes = (result as { refused: [string, string] }).refused[1].match(/hand (\d+) bytes/)?.[1];
    const each = Number(bytes);
    expect(each).toBeGreaterThan(16 * MiB);
    expect(each).toBeLessThan(16 * MiB + CROSSING_FLOOR);
    expect(result).toStrictEqual({
      resolved: 3,
      refused: ['QuotaExceededError', crossingLimitMessage(each, limit, 3 * each)],
      // Given back once answered: the next one runs.
      after: 'resolved',
    });
  });

  test('key data counts too: a JWK whose k is 40 million characters is refused before it crosses', async () => {
    const result = await run(
      `
      const jwk = { kty: 'oct', k: 'A'.repeat(40e6) };
      return await failure(crypto.subtle.importKey('jwk', jwk, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']));
    `,
      64,
    );
    const [name, message] = result as [string, string];
    expect(name).toBe('QuotaExceededError');
    // Strings are counted at two bytes a unit, what a copy may take.
    const bytes = Number(message.match(/hand (\d+) bytes/)?.[1]);
    expect(bytes).toBeGreaterThan(80e6);
    expect(message).toBe(crossingLimitMessage(bytes, 64 * MiB, 0));
  });

  test('many small operations at once are each counted at least the floor', async () => {
    const result = await run(
      `
      const calls = [];
      for (let i = 0; i < 20000; i++) calls.push(failure(crypto.subtle.digest('SHA-1', new Uint8Array(1))));
      const outcomes = await Promise.all(calls);
      return { resolved: outcomes.filter((o) => o === 'resolved').length, refused: outcomes.find((o) => o !== 'resolved')?.[0] };
    `,
      32,
    );
    expect(result).toStrictEqual({ resolved: (32 * MiB) / CROSSING_FLOOR, refused: 'QuotaExceededError' });
  });
});

describe('the host holds the same line', () => {
  test('a bridge refuses an operation whose arguments would pass its queued-byte limit, at once, and gives the bytes back when one settles', async () => {
    const bridge = new CryptoBridge(() => true, { queuedByteLimit: 200 });
    const data = new Uint8Array(120);
    const first = bridge.perform('digest', [{ name: 'SHA-256' }, data]);
    const second = bridge.perform('digest', [{ name: 'SHA-256' }, data]);
    expect(await second).toStrictEqual(['thrown', 'QuotaExceededError', queuedBytesMessage(200), true]);
    expect((await first)[0]).toBe('returned');
    expect((await bridge.perform('digest', [{ name: 'SHA-256' }, data]))[0]).toBe('returned');
    expect(argumentBytes([{ name: 'SHA-256' }, data])).toBe(8 + (8 + 14) + 8 + 120);
  });
});
