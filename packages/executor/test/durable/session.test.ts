/**
 * The durable session's replay, driven call by call in the order an isolate on another thread can
 * make the host see them: a call's frame may arrive before the host hears that the isolate observed
 * the settlement that let the program make it (isolated-vm runs the isolate on a thread of its own,
 * and a loaded machine delays either). The end-to-end runs are replay.test.ts's; this orders what
 * those cannot.
 */
import { type DispatchFrame, IN_FLIGHT_CALL_LIMIT, PAYLOAD_LIMIT } from '@supolka/codemode-protocol/wire';
import { describe, expect, test } from 'vitest';
import type { JournalEntry } from '../../src/durable/journal.ts';
import { MAX_TOKEN_SIZE } from '../../src/durable/limits.ts';
import { divergedPastJournalMessage } from '../../src/durable/replay-texts.ts';
import { type CallIo, DurableSession } from '../../src/durable/session.ts';

const RETURNED: DispatchFrame = ['returned', '{"result":1}'];

/** A call's io that records what the session does with it; its delivery answers when `observe` is called. */
function callIo(name: string, events: string[]) {
  let observe: (order: number) => void = () => {};
  const io: CallIo = {
    perform: async () => {
      events.push(`perform ${name}`);
      return RETURNED;
    },
    deliver: (frame) => {
      events.push(`deliver ${name} ${frame[1]}`);
      return new Promise<number>((resolve) => {
        observe = resolve;
      });
    },
  };
  return { io, observe: (order: number) => observe(order) };
}

/** A resume of a run that observed call 1's answer first, then paused at call 2. */
function resumeAtCall2(): DurableSession {
  const journal: JournalEntry[] = [
    { provider: 'api', tool: 'one', args: '[]', settled: { order: 1, time: 1000, frame: RETURNED } },
    { provider: 'api', tool: 'two', args: '[]' },
  ];
  return new DurableSession({
    seed: [1, 2, 3, 4],
    startedAt: 1000,
    logCount: 0,
    replay: { journal, timers: [], fetches: [], loads: [], answers: [{ sequence: 2, perform: true }] },
  });
}

const turns = async () => {
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
};

describe('a call past the journal', () => {
  test('seen before the last settlement is known observed, it waits and is performed once the run is live, after the pending call', async () => {
    const events: string[] = [];
    const session = resumeAtCall2();
    const one = callIo('one', events);
    const two = callIo('two', events);
    const three = callIo('three', events);
    session.call(1, 'api', 'one', '[]', one.io);
    session.call(2, 'api', 'two', '[]', two.io);
    // The program went on after observing call 1's answer; the host has not heard so yet.
    session.call(3, 'api', 'three', '[]', three.io);
    await turns();
    expect(session.stop).toBeUndefined();
    expect(session.replaying).toBe(true);
    expect(events).toStrictEqual(['deliver one {"result":1}']);
    one.observe(1);
    await turns();
    expect(session.stop).toBeUndefined();
    expect(session.replaying).toBe(false);
    expect(events).toStrictEqual([
      'deliver one {"result":1}',
      'perform two',
      'perform three',
      'deliver two {"result":1}',
      'deliver three {"result":1}',
    ]);
  });

  test('is never performed when the replay diverges before it is live', async () => {
    const events: string[] = [];
    const session = resumeAtCall2();
    const one = callIo('one', events);
    session.call(1, 'api', 'one', '[]', one.io);
    session.call(2, 'api', 'two', '[]', callIo('two', events).io);
    session.call(3, 'api', 'three', '[]', callIo('three', events).io);
    // Observed under another sequence than the journal's: the program is not the paused one.
    one.observe(2);
    await turns();
    expect(session.stop?.kind).toBe('diverged');
    expect(events).toStrictEqual(['deliver one {"result":1}']);
  });

  test('seen before a journal call made again late, it waits for that call and goes after it', async () => {
    const events: string[] = [];
    const session = resumeAtCall2();
    const one = callIo('one', events);
    session.call(1, 'api', 'one', '[]', one.io);
    one.observe(1);
    await turns();
    // Call 2's frame is late; call 3's came first.
    session.call(3, 'api', 'three', '[]', callIo('three', events).io);
    await turns();
    expect([session.stop, session.replaying]).toStrictEqual([undefined, true]);
    session.call(2, 'api', 'two', '[]', callIo('two', events).io);
    await turns();
    expect(session.replaying).toBe(false);
    expect(events.slice(1, 3)).toStrictEqual(['perform two', 'perform three']);
  });

  test('past as many as may be in flight, or their arguments past the payload limit, the resume diverges: each would hold its arguments until live', async () => {
    for (const [count, args] of [
      [IN_FLIGHT_CALL_LIMIT + 1, '[]'],
      [2, JSON.stringify(['x'.repeat(PAYLOAD_LIMIT / 2)])],
    ] as const) {
      const events: string[] = [];
      const session = resumeAtCall2();
      session.call(1, 'api', 'one', '[]', callIo('one', events).io);
      session.call(2, 'api', 'two', '[]', callIo('two', events).io);
      for (let index = 0; index < count; index++) {
        session.call(3 + index, 'api', 'more', args, callIo('more', events).io);
      }
      expect(session.stop).toStrictEqual({
        kind: 'diverged',
        message: divergedPastJournalMessage(2 + count, 'api', 'more'),
      });
      await turns();
      expect(events).toStrictEqual(['deliver one {"result":1}']);
    }
  });
});

describe('answers past what a token can hold', () => {
  test('a resume whose answers pass MAX_TOKEN_SIZE as it goes live lets its journal go, and still performs the pending call after them', async () => {
    // The last settlement of the journal is a timer's: the run goes live from a task of its own,
    // where a throw would end the process.
    const events: string[] = [];
    const big: DispatchFrame = ['returned', JSON.stringify({ result: 'x'.repeat(MAX_TOKEN_SIZE) })];
    const session = new DurableSession({
      seed: [1, 2, 3, 4],
      startedAt: 1000,
      logCount: 0,
      replay: {
        journal: [
          { provider: 'api', tool: 'one', args: '[]', settled: { order: 1, time: 1000, frame: RETURNED } },
          { provider: 'api', tool: 'a', args: '[]' },
          { provider: 'api', tool: 'b', args: '[]' },
        ],
        timers: [{ ms: 5, settled: { order: 2, time: 1005, count: 1 } }],
        fetches: [],
        loads: [],
        answers: [
          { sequence: 2, frame: big },
          { sequence: 3, perform: true },
        ],
      },
    });
    const one = callIo('one', events);
    session.call(1, 'api', 'one', '[]', one.io);
    session.call(2, 'api', 'a', '[]', callIo('a', events).io);
    session.call(3, 'api', 'b', '[]', callIo('b', events).io);
    const timer = session.delay(5, async () => 1);
    one.observe(1);
    await turns();
    session.timerObserved(await timer, 2);
    await turns();
    expect(events.map((event) => event.slice(0, 40))).toStrictEqual([
      'deliver one {"result":1}',
      `deliver a ${big[1].slice(0, 30)}`,
      'perform b',
      'deliver b {"result":1}',
    ]);
    expect([session.replaying, session.stop, session.unsealable?.code]).toStrictEqual([
      false,
      undefined,
      'TOKEN_TOO_LARGE',
    ]);
  });
});
