/**
 * The in-memory claim store: a token is claimed once, expired claims make room, and a store full of
 * live claims refuses rather than forget one.
 */
import { expect, test } from 'vitest';
import { CLAIM_STORE_FULL_MESSAGE } from '../../src/durable/claims.ts';
import { MemoryClaimStore } from '../../src/durable/index.ts';
import { manualClock } from './fixtures.ts';

test('a token is claimed once', async () => {
  const store = new MemoryClaimStore();
  expect(await store.claim('t1', Date.now() + 1000)).toBe(true);
  expect(await store.claim('t1', Date.now() + 1000)).toBe(false);
  expect(await store.claim('t2', Date.now() + 1000)).toBe(true);
});

test('a claim is kept while it is live, even past its expiry until room is needed', async () => {
  const clock = manualClock();
  const store = new MemoryClaimStore({ capacity: 10, now: clock.read });
  await store.claim('t', clock.now + 100);
  clock.now += 1000;
  expect(await store.claim('t', clock.now + 100)).toBe(false);
});

test('full of live claims, it refuses a new one; once some expire, they make room', async () => {
  const clock = manualClock();
  const store = new MemoryClaimStore({ capacity: 3, now: clock.read });
  await store.claim('early', clock.now + 100);
  await store.claim('late-1', clock.now + 10_000);
  await store.claim('late-2', clock.now + 10_000);
  await expect(store.claim('next', clock.now + 10_000)).rejects.toThrow(CLAIM_STORE_FULL_MESSAGE);
  expect(store.size).toBe(3);
  clock.now += 100;
  expect(await store.claim('next', clock.now + 10_000)).toBe(true);
  expect(store.size).toBe(3);
  // The expired claim was dropped; the live ones still refuse.
  expect(await store.claim('late-1', clock.now + 10_000)).toBe(false);
  await expect(store.claim('another', clock.now + 10_000)).rejects.toThrow(CLAIM_STORE_FULL_MESSAGE);
});

test('a claim with an earlier expiry than those already held is swept when it expires', async () => {
  const clock = manualClock();
  const store = new MemoryClaimStore({ capacity: 2, now: clock.read });
  await store.claim('long', clock.now + 100_000);
  await expect(store.claim('short', clock.now + 50)).resolves.toBe(true);
  await expect(store.claim('third', clock.now + 50)).rejects.toThrow(CLAIM_STORE_FULL_MESSAGE);
  clock.now += 50;
  expect(await store.claim('third', clock.now + 50)).toBe(true);
});

test('a capacity that is not a whole number from 1 is refused', () => {
  for (const capacity of [0, -1, 1.5, Number.NaN]) {
    expect(() => new MemoryClaimStore({ capacity })).toThrow(RangeError);
  }
});
