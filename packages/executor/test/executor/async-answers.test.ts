/**
 * Asynchronous answers of program size toward an isolate near its memory limit, through the pool:
 * each attack runs in a pool child of its own. Before sandbox/crossing/answers.ts, a tool result or a crypto.subtle
 * frame that isolated-vm copied in by its own task while the isolate was at its limit aborted the
 * child (SIGABRT, std::exception: WORKER_LOST) and took another caller's retained execution in
 * that child with it (HANDLES_CLOSED). Now the run ends MEMORY_LIMIT and the child lives on: the
 * same process answers the retained execution afterwards.
 */
import { describe, expect, test } from 'vitest';
import { IsolateExecutor } from '../../src/executor/isolate-executor.ts';
import type { ExecuteResult } from '../../src/sandbox/sandbox.ts';
import { againstRetained, expectRunEndsChildLives } from '../helpers.ts';

const MIB = 2 ** 20;

/** Resolves after a random few milliseconds: answers arrive spread over time, as real tools' do. */
const later = () => new Promise((resolve) => setTimeout(resolve, Math.random() * 40));

/** A tool answering `value` later. */
const answering = (value: unknown) => async () => {
  await later();
  return value;
};

/** Sixteen concurrent calls, each answer kept, under a 64 MB limit: the answers cannot all fit. */
const KEEP_SIXTEEN = `async () => {
  const kept = [];
  await Promise.all(Array.from({ length: 16 }, (_, i) => t.get({ i }).then((value) => kept.push(value))));
  return kept.length;
}`;

/** KEEP_SIXTEEN under a 64 MB limit, each call answered `value` later. */
const keepingSixteen = (value: string) => (executor: IsolateExecutor) =>
  executor.execute({
    code: KEEP_SIXTEEN,
    memoryLimit: 64,
    providers: [{ name: 't', fns: { get: answering(value) } }],
  });

/** Fills a 64 MB heap step by step, keeping what `call` answers each step; each tool call answers `value` later. */
const filling = (call: string, value: string) => (executor: IsolateExecutor) =>
  executor.execute({
    code: `async () => {
      const kept = [];
      for (;;) {
        kept.push(new Array(50000).fill(kept.length));
        kept.push(await ${call});
      }
    }`,
    memoryLimit: 64,
    providers: [{ name: 't', fns: { get: answering(value) } }],
  });

describe('tool results', () => {
  test('sixteen 6 MiB string results answered over time end the run MEMORY_LIMIT; the child lives', async () => {
    await expectRunEndsChildLives(keepingSixteen('x'.repeat(6 * MIB)));
  });

  test('two-byte text results (the answer takes two bytes a character) do the same', async () => {
    await expectRunEndsChildLives(keepingSixteen('\u4e00'.repeat(3 * MIB)));
  });

  test('a raw dispatch failing each call with a 6 MiB message (the thrown frame) does the same', async () => {
    const message = 'e'.repeat(6 * MIB);
    await expectRunEndsChildLives((executor) =>
      executor.execute({
        code: `async () => {
          const kept = [];
          await Promise.all(Array.from({ length: 16 }, () => t.get().catch((error) => kept.push(error.message))));
          return kept.length;
        }`,
        memoryLimit: 64,
        providers: [{ name: 't' }],
        dispatch: async () => {
          await later();
          throw new Error(message);
        },
      }),
    );
  });

  test('small results arriving while the isolate fills up end the run MEMORY_LIMIT too', async () => {
    await expectRunEndsChildLives(filling('t.get()', 'y'.repeat(2000)));
  });

  test('200-character results, which cross inline, arriving while the isolate fills up end the run MEMORY_LIMIT', async () => {
    await expectRunEndsChildLives(filling('Promise.all([t.get(), t.get(), t.get()])', 'q'.repeat(200)));
  });

  test('the same results under a limit that holds them all arrive whole', async () => {
    const big = 'x'.repeat(2 * MIB);
    const executor = new IsolateExecutor({ poolSize: 1 });
    try {
      const envelope = await executor.execute({
        code: `async () => {
          const all = await Promise.all(Array.from({ length: 12 }, () => t.get()));
          return all.every((text) => text === all[0]) ? all.length * all[0].length : 'differ';
        }`,
        memoryLimit: 128,
        providers: [{ name: 't', fns: { get: answering(big) } }],
      });
      expect(envelope).toStrictEqual({ result: 24 * MIB, logs: [] });
    } finally {
      await executor.dispose();
    }
  });
});

