/**
 * A bounded fuzz of opening: random text, random base64url after the prefix, random bytes, and
 * real tokens with random bytes changed, cut or appended. Whatever the input, open rejects with a
 * DurableTokenError, and never opens a token that was changed.
 */
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { TOKEN_PREFIX } from '../../src/durable/format.ts';
import { DURABLE_TOKEN_CODES, DurableTokenError } from '../../src/durable/index.ts';
import { binding, bytesOf, JOURNAL, textOf, tokens } from './fixtures.ts';

const service = tokens();
const sealed = service.seal({ journal: JOURNAL, state: { step: 3 } }, binding());
const original = bytesOf(sealed.token);

async function refusedCleanly(input: unknown): Promise<void> {
  const outcome = await service.open(input, binding()).then(
    () => 'opened',
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(DurableTokenError);
  expect(DURABLE_TOKEN_CODES).toContain((outcome as DurableTokenError).code);
}

test('random text is refused with a DurableTokenError', async () => {
  await fc.assert(fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 400 }), refusedCleanly), {
    numRuns: 500,
  });
});

test('random base64url after the prefix, and random bytes, are refused with a DurableTokenError', async () => {
  const base64url = fc.stringMatching(/^[A-Za-z0-9_-]{0,600}$/).map((body) => TOKEN_PREFIX + body);
  await fc.assert(fc.asyncProperty(base64url, refusedCleanly), { numRuns: 500 });
  const bytes = fc.uint8Array({ maxLength: 600 }).map((array) => textOf(array));
  await fc.assert(fc.asyncProperty(bytes, refusedCleanly), { numRuns: 500 });
});

test('a real token with bytes changed, cut or appended is refused with a DurableTokenError', async () => {
  const edit = fc.oneof(
    fc
      .array(fc.tuple(fc.nat({ max: original.length - 1 }), fc.integer({ min: 1, max: 255 })), {
        minLength: 1,
        maxLength: 8,
      })
      .map((changes) => {
        const bytes = Buffer.from(original);
        for (const [index, mask] of changes) bytes[index] = (bytes[index] as number) ^ mask;
        return textOf(bytes);
      }),
    fc.nat({ max: original.length - 1 }).map((length) => textOf(original.subarray(0, length))),
    fc.uint8Array({ minLength: 1, maxLength: 64 }).map((tail) => textOf(Buffer.concat([original, tail]))),
  );
  await fc.assert(fc.asyncProperty(edit, refusedCleanly), { numRuns: 1000 });
});

test('any value at all, not only strings, is refused with a DurableTokenError', async () => {
  await fc.assert(fc.asyncProperty(fc.anything(), refusedCleanly), { numRuns: 300 });
});
