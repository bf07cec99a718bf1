/**
 * The backstop's schedule and its reading: the next sample comes when the process could reach the
 * ceiling at BACKSTOP_GROWTH_RATE (never sooner than BACKSTOP_INTERVAL, never later than
 * BACKSTOP_MAX_INTERVAL), and the cheap statm reading agrees with Node's own.
 */
import { expect, test } from 'vitest';
import {
  BACKSTOP_GROWTH_RATE,
  BACKSTOP_INTERVAL,
  BACKSTOP_MAX_INTERVAL,
  backstopDelay,
} from '../../src/pool/child/backstop.ts';
import { residentReader } from '../../src/pool/child/resident.ts';

const MIB = 2 ** 20;

test('far below the ceiling the backstop waits longest, near it shortest, between them the time to reach it', () => {
  const ceiling = 1000 * MIB;
  expect(backstopDelay(0, ceiling)).toBe(BACKSTOP_MAX_INTERVAL);
  expect(backstopDelay(ceiling - 1, ceiling)).toBe(BACKSTOP_INTERVAL);
  expect(backstopDelay(ceiling + MIB, ceiling)).toBe(BACKSTOP_INTERVAL);
  expect(backstopDelay(ceiling - 20 * BACKSTOP_GROWTH_RATE, ceiling)).toBe(20);
  // Growth at the assumed rate cannot pass the ceiling before the next reading, except within the shortest wait.
  for (const room of [3, 9, 40, 150, 400].map((mb) => mb * MIB)) {
    const delay = backstopDelay(ceiling - room, ceiling);
    expect(delay * BACKSTOP_GROWTH_RATE).toBeLessThanOrEqual(
      Math.max(room, BACKSTOP_INTERVAL * BACKSTOP_GROWTH_RATE),
    );
  }
});

test("the statm reading is this process's resident memory", () => {
  const read = residentReader();
  const held = Buffer.alloc(64 * MIB, 1);
  const [ours, node] = [read(), process.memoryUsage.rss()];
  expect(Math.abs(ours - node)).toBeLessThan(4 * MIB);
  expect(held.length).toBe(64 * MIB);
});
