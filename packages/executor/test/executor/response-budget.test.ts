/**
 * Response bodies toward an isolate, through the pool: each attack runs in a pool child of its
 * own, which before the fix aborted (SIGABRT, std::exception: WORKER_LOST) and took a retained
 * execution of another caller in the same child with it (HANDLES_CLOSED).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { memoryLimitMessage } from '@supolka/codemode-protocol';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { IsolateExecutor } from '../../src/executor/isolate-executor.ts';
import { bodyBudgetFor, bodyBudgetMessage } from '../../src/sandbox/outbound/body-budget.ts';

const MIB = 2 ** 20;

/** A gzip body of about 30 KB that inflates to 30 MiB. */
const bomb = gzipSync(Buffer.alloc(30 * MIB));
let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/bomb') response.writeHead(200, { 'content-encoding': 'gzip' }).end(bomb);
    else response.end('small');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** One child; a retained execution of another caller is parked in it before the attack. */
async function withRetained<T>(
  options: ConstructorParameters<typeof IsolateExecutor>[0],
  attack: (executor: IsolateExecutor) => Promise<T>,
) {
  const executor = new IsolateExecutor({ poolSize: 1, ...options });
  try {
    const retained = await executor.execute({
      code: `async () => ({ fetch: async () => new Response('still here') })`,
      retainHandles: true,
    });
    const outcome = await attack(executor);
    const after = await executor.invoke(retained.executionId as string, new Request('http://x/'));
    return { outcome, after: after.ok ? await after.text() : after.status, stats: executor.stats() };
  } finally {
    await executor.dispose();
  }
}

const TWELVE = `async () => {
  const bodies = await Promise.all(Array.from({ length: 12 }, () => fetch('http://upstream.test/').then((r) => r.arrayBuffer())));
  return bodies.reduce((sum, body) => sum + body.byteLength, 0);
}`;

describe('response bodies toward an isolate', () => {
  test('twelve concurrent 8 MiB proxied bodies under a 64 MB limit end the run MEMORY_LIMIT; the child lives', async () => {
    const body = new Uint8Array(8 * MIB).fill(65);
    const { outcome, after, stats } = await withRetained({}, (executor) =>
      executor.execute({
        code: TWELVE,
        memoryLimit: 64,
        // Answers spread over time, as a real proxy's do: the case that aborted the child.
        outbound: async () => {
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 20));
          return { status: 200, statusText: 'OK', headers: [], body };
        },
      }),
    );
    expect(outcome).toMatchObject({ code: 'MEMORY_LIMIT', error: memoryLimitMessage(64) });
    expect(after).toBe('still here');
    expect(stats.children.length).toBe(1);
  });

  test('the same bodies under a limit that holds them all are read whole', async () => {
    const body = new Uint8Array(2 * MIB).fill(66);
    const executor = new IsolateExecutor({ poolSize: 1 });
    try {
      const envelope = await executor.execute({
        code: TWELVE,
        memoryLimit: 128,
        outbound: () => ({ status: 200, statusText: 'OK', headers: [], body }),
      });
      expect(envelope.result).toBe(24 * MIB);
    } finally {
      await executor.dispose();
    }
  });

  test('a 30 KB gzip body inflating to 30 MiB stops at the budget as it decodes (native)', async () => {
    const { outcome, after } = await withRetained({ allowLoopback: true }, (executor) =>
      executor.execute({
        code: `async () => fetch('${base}/bomb').then((r) => r.arrayBuffer()).then((b) => b.byteLength, (e) => [e.name, e.message])`,
        memoryLimit: 16,
        outbound: undefined,
      }),
    );
    const [name, message] = outcome.result as [string, string];
    expect(name).toBe('TypeError');
    // Counted chunk by chunk: the first chunk past the 16 MiB budget stops the read.
    const held = Number(/would take (\d+) bytes/.exec(message)?.[1]);
    expect(message).toBe(bodyBudgetMessage(held, bodyBudgetFor(16)));
    expect(held).toBeLessThan(bodyBudgetFor(16) + MIB);
    expect(after).toBe('still here');
  });

  test('a gzip body inflating past the memory limit but within the budget ends the run MEMORY_LIMIT, the child lives', async () => {
    const { outcome, after } = await withRetained({ allowLoopback: true }, (executor) =>
      executor.execute({
        code: `async () => { const kept = []; for (let i = 0; i < 4; i++) kept.push(await fetch('${base}/bomb').then((r) => r.arrayBuffer())); return kept.length }`,
        memoryLimit: 64,
        outbound: undefined,
      }),
    );
    expect(outcome).toMatchObject({ code: 'MEMORY_LIMIT' });
    expect(after).toBe('still here');
  });
});
