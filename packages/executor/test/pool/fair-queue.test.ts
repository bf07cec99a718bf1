/**
 * The order a fair queue offers its waiting requests to the next free slot (src/pool/fair-queue.ts):
 * the caller holding fewest slots first, then the one served longest ago, then the one queued
 * first; each caller's own in arrival order.
 */
import { describe, expect, test } from 'vitest';
import { FairQueue, TURN_MEMORY } from '../../src/pool/fair-queue.ts';

interface Request {
  readonly caller: string;
  readonly name: string;
}

function queueOf(...names: string[]): { queue: FairQueue<Request>; requests: Map<string, Request> } {
  const queue = new FairQueue<Request>();
  const requests = new Map<string, Request>();
  for (const name of names) {
    // The caller is the name's letter: a1 and a2 are caller a's.
    const request = { caller: name.slice(0, 1), name };
    requests.set(name, request);
    queue.push(request);
  }
  return { queue, requests };
}

const order = (queue: FairQueue<Request>, held: Record<string, number> = {}) =>
  [...queue.inTurn((caller) => held[caller] ?? 0)].map((request) => request.name);

describe('a fair queue', () => {
  test('with one caller is arrival order', () => {
    const { queue } = queueOf('a1', 'a2', 'a3');
    expect(order(queue, { a: 4 })).toStrictEqual(['a1', 'a2', 'a3']);
    expect(queue.length).toBe(3);
  });

  test('offers the next slot to the caller holding fewest, whatever came first', () => {
    const { queue } = queueOf('a1', 'a2', 'a3', 'b1', 'c1');
    expect(order(queue, { a: 2, b: 1 })).toStrictEqual(['c1', 'b1', 'a1', 'a2', 'a3']);
  });

  test('among callers holding as many, goes by turn: a caller served goes to the back', () => {
    const { queue, requests } = queueOf('a1', 'a2', 'b1', 'b2');
    expect(order(queue)).toStrictEqual(['a1', 'a2', 'b1', 'b2']);
    queue.serve(requests.get('a1') as Request);
    expect(order(queue)).toStrictEqual(['b1', 'b2', 'a2']);
    queue.serve(requests.get('b1') as Request);
    expect(order(queue)).toStrictEqual(['a2', 'b2']);
    expect(queue.length).toBe(2);
  });

  test('a caller served straight away, with nothing queued, has had its turn when it queues next', () => {
    const queue = new FairQueue<Request>();
    // a found a slot free; then a and b queue, a first.
    queue.served('a');
    queue.push({ caller: 'a', name: 'a2' });
    queue.push({ caller: 'b', name: 'b1' });
    expect(order(queue)).toStrictEqual(['b1', 'a2']);
  });

  test(`remembers the last ${TURN_MEMORY} callers served, no more`, () => {
    const queue = new FairQueue<Request>();
    queue.served('a');
    for (let index = 0; index < TURN_MEMORY; index++) queue.served(`c${index}`);
    queue.served('b');
    queue.push({ caller: 'b', name: 'b1' });
    queue.push({ caller: 'a', name: 'a1' });
    // a's service fell out of memory: it counts as never served, before b, served last.
    expect(order(queue)).toStrictEqual(['a1', 'b1']);
  });

  test('removes a cancelled request, once, and empties into what it held', () => {
    const { queue, requests } = queueOf('a1', 'b1', 'a2');
    expect(queue.remove(requests.get('a1') as Request)).toBe(true);
    expect(queue.remove(requests.get('a1') as Request)).toBe(false);
    expect(order(queue)).toStrictEqual(['a2', 'b1']);
    expect(queue.clear().map((request) => request.name)).toStrictEqual(['a2', 'b1']);
    expect(queue.length).toBe(0);
    expect(order(queue)).toStrictEqual([]);
  });
});
