/**
 * The type eraser's thread (a deadline worker running sources/erasure-worker.ts) ends once it has had
 * no job for its idle timeout, and the next erasure starts a fresh one
 * (src/sandbox/threads/deadline-worker.ts): a child that erased types once does not keep a V8
 * heap and amaro's WebAssembly resident for the rest of its life. A thread is never ended under a
 * job: the timeout counts from when the last job settled.
 */
import { afterEach, expect, test } from 'vitest';
import { ERASURE_WORKER } from '../../src/sandbox/sources/preparation.ts';
import { DeadlineWorker } from '../../src/sandbox/threads/deadline-worker.ts';

const erasers: DeadlineWorker[] = [];
afterEach(() => {
  for (const eraser of erasers.splice(0)) eraser.dispose();
});
function eraser(idleTimeout: number): DeadlineWorker {
  const made = new DeadlineWorker({ idleTimeout, worker: ERASURE_WORKER });
  erasers.push(made);
  return made;
}

const typed = (n: number) => ({ name: `m${n}.ts`, source: `export const n: number = ${n}` });
const erased = (n: number) => [`export const n         = ${n}`];

test('an idle thread ends, and the next erasure runs on a fresh one', async () => {
  const subject = eraser(0);
  expect(subject.threadAlive).toBe(false);
  await expect(subject.run([typed(1)], 30_000)).resolves.toStrictEqual(erased(1));
  await expect.poll(() => subject.threadAlive, { timeout: 10_000 }).toBe(false);
  await expect(subject.run([typed(2)], 30_000)).resolves.toStrictEqual(erased(2));
  await expect.poll(() => subject.threadAlive, { timeout: 10_000 }).toBe(false);
});

test('jobs in flight together all finish, with an idle timeout of zero', async () => {
  const subject = eraser(0);
  const all = await Promise.all([1, 2, 3].map((n) => subject.run([typed(n)], 30_000)));
  expect(all).toStrictEqual([erased(1), erased(2), erased(3)]);
});

test('a job that arrives before the idle timeout passes keeps the thread', async () => {
  const subject = eraser(60_000);
  await subject.run([typed(1)], 30_000);
  expect(subject.threadAlive).toBe(true);
  await expect(subject.run([typed(2)], 30_000)).resolves.toStrictEqual(erased(2));
  expect(subject.threadAlive).toBe(true);
});
