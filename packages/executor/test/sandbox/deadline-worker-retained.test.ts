/**
 * A type eraser's thread that holds more than its retained limit outside its heap after a job is
 * ended once it has no job left (src/sandbox/threads/deadline-worker.ts, WORKER_RETAINED_LIMIT): amaro's
 * WebAssembly memory grows with the code it parses and never shrinks, so without the rule a thread
 * kept busy after one hostile megabyte held tens of MB for as long as its jobs kept coming. Both
 * thread modules report what they hold: the sandbox's (erasure-worker.ts) and the Code Mode
 * normalizer's lanes (normalize-worker.ts). Ordinary TypeScript keeps its thread.
 */

import { CODE_LIMIT } from '@supolka/codemode-protocol';
import { afterEach, expect, test } from 'vitest';
import { ERASURE_WORKER } from '../../src/sandbox/sources/preparation.ts';
import { DeadlineWorker, threadModule } from '../../src/sandbox/threads/deadline-worker.ts';

const NORMALIZE_WORKER = threadModule(
  'normalize-worker',
  new URL('../../src/codemode/normalize-lanes.ts', import.meta.url).href,
);

const erasers: DeadlineWorker[] = [];
afterEach(() => {
  for (const eraser of erasers.splice(0)) eraser.dispose();
});
/** An eraser whose idle timeout never passes within a test: a thread that ends did so by the rule. */
function eraser(worker?: URL): DeadlineWorker {
  const made = new DeadlineWorker({ idleTimeout: 600_000, worker: worker ?? ERASURE_WORKER });
  erasers.push(made);
  return made;
}

const UNIT = `interface Item<T extends object = {}> { id: string; value: T; tags?: readonly string[] }
function pick(items: Item<{ n: number }>[], limit: number = 10): Map<string, number> {
  const out = new Map<string, number>();
  for (const item of items as Array<Item<{ n: number }>>) { if (out.size >= limit) break; out.set(item.id, item.value.n); }
  return out;
}
`;
/** Ordinary TypeScript of about `size` characters: the unit repeated, each function named apart. */
function typescriptOf(size: number): string {
  let index = 0;
  return UNIT.repeat(Math.floor(size / UNIT.length)).replaceAll(
    'function pick',
    () => `function pick${index++}`,
  );
}
/** Nine tenths of CODE_LIMIT, so the names the units get keep it within the limit. */
const MEGABYTE_OF_CODE = Math.floor(CODE_LIMIT * 0.9);
const sources = (source: string) => [{ name: 'code.ts', source }];
/** The same code with its annotations: what an erasure of a typescriptOf source gives back. */
const isErased = (erased: string | Error | undefined) =>
  typeof erased === 'string' && !erased.includes(': number') && erased.includes('function pick0(');

for (const [label, worker] of [
  ['the sandbox thread', undefined],
  ["a Code Mode normalizer's lane", NORMALIZE_WORKER],
] as const) {
  test(`${label}: a megabyte of TypeScript ends the thread once erased, and the next job gets a fresh one`, async () => {
    const subject = eraser(worker);
    const big = typescriptOf(MEGABYTE_OF_CODE);
    const [erased] = (await subject.run(sources(big), 60_000)) ?? [];
    if (worker === undefined) expect(isErased(erased)).toBe(true);
    else expect(erased).toSatisfy((read) => typeof read === 'string', String(erased));
    expect(subject.threadAlive).toBe(false);
    const [next] = (await subject.run(sources('export const n: number = 1'), 60_000)) ?? [];
    expect(typeof next).toBe('string');
    expect(subject.threadAlive).toBe(true);
  });

  test(`${label}: 100 KB of TypeScript keeps the thread`, async () => {
    const subject = eraser(worker);
    for (let round = 0; round < 3; round++) {
      const [erased] = (await subject.run(sources(typescriptOf(100_000)), 60_000)) ?? [];
      expect(typeof erased).toBe('string');
      expect(subject.threadAlive).toBe(true);
    }
  });
}

test('a thread past the limit ends only once every job it holds has settled', async () => {
  const subject = eraser();
  const small = typescriptOf(20_000);
  const outcomes = await Promise.all([
    subject.run(sources(typescriptOf(MEGABYTE_OF_CODE)), 60_000),
    subject.run(sources(small), 60_000),
    subject.run(sources(small), 60_000),
  ]);
  for (const outcome of outcomes) expect(isErased(outcome?.[0])).toBe(true);
  expect(subject.threadAlive).toBe(false);
});

test('a job that broke amaro holding tens of MB ends the thread too, and the next job is erased', async () => {
  const subject = eraser();
  // Half a million `1+`: amaro's parser runs out of stack inside its WebAssembly, which keeps what
  // it grew to (about 93 MB here).
  const [refused] = (await subject.run(sources(`let x = ${'1+'.repeat(500_000)}1;`), 60_000)) ?? [];
  expect(refused).toBeInstanceOf(Error);
  expect(subject.threadAlive).toBe(false);
  const [next] = (await subject.run(sources(typescriptOf(20_000)), 60_000)) ?? [];
  expect(isErased(next)).toBe(true);
});

test('a job that arrives while a thread past the limit finishes its others waits for a fresh thread', async () => {
  const subject = eraser(new URL('./fixtures/retaining-worker.ts', import.meta.url));
  const job = (source: string) => subject.run([{ name: 'code.ts', source }], 60_000);
  // `slow` is still in flight on the retiring thread when `big` settles and `next` is asked for.
  const slow = job('slow');
  const [bigThread] = (await job('big')) ?? [];
  const next = job('next');
  const [slowThread] = (await slow) ?? [];
  const [nextThread] = (await next) ?? [];
  expect(slowThread).toBe(bigThread);
  // Before, `next` went to the retiring thread, which a steady stream of such jobs kept alive.
  expect(nextThread).not.toBe(bigThread);
  expect(subject.threadAlive).toBe(true);
});

test('a deadline that passes while a thread past the limit finishes its jobs ends it, and the job waiting for it is served', async () => {
  const subject = eraser(new URL('./fixtures/retaining-worker.ts', import.meta.url));
  // `slow` answers after 200 ms: its 50 ms pass while the thread, past the limit after `big`, retires.
  const slow = subject.run([{ name: 'code.ts', source: 'slow' }], 50);
  const [bigThread] = (await subject.run([{ name: 'code.ts', source: 'big' }], 60_000)) ?? [];
  const next = subject.run([{ name: 'code.ts', source: 'next' }], 60_000);
  expect(await slow).toBeUndefined();
  const [nextThread] = (await next) ?? [];
  expect(typeof nextThread).toBe('string');
  expect(nextThread).not.toBe(bigThread);
  expect(subject.threadAlive).toBe(true);
});
