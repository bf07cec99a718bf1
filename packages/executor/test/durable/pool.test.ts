/**
 * Durable runs through IsolateExecutor (docs/durable.md, "Through the pool"), with real children:
 * the run pauses in a child and frees it, the executor seals the journal the child hands back, a
 * resume (on this executor or another holding the key) runs the journal in a fresh child and then
 * goes live, with the idempotency key reaching the tool a resume performs. What a resume refuses
 * (a forged or foreign token, another program, another principal, a diverged program), nested
 * executions, discarding, and the Code Mode form's own pause, unchanged.
 */
import { randomBytes } from 'node:crypto';
import { NOT_DURABLE_PAUSE_MESSAGE } from '@supolka/codemode-protocol';
import { pause as clientPause } from '@supolka/codemode-protocol/client';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { MemoryClaimStore } from '../../src/durable/claims.ts';
import { Durability } from '../../src/durable/durability.ts';
import type { JournalEntry } from '../../src/durable/journal.ts';
import { DurableKeyRing } from '../../src/durable/keys.ts';
import { durableCall, NESTED_PAUSE_MESSAGE, pause } from '../../src/durable/pause.ts';
import { NO_KEY_RING_MESSAGE } from '../../src/durable/texts.ts';
import { DurableTokens } from '../../src/durable/token.ts';
import { resolveOptions } from '../../src/executor/options.ts';
import { type IsolateExecuteRequest, splitRequest } from '../../src/executor/request.ts';
import { IsolateExecutor } from '../../src/index.ts';
import { resumeEachPause } from './resume-each-pause.ts';

vi.setConfig({ testTimeout: 60_000 });

const KEY = randomBytes(32);
const keys = () => new DurableKeyRing({ keys: [{ id: 'k1', key: KEY }] });

const executors: IsolateExecutor[] = [];
function executorOf(options: ConstructorParameters<typeof IsolateExecutor>[0] = {}): IsolateExecutor {
  const executor = new IsolateExecutor({ poolSize: 1, timeout: 20_000, ...options });
  executors.push(executor);
  return executor;
}
afterAll(() => Promise.all(executors.map((executor) => executor.dispose())));

let seedWord = 1;
const executor = executorOf({ durable: { keys: keys(), unsafeSeed: () => [seedWord, 2, 3, 4] } });

const PROGRAM = `async () => {
  console.log('start', Math.random());
  const [a, b] = await Promise.all([api.get(1, Date.now()), api.get(2, crypto.randomUUID())]);
  console.log('got', a, b);
  const ok = await api.approve(1, Math.random());
  const c = await api.get(3, performance.now());
  const again = await api.approve(2, [...crypto.getRandomValues(new Uint8Array(4))]);
  console.log('end', c);
  return { a, b, ok, c, again, last: Math.random() };
}`;

/**
 * The `api` namespace, its tools recording each call in `seen`; `approve` pauses while its step is
 * in `closed`, and `key` answers the idempotency key it was called with. The object form's request
 * and the Code Mode form's providers both serve it.
 */
function apiProviders(closed: Set<number>, seen: unknown[]) {
  return [
    {
      name: 'api',
      fns: {
        get: async (x: number) => {
          seen.push(['get', x]);
          return x * 10;
        },
        approve: async (step: number) => {
          seen.push(['approve', step]);
          if (closed.has(step)) pause({ step }, { reason: 'approval' });
          return `approved ${step}`;
        },
        key: async () => durableCall()?.idempotencyKey ?? null,
      },
    },
  ];
}

/** The request, its tools those of apiProviders. */
function request(
  closed: Set<number>,
  seen: unknown[],
  code = PROGRAM,
): IsolateExecuteRequest & { durable: true } {
  return { code, durable: true, providers: apiProviders(closed, seen) };
}

