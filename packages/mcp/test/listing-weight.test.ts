/**
 * The weight of a tool list as the bridge keeps it (src/listing-weight.ts): strings by their
 * characters, every value and key at 16, nesting of any depth counted without recursion, and the
 * count stopped as soon as it is past the limit.
 */
import { expect, test } from 'vitest';
import { listingWeight } from '../src/listing-weight.ts';

test('strings weigh their characters, values and keys 16 each', () => {
  expect(listingWeight('abc', 1000)).toBe(16 + 3);
  expect(listingWeight([[], []], 1000)).toBe(16 + 2 * (16 + 16));
  expect(listingWeight({ type: 'object' }, 1000)).toBe(16 + 4 + 16 + 16 + 6);
});

test('a schema nested 100,000 levels is counted without overflowing the stack', () => {
  let schema: unknown = { type: 'string' };
  for (let level = 0; level < 100_000; level++) schema = { properties: { inner: schema } };
  expect(listingWeight(schema, Number.POSITIVE_INFINITY)).toBeGreaterThan(100_000 * 16);
});

test('the count stops once past the limit, in an array of millions', () => {
  const huge = Array.from({ length: 4_000_000 }, () => []);
  const weight = listingWeight({ tools: [{ inputSchema: { huge } }] }, 1024);
  expect(weight).toBeGreaterThan(1024);
  expect(weight).toBeLessThan(1024 + 64);
});