describe('crypto.subtle results', () => {
  test('twenty concurrent 3 MiB encryptions under a 64 MB limit end the run MEMORY_LIMIT; the child lives', async () => {
    await expectRunEndsChildLives((executor) =>
      executor.execute({
        code: `async () => {
          const key = await crypto.subtle.importKey('raw', new Uint8Array(16), 'AES-CTR', false, ['encrypt']);
          const data = new Uint8Array(3 * 2 ** 20);
          const all = await Promise.all(Array.from({ length: 20 }, () =>
            crypto.subtle.encrypt({ name: 'AES-CTR', counter: new Uint8Array(16), length: 64 }, key, data)));
          return all.length;
        }`,
        memoryLimit: 64,
      }),
    );
  });

  test('32-byte digests answered while the isolate fills up do the same, round after round', async () => {
    // Whether an answer lands at the limit is a race: three rounds in one child make it likely.
    await expectRunEndsChildLives(async (executor) => {
      let envelope: ExecuteResult | undefined;
      for (
        let round = 0;
        round < 3 && (envelope === undefined || envelope.code === 'MEMORY_LIMIT');
        round++
      ) {
        envelope = await executor.execute({
          code: `async () => {
            const kept = [];
            const data = new Uint8Array(64);
            for (;;) {
              kept.push(new Array(20000).fill(kept.length));
              kept.push(await Promise.all([0, 1, 2, 3].map(() => crypto.subtle.digest('SHA-256', data))));
            }
          }`,
          memoryLimit: 64,
        });
      }
      return envelope as ExecuteResult;
    });
  });

  test('exported keys and signatures taken from the host keep their values', async () => {
    const executor = new IsolateExecutor({ poolSize: 1 });
    try {
      const envelope = await executor.execute({
        code: `async () => {
          const key = await crypto.subtle.importKey('raw', new Uint8Array([1, 2, 3]), { name: 'HMAC', hash: 'SHA-256' }, true, ['sign', 'verify']);
          const signature = await crypto.subtle.sign('HMAC', key, new Uint8Array([4]));
          const verified = await crypto.subtle.verify('HMAC', key, signature, new Uint8Array([4]));
          const jwk = await crypto.subtle.exportKey('jwk', key);
          return [signature.byteLength, verified, jwk.k, key.algorithm.hash.name];
        }`,
      });
      expect(envelope).toStrictEqual({ result: [32, true, 'AQID', 'SHA-256'], logs: [] });
    } finally {
      await executor.dispose();
    }
  });
});

/**
 * A path that already held, pinned so it keeps holding: isolated-vm copies an invocation's
 * request inside the call it makes into the isolate (Phase2 under RunCatchExternal), where a copy
 * past the limit is caught and ends that execution alone.
 */
describe('requests into a retained execution', () => {
  test('fourteen concurrent invocations with 8 MiB bodies end their execution MEMORY_LIMIT; the child and another execution live', async () => {
    const { outcome, after, samePid } = await againstRetained(async (executor) => {
      const victim = await executor.execute({
        code: `async () => { const kept = []; return { fetch: async (request) => { kept.push(await request.arrayBuffer()); return new Response(String(kept.length)); } }; }`,
        retainHandles: true,
        memoryLimit: 64,
      });
      const body = new Uint8Array(8 * MIB).fill(1);
      const codes = await Promise.all(
        Array.from({ length: 14 }, () =>
          executor
            .invoke(victim.executionId as string, new Request('http://x/', { method: 'POST', body }))
            .then(
              (response) => response.status,
              (error: { code?: string }) => error.code,
            ),
        ),
      );
      return { result: codes, logs: [] };
    });
    const codes = outcome.result as (number | string)[];
    // Those before the limit answered; the one past it ended the execution; the rest found it closed.
    expect(codes).toContain('MEMORY_LIMIT');
    expect(
      codes.filter((code) => code !== 200 && code !== 'MEMORY_LIMIT' && code !== 'HANDLES_CLOSED'),
    ).toStrictEqual([]);
    expect(after).toBe('still here');
    expect(samePid).toBe(true);
  });
});