/** Runs PROGRAM pausing at each step in `pauses`, resuming each pause on `resumer` by performing its calls. */
async function runPausing(pauses: number[], resumer = executor) {
  const closed = new Set(pauses);
  const seen: unknown[] = [];
  const { envelope, logs, pausedAt } = await resumeEachPause(
    await executor.execute(request(closed, seen)),
    closed,
    (token, answers) => resumer.resume(token, answers, request(closed, seen)),
  );
  return { envelope, logs, pausedAt, seen };
}

describe('a durable run through the pool', () => {
  test('paused at any approval and resumed, it ends with the result and logs of the run straight through', async () => {
    seedWord = 5;
    const straight = await runPausing([]);
    expect(straight.envelope.error).toBeUndefined();
    expect(straight.logs.map((line) => line.text.split(' ')[0])).toStrictEqual(['start', 'got', 'end']);
    for (const pauses of [[1], [2], [1, 2]]) {
      const paused = await runPausing(pauses);
      expect(paused.envelope.error, `pausing at ${pauses}`).toBeUndefined();
      expect(paused.pausedAt).toStrictEqual(pauses.map((step) => ({ step })));
      expect(paused.envelope.result).toStrictEqual(straight.envelope.result);
      expect(paused.logs).toStrictEqual(straight.logs);
      // A resume serves the calls settled before the pause from the journal: each tool ran once,
      // but the approval that paused, which its resume performed again.
      expect(paused.seen.length).toBe(straight.seen.length + pauses.length);
    }
  });

  test('the paused envelope names the reason, the data and the pending call, and the child is free at once', async () => {
    seedWord = 6;
    const envelope = await executor.execute(request(new Set([1]), []));
    expect(envelope.error).toBeUndefined();
    expect(envelope.paused?.reason).toBe('approval');
    expect(envelope.paused?.data).toStrictEqual({ step: 1 });
    expect(envelope.paused?.pending.map(({ sequence, tool }) => [sequence, tool])).toStrictEqual([
      [3, 'approve'],
    ]);
    expect(envelope.paused?.token.startsWith('cmdt.')).toBe(true);
    // The pool's one child serves the next run: the paused one holds nothing.
    expect((await executor.execute({ code: 'async () => 42' })).result).toBe(42);
  });

  test('another executor holding the same key resumes it, in a child of its own', async () => {
    seedWord = 7;
    const other = executorOf({ durable: { keys: keys() } });
    const straight = await runPausing([]);
    const resumed = await runPausing([1, 2], other);
    expect(resumed.envelope.result).toStrictEqual(straight.envelope.result);
    expect(resumed.logs).toStrictEqual(straight.logs);
  });

  test('a call a resume performs carries the idempotency key of the token and its sequence, the same on a retry', async () => {
    seedWord = 8;
    const code = `async () => { await api.approve(1); return [await api.key(), await api.key()]; }`;
    const first = await executor.execute(request(new Set([1]), [], code));
    expect(first.paused).toBeDefined();
    const answers = { 1: { result: true } };
    const one = await executor.resume(first.paused?.token, answers, request(new Set(), [], code));
    const two = await executor.resume(first.paused?.token, answers, request(new Set(), [], code));
    const [a, b] = one.result as [string, string];
    expect(typeof a).toBe('string');
    expect(a).not.toBe(b);
    expect(two.result).toStrictEqual(one.result);
  });

  test('a tool still running when the run pauses is pending with an outcome unknown', async () => {
    seedWord = 9;
    let release = () => {};
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    const envelope = await executor.execute({
      code: `async () => Promise.all([api.slow(), api.stop()])`,
      durable: true,
      providers: [
        {
          name: 'api',
          fns: {
            slow: async () => {
              await slow;
              return 'late';
            },
            stop: async () => pause(),
          },
        },
      ],
    });
    release();
    expect(envelope.paused?.pending).toStrictEqual([
      { sequence: 1, provider: 'api', tool: 'slow', args: '[]', outcome: 'unknown' },
      { sequence: 2, provider: 'api', tool: 'stop', args: '[]' },
    ]);
  });
});

describe('a pause signal thrown by another copy of pause()', () => {
  test("pauses the run as the executor's own does: the client's pause, and a bare signal with the mark", async () => {
    const bare = Object.assign(new Error('paused by a copy'), {
      [Symbol.for('@supolka/codemode.pause')]: true,
      reason: 'elsewhere',
      data: { n: 2 },
    });
    for (const [thrower, reason, data] of [
      [() => clientPause({ n: 1 }, { reason: 'client' }), 'client', { n: 1 }],
      [
        () => {
          throw bare;
        },
        'elsewhere',
        { n: 2 },
      ],
    ] as const) {
      const envelope = await executor.execute({
        code: 'async () => api.stop()',
        durable: true,
        providers: [{ name: 'api', fns: { stop: thrower } }],
      });
      expect(envelope.paused).toMatchObject({ reason, data, pending: [{ sequence: 1, tool: 'stop' }] });
    }
  });

  test('in a run that is not durable it is the tool failure it always was', async () => {
    const envelope = await executor.execute({
      code: 'async () => { try { await api.stop(); } catch (e) { return e.message; } }',
      providers: [{ name: 'api', fns: { stop: () => clientPause() } }],
    });
    expect(envelope.result).toBe(NOT_DURABLE_PAUSE_MESSAGE);
  });
});

describe('what a durable request or a resume through the pool refuses', () => {
  const ORIGINAL = `async () => { const a = await api.get(1); const ok = await api.approve(1); return [a, ok]; }`;

  async function paused(principal?: string) {
    const envelope = await executor.execute(request(new Set([1]), [], ORIGINAL), {
      ...(principal !== undefined ? { principal } : {}),
    });
    expect(envelope.paused).toBeDefined();
    return envelope.paused?.token as string;
  }

  test('a durable request to an executor without a key ring, or one that retains handles', async () => {
    const plain = executorOf();
    expect(await plain.execute(request(new Set(), []))).toMatchObject({
      code: 'BAD_REQUEST',
      error: NO_KEY_RING_MESSAGE,
    });
    expect(await executor.execute({ ...request(new Set(), []), retainHandles: true })).toMatchObject({
      code: 'BAD_REQUEST',
    });
    expect((await plain.resume('cmdt.x', {}, request(new Set(), []))).code).toBe('BAD_REQUEST');
  });

  test('a forged, bit-flipped or foreign-key token, and one for another program or principal', async () => {
    const token = await paused('alice');
    const answers = { 2: { result: 'yes' } };
    const again = (text: unknown, code = ORIGINAL, principal = 'alice') =>
      executor.resume(text, answers, request(new Set(), [], code), { principal });
    expect((await again('cmdt.AAAA')).code).toBe('TOKEN_MALFORMED');
    const flipped = `${token.slice(0, 40)}${token[40] === 'A' ? 'B' : 'A'}${token.slice(41)}`;
    expect((await again(flipped)).code).toBe('TOKEN_FORGED');
    const foreign = executorOf({
      durable: { keys: new DurableKeyRing({ keys: [{ id: 'k1', key: randomBytes(32) }] }) },
    });
    expect(
      (await foreign.resume(token, answers, request(new Set(), [], ORIGINAL), { principal: 'alice' })).code,
    ).toBe('TOKEN_FORGED');
    expect((await again(token, `${ORIGINAL} `)).code).toBe('TOKEN_MISMATCH');
    expect((await again(token, ORIGINAL, 'mallory')).code).toBe('TOKEN_MISMATCH');
    expect((await again(token)).result).toStrictEqual([10, 'yes']);
  });

  test('another program is another request: its token refuses it before anything runs', async () => {
    const token = await paused();
    const seen: unknown[] = [];
    const other = await executor.resume(
      token,
      { 2: { perform: true } },
      {
        ...request(new Set(), seen, ORIGINAL),
        code: ORIGINAL.replace('api.get(1)', 'api.get(2)'),
      },
    );
    expect(other.code).toBe('TOKEN_MISMATCH');
    expect(seen).toStrictEqual([]);
  });

  test('a journal whose calls the program does not make again diverges in the child, before anything runs live', async () => {
    const token = await paused();
    // Whoever holds the key can seal any journal: here one whose first call had other arguments.
    const durability = new Durability({ keys: keys() });
    const wire = {
      ...(await splitRequest(request(new Set(), [], ORIGINAL), resolveOptions({ timeout: 20_000 }))).wire,
    };
    const binding = durability.binding(wire, undefined);
    const tokens = new DurableTokens({ keys: keys() });
    const opened = await tokens.open(token, binding);
    const journal = structuredClone(opened.contents.journal) as JournalEntry[];
    journal[0] = { ...(journal[0] as JournalEntry), args: '[5]' };
    const edited = tokens.seal({ journal, state: opened.contents.state }, binding).token;
    const seen: unknown[] = [];
    const diverged = await executor.resume(
      edited,
      { 2: { perform: true } },
      request(new Set(), seen, ORIGINAL),
    );
    expect(diverged.code).toBe('REPLAY_DIVERGED');
    expect(diverged.error).toMatch(/^Replay diverged: call 1 \(api\.get\) has other arguments/);
    expect(seen).toStrictEqual([]);
  });

  test('answers that are not one per pending call', async () => {
    const token = await paused();
    const resumed = await executor.resume(token, { 1: { result: 1 } }, request(new Set(), [], ORIGINAL));
    expect(resumed.code).toBe('BAD_REQUEST');
  });
});

describe('nested executions of a durable run through the pool', () => {
  test("a nested run's tool cannot pause the outer run, and a nested durable run is refused", async () => {
    const nested = executorOf({ poolSize: 2, durable: { keys: keys() } });
    const envelope = await nested.execute({
      code: `async () => [await api.inner(), await api.innerDurable()]`,
      durable: true,
      providers: [
        {
          name: 'api',
          fns: {
            inner: async () =>
              (
                await nested.execute({
                  code: 'async () => { try { await t.stop(); } catch (e) { return e.message; } }',
                  providers: [{ name: 't', fns: { stop: async () => pause() } }],
                })
              ).result,
            innerDurable: async () => (await nested.execute({ code: 'async () => 1', durable: true })).code,
          },
        },
      ],
    });
    expect(envelope.paused).toBeUndefined();
    expect(envelope.result).toStrictEqual([NESTED_PAUSE_MESSAGE, 'BAD_REQUEST']);
  });
});

describe('a claim store and a resume refused', () => {
  test('answers that do not fit the pending calls are refused before the claim: the corrected resume runs', async () => {
    const claiming = executorOf({ durable: { keys: keys(), claims: new MemoryClaimStore() } });
    const code = `async () => await api.approve(1)`;
    const first = await claiming.execute(request(new Set([1]), [], code));
    const token = first.paused?.token;
    const sequence = first.paused?.pending[0]?.sequence as number;
    // An answer for a call that is not pending, and none for the one that is.
    const wrong = await claiming.resume(
      token,
      { [sequence + 7]: { result: 1 } },
      request(new Set(), [], code),
    );
    expect(wrong.code).toBe('BAD_REQUEST');
    const right = await claiming.resume(token, { [sequence]: { result: 5 } }, request(new Set(), [], code));
    expect(right).toMatchObject({ result: 5 });
    expect(right.code).toBeUndefined();
    // Spent by the resume that ran.
    expect(
      (await claiming.resume(token, { [sequence]: { result: 5 } }, request(new Set(), [], code))).code,
    ).toBe('TOKEN_REPLAYED');
  });
});

describe('discarding a paused run', () => {
  test('with a claim store, the token is spent: a resume after it is TOKEN_REPLAYED', async () => {
    const claiming = executorOf({ durable: { keys: keys(), claims: new MemoryClaimStore() } });
    const code = `async () => await api.approve(1)`;
    const first = await claiming.execute(request(new Set([1]), [], code));
    const token = first.paused?.token;
    expect(await claiming.discard(token, request(new Set(), [], code))).toMatchObject({
      discarded: true,
      claimed: true,
      tokenId: first.paused?.tokenId,
    });
    expect((await claiming.resume(token, { 1: { result: 1 } }, request(new Set(), [], code))).code).toBe(
      'TOKEN_REPLAYED',
    );
  });

  test('without one, it is checked but stays resumable until it expires', async () => {
    const code = `async () => await api.approve(1)`;
    const first = await executor.execute(request(new Set([1]), [], code));
    const token = first.paused?.token;
    expect(await executor.discard(token, request(new Set(), [], code))).toMatchObject({
      discarded: true,
      claimed: false,
    });
    expect(await executor.discard('cmdt.x', request(new Set(), [], code))).toMatchObject({
      discarded: false,
      code: 'TOKEN_MALFORMED',
    });
    expect((await executor.resume(token, { 1: { result: 'ok' } }, request(new Set(), [], code))).result).toBe(
      'ok',
    );
  });
});

describe('runs that are not durable keep their meaning', () => {
  test("pause() in a run that did not ask for durability is the tool's failure", async () => {
    const { durable: _, ...plain } = request(
      new Set([1]),
      [],
      `async () => { try { await api.approve(1); } catch (e) { return e.message; } }`,
    );
    const envelope = await executor.execute(plain);
    expect(Object.hasOwn(envelope, 'paused')).toBe(false);
    expect(envelope.result).toMatch(/the run is not durable/);
  });

  test("the Code Mode form's connector pause still throws __CODEMODE_PAUSE__ on an executor with a key ring", async () => {
    const outcome = await executor.execute(
      `async () => svc.wait().catch((error) => error.message)`,
      {},
      {
        connectors: [{ name: 'svc', binding: { callTool: async () => ({ __codemode_control__: 'pause' }) } }],
      },
    );
    expect(outcome.result).toBe('__CODEMODE_PAUSE__');
  });
});

describe('the Code Mode form, asked for durability', () => {
  /** Statements the form wraps, served by apiProviders, whose `approve` pauses until its step is open. */
  const CODE = `const a = await api.get(1);\nconst ok = await api.approve(a);\nreturn { a, ok, key: await api.key() };`;

  test('pauses with its token and resumes from the same code and providers, under the same principal', async () => {
    const seen: unknown[] = [];
    const first = await executor.execute(CODE, apiProviders(new Set([10]), seen), {
      durable: true,
      principal: 'p',
    });
    expect(first.error).toBeUndefined();
    expect(first.paused?.reason).toBe('approval');
    expect(first.paused?.pending.map((call) => [call.sequence, call.provider, call.tool])).toEqual([
      [2, 'api', 'approve'],
    ]);
    const token = first.paused?.token as string;
    const done = await executor.resume(token, { 2: { perform: true } }, CODE, apiProviders(new Set(), seen), {
      principal: 'p',
    });
    expect(done.error).toBeUndefined();
    expect(done.result).toMatchObject({ a: 10, ok: 'approved 10' });
    expect(typeof (done.result as { key: unknown }).key).toBe('string');
    // The resume served get(1) from the journal: the tool ran once; approve ran again, performed.
    expect(seen).toEqual([
      ['get', 1],
      ['approve', 10],
      ['approve', 10],
    ]);
    const foreign = await executor.resume(
      token,
      { 2: { perform: true } },
      CODE,
      apiProviders(new Set(), []),
      { principal: 'another' },
    );
    expect([foreign.code, foreign.result]).toEqual(['TOKEN_MISMATCH', undefined]);
  });

  test('without durable it runs as before: pause() is the tool failure', async () => {
    const outcome = await executor.execute(
      'try { await api.approve(1); } catch (e) { return e.message; }',
      apiProviders(new Set([1]), []),
    );
    expect(Object.hasOwn(outcome, 'paused')).toBe(false);
    expect(outcome.result).toMatch(/the run is not durable/);
  });
});
